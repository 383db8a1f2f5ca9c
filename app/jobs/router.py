"""Admin: run a background job now, and the job-run history."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from app.clock import to_datetime
from app.deps import Admin, SessionDep, StateDep
from app.errors import Conflict, error_responses
from app.jobs.service import run_job
from app.models import JobRunRow
from app.jobs import repository as jobs_repo
from app.revise.schemas import JobName, JobRunOut, JobRunPage

router = APIRouter(prefix="/v1/jobs", tags=["jobs"])


def job_run_out(row: JobRunRow) -> JobRunOut:
    return JobRunOut(
        id=row.id,
        job=row.job,
        trigger=row.trigger,
        status=row.status,
        started_at=to_datetime(row.started_at),
        finished_at=to_datetime(row.finished_at) if row.finished_at is not None else None,
        duration_s=row.finished_at - row.started_at if row.finished_at is not None else None,
        counts=row.counts or {},
        error=row.error,
    )


@router.post(
    "/{job}/run",
    operation_id="runJob",
    response_model=JobRunOut,
    responses=error_responses(401, 403, 409, 422, 429),
    summary="Run a job now and wait for it (409 while another run holds its lock)",
)
def run_now(job: JobName, state: StateDep, _admin: Admin) -> JobRunOut:
    outcome = run_job(state.db, state.settings, job.value, "manual")
    if outcome.run is None:
        raise Conflict(f"Job {job.value!r} is running elsewhere; try again later.")
    return job_run_out(outcome.run)


@router.get(
    "",
    operation_id="listJobRuns",
    response_model=JobRunPage,
    responses=error_responses(401, 403, 422, 429),
    summary="Recent job runs, newest first",
)
def list_runs(
    session: SessionDep,
    _admin: Admin,
    job: JobName | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> JobRunPage:
    rows = jobs_repo.recent(session, job.value if job else None, limit)
    return JobRunPage(items=[job_run_out(r) for r in rows])
