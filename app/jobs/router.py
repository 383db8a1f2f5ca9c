"""Admin: run a background job now, and the job-run history."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from app.deps import Admin, ConsistencyDep, StateDep
from app.errors import error_responses
from app.jobs import service as jobs_service
from app.jobs.schemas import JobName, JobRunOut, JobRunPage
from app.request_work import reading

router = APIRouter(prefix="/v1/jobs", tags=["jobs"])


@router.post(
    "/{job}/run",
    operation_id="runJob",
    response_model=JobRunOut,
    responses=error_responses(401, 403, 409, 422, 429),
    summary="Run a job now and wait for it (409 while another run holds its lock)",
)
def run_job_now(job: JobName, state: StateDep, _admin: Admin) -> JobRunOut:
    return jobs_service.run_now(state.db, state.settings, job.value)


@router.get(
    "",
    operation_id="listJobRuns",
    response_model=JobRunPage,
    responses=error_responses(401, 403, 422, 429),
    summary="Recent job runs, newest first",
)
async def list_runs(
    state: StateDep,
    position: ConsistencyDep,
    _admin: Admin,
    job: JobName | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> JobRunPage:
    name = job.value if job else None
    return await reading(state, position, lambda s: jobs_service.recent_runs(s, name, limit))
