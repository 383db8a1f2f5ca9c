"""Salience of one record: reinforce, penalize, pin, unpin."""

from __future__ import annotations

from fastapi import APIRouter, Request

from app.deps import WritingDep
from app.errors import error_responses
from app.records.schemas import MemoryRecordOut
from app.request_work import writing
from app.salience.schemas import PenalizeRequest, PinRequest, ReinforceRequest
from app.salience.service import SalienceService

router = APIRouter(prefix="/v1/records", tags=["salience"])
ERRORS = error_responses(401, 403, 404, 422, 429)


@router.post(
    "/{record_id}/reinforce",
    operation_id="reinforceRecord",
    response_model=MemoryRecordOut,
    responses=ERRORS,
    summary="Add the record's reinforcement gain to its salience and restart its decay",
)
async def reinforce_record(
    record_id: str,
    request: Request,
    write: WritingDep,
    body: ReinforceRequest | None = None,
) -> MemoryRecordOut:
    state, trust = write.state, write.trust
    rationale = body.rationale if body else None
    return await writing(
        state,
        request,
        lambda s: SalienceService(s, state.policy).reinforce(record_id, trust, rationale),
    )


@router.post(
    "/{record_id}/penalize",
    operation_id="penalizeRecord",
    response_model=MemoryRecordOut,
    responses=ERRORS,
    summary="Lower the record's salience (floored at its minimum) and restart its decay",
)
async def penalize_record(
    record_id: str, body: PenalizeRequest, request: Request, write: WritingDep
) -> MemoryRecordOut:
    state, trust = write.state, write.trust
    return await writing(
        state,
        request,
        lambda s: SalienceService(s, state.policy).penalize(
            record_id, trust, body.amount, body.rationale
        ),
    )


@router.post(
    "/{record_id}/pin",
    operation_id="pinRecord",
    response_model=MemoryRecordOut,
    responses=ERRORS,
    summary="Pin a record: its salience is frozen and it is never pruned",
)
async def pin_record(
    record_id: str,
    request: Request,
    write: WritingDep,
    body: PinRequest | None = None,
) -> MemoryRecordOut:
    state, trust = write.state, write.trust
    rationale = body.rationale if body else None
    return await writing(
        state,
        request,
        lambda s: SalienceService(s, state.policy).set_pinned(record_id, trust, True, rationale),
    )


@router.post(
    "/{record_id}/unpin",
    operation_id="unpinRecord",
    response_model=MemoryRecordOut,
    responses=ERRORS,
    summary="Unpin a record: decay resumes from now",
)
async def unpin_record(
    record_id: str,
    request: Request,
    write: WritingDep,
    body: PinRequest | None = None,
) -> MemoryRecordOut:
    state, trust = write.state, write.trust
    rationale = body.rationale if body else None
    return await writing(
        state,
        request,
        lambda s: SalienceService(s, state.policy).set_pinned(record_id, trust, False, rationale),
    )
