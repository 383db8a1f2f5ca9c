"""Revision endpoints: supersede, fork, retract, contest, merge."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter, Request, status

from app.errors import error_responses
from app.idempotency.http import KeyedWriteDep, writing_once
from app.idempotency.service import Answer, IdempotencyKey
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
from app.state import AppState

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


async def _revised(
    state: AppState,
    request: Request,
    key: IdempotencyKey,
    status_code: int,
    act: Callable[[RevisionService], Answer],
) -> Answer:
    """`act` on a RevisionService of the request's transaction, written once per key."""
    return await writing_once(
        state, request, key, status_code, lambda s: act(RevisionService(s, state.policy))
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
async def merge(
    body: MergeRequest,
    request: Request,
    write: KeyedWriteDep,
) -> MergeResult:
    state, trust, key = write.state, write.trust, write.key
    return await _revised(state, request, key, 201, lambda r: r.merge(body, trust))


@router.post(
    "/{record_id}/supersede",
    operation_id="supersedeRecord",
    description=NEW_RECORD + TARGETS,
    status_code=status.HTTP_201_CREATED,
    response_model=SupersedeResult,
    responses=ERRORS,
    summary="Replace a record with a new version; the old one is kept as superseded",
)
async def supersede(
    record_id: str,
    body: SupersedeRequest,
    request: Request,
    write: KeyedWriteDep,
) -> SupersedeResult:
    state, trust, key = write.state, write.trust, write.key
    return await _revised(state, request, key, 201, lambda r: r.supersede(record_id, body, trust))


@router.post(
    "/{record_id}/fork",
    operation_id="forkRecord",
    description=NEW_RECORD + TARGETS,
    status_code=status.HTTP_201_CREATED,
    response_model=ForkResult,
    responses=ERRORS,
    summary="Create a variant derived from a record; the source stays active",
)
async def fork(
    record_id: str,
    body: ForkRequest,
    request: Request,
    write: KeyedWriteDep,
) -> ForkResult:
    state, trust, key = write.state, write.trust, write.key
    return await _revised(state, request, key, 201, lambda r: r.fork(record_id, body, trust))


@router.post(
    "/{record_id}/retract",
    operation_id="retractRecord",
    description=TARGETS,
    response_model=RetractResult,
    responses=ERRORS,
    summary="Retract a record: kept for audit, excluded from retrieval",
)
async def retract(
    record_id: str,
    body: RetractRequest,
    request: Request,
    write: KeyedWriteDep,
) -> RetractResult:
    state, trust, key = write.state, write.trust, write.key
    return await _revised(state, request, key, 200, lambda r: r.retract(record_id, body, trust))


@router.post(
    "/{record_id}/contest",
    operation_id="contestRecord",
    description=TARGETS,
    response_model=ContestResult,
    responses=ERRORS,
    summary="Mark a record as contested by another record or an external reference",
)
async def contest(
    record_id: str,
    body: ContestRequest,
    request: Request,
    write: KeyedWriteDep,
) -> ContestResult:
    state, trust, key = write.state, write.trust, write.key
    return await _revised(state, request, key, 200, lambda r: r.contest(record_id, body, trust))
