"""Revision endpoints: supersede, fork, retract, contest, merge."""

from __future__ import annotations

from fastapi import APIRouter, status

from app.deps import SessionDep, StateDep, WriteTrust
from app.errors import error_responses
from app.idempotency.http import IdempotencyDep
from app.revise.schemas import (
    ContestRequest,
    ContestResult,
    ForkRequest,
    ForkResult,
    MergeRequest,
    MergeResult,
    RetractRequest,
    RetractResult,
    SupersedeRequest,
    SupersedeResult,
)
from app.revise.service import RevisionService

router = APIRouter(prefix="/v1/records", tags=["revise"])
ERRORS = error_responses(401, 403, 404, 409, 413, 422, 429)
# What the service checks beyond the request schema (the evidence rule is in it too).
NEW_RECORD = (
    "The new record must be of the target's type (422 otherwise); a semantic one needs "
    "evidence: a non-empty `payload.evidence` or `provenance.sources` (422 otherwise). "
)
TARGETS = (
    "Episodic targets are immutable, and superseded or retracted ones are final: both "
    "answer 409. A target the caller cannot read answers 404 (or 403, one level above "
    "its ceiling)."
)


@router.post(
    "/merge",
    operation_id="mergeRecords",
    description=NEW_RECORD + TARGETS,
    status_code=status.HTTP_201_CREATED,
    response_model=MergeResult,
    responses=ERRORS,
    summary="Merge records into a new one; the sources become superseded",
)
def merge(
    body: MergeRequest,
    state: StateDep,
    session: SessionDep,
    trust: WriteTrust,
    write: IdempotencyDep,
) -> MergeResult:
    return write.answer(201, RevisionService(session, state.policy).merge(body, trust))


@router.post(
    "/{record_id}/supersede",
    operation_id="supersedeRecord",
    description=NEW_RECORD + TARGETS,
    status_code=status.HTTP_201_CREATED,
    response_model=SupersedeResult,
    responses=ERRORS,
    summary="Replace a record with a new version; the old one is kept as superseded",
)
def supersede(
    record_id: str,
    body: SupersedeRequest,
    state: StateDep,
    session: SessionDep,
    trust: WriteTrust,
    write: IdempotencyDep,
) -> SupersedeResult:
    return write.answer(
        201, RevisionService(session, state.policy).supersede(record_id, body, trust)
    )


@router.post(
    "/{record_id}/fork",
    operation_id="forkRecord",
    description=NEW_RECORD + TARGETS,
    status_code=status.HTTP_201_CREATED,
    response_model=ForkResult,
    responses=ERRORS,
    summary="Create a variant derived from a record; the source stays active",
)
def fork(
    record_id: str,
    body: ForkRequest,
    state: StateDep,
    session: SessionDep,
    trust: WriteTrust,
    write: IdempotencyDep,
) -> ForkResult:
    return write.answer(201, RevisionService(session, state.policy).fork(record_id, body, trust))


@router.post(
    "/{record_id}/retract",
    operation_id="retractRecord",
    description=TARGETS,
    response_model=RetractResult,
    responses=ERRORS,
    summary="Retract a record: kept for audit, excluded from retrieval",
)
def retract(
    record_id: str,
    body: RetractRequest,
    state: StateDep,
    session: SessionDep,
    trust: WriteTrust,
    write: IdempotencyDep,
) -> RetractResult:
    return write.answer(200, RevisionService(session, state.policy).retract(record_id, body, trust))


@router.post(
    "/{record_id}/contest",
    operation_id="contestRecord",
    description=TARGETS,
    response_model=ContestResult,
    responses=ERRORS,
    summary="Mark a record as contested by another record or an external reference",
)
def contest(
    record_id: str,
    body: ContestRequest,
    state: StateDep,
    session: SessionDep,
    trust: WriteTrust,
    write: IdempotencyDep,
) -> ContestResult:
    return write.answer(200, RevisionService(session, state.policy).contest(record_id, body, trust))
