"""POST /v1/capture and the typed /v1/ingest/* endpoints."""

from __future__ import annotations

from enum import Enum

from fastapi import APIRouter, status
from sqlalchemy.orm import Session

from app.capture import batch, ingest
from app.capture.schemas import (
    CaptureBatchRequest,
    CaptureBatchResponse,
    CaptureRequest,
    CaptureResponse,
    EpisodeIngest,
    EventIngest,
    ObservationIngest,
    OutcomeIngest,
    ToolOutputIngest,
    WorkingStateIngest,
)
from app.capture.service import CaptureService
from app.deps import SessionDep, StateDep, WriteTrust
from app.errors import error_responses
from app.idempotency.http import IdempotencyDep
from app.records.schemas import MemoryRecordOut
from app.records.service import RecordService
from app.state import AppState

router = APIRouter(prefix="/v1")
# Tags per route: the typed ingestion endpoints are a client module of their own.
CAPTURE: list[str | Enum] = ["capture"]
INGEST: list[str | Enum] = ["ingest"]
ERRORS = error_responses(401, 403, 404, 413, 422, 429)


def _service(state: AppState, session: Session) -> CaptureService:
    records = RecordService(session, state.policy, defer_writes=True)
    return CaptureService(session, records, interpret_llm=state.interprets_captures)


@router.post(
    "/capture",
    operation_id="captureMemory",
    tags=CAPTURE,
    status_code=status.HTTP_201_CREATED,
    response_model=CaptureResponse,
    responses=ERRORS,
    summary="Capture raw experience as typed memory",
)
def capture(
    body: CaptureRequest,
    state: StateDep,
    session: SessionDep,
    trust: WriteTrust,
    write: IdempotencyDep,
) -> CaptureResponse:
    return write.answer(201, _service(state, session).capture_response(body, trust))


@router.post(
    "/capture/batch",
    operation_id="captureBatch",
    tags=CAPTURE,
    response_model=CaptureBatchResponse,
    responses=ERRORS,
    summary="Capture up to 1,000 items in one request; results in order, one per item",
)
def capture_batch(
    body: CaptureBatchRequest,
    state: StateDep,
    session: SessionDep,
    trust: WriteTrust,
    write: IdempotencyDep,
) -> CaptureBatchResponse:
    return write.answer(200, batch.capture_batch(_service(state, session), body.items, trust))


@router.post(
    "/ingest/events",
    operation_id="ingestEvent",
    summary="Ingest an event as episodic memory",
    status_code=201,
    response_model=CaptureResponse,
    responses=ERRORS,
    tags=INGEST,
)
def ingest_event(
    body: EventIngest,
    state: StateDep,
    session: SessionDep,
    trust: WriteTrust,
    write: IdempotencyDep,
) -> CaptureResponse:
    return write.answer(
        201, _service(state, session).capture_response(ingest.from_event(body), trust)
    )


@router.post(
    "/ingest/observations",
    operation_id="ingestObservation",
    summary="Ingest an observation (a subject/predicate/object becomes a fact)",
    status_code=201,
    response_model=CaptureResponse,
    responses=ERRORS,
    tags=INGEST,
)
def ingest_observation(
    body: ObservationIngest,
    state: StateDep,
    session: SessionDep,
    trust: WriteTrust,
    write: IdempotencyDep,
) -> CaptureResponse:
    return write.answer(
        201, _service(state, session).capture_response(ingest.from_observation(body), trust)
    )


@router.post(
    "/ingest/tool-outputs",
    operation_id="ingestToolOutput",
    summary="Ingest a tool call and its result",
    status_code=201,
    response_model=CaptureResponse,
    responses=ERRORS,
    tags=INGEST,
)
def ingest_tool_output(
    body: ToolOutputIngest,
    state: StateDep,
    session: SessionDep,
    trust: WriteTrust,
    write: IdempotencyDep,
) -> CaptureResponse:
    return write.answer(
        201, _service(state, session).capture_response(ingest.from_tool_output(body), trust)
    )


@router.post(
    "/ingest/working-states",
    operation_id="ingestWorkingState",
    summary="Ingest an agent's working state",
    status_code=201,
    response_model=CaptureResponse,
    responses=ERRORS,
    tags=INGEST,
)
def ingest_working_state(
    body: WorkingStateIngest,
    state: StateDep,
    session: SessionDep,
    trust: WriteTrust,
    write: IdempotencyDep,
) -> CaptureResponse:
    request = ingest.from_working_state(body)
    return write.answer(201, _service(state, session).capture_response(request, trust))


@router.post(
    "/ingest/episodes",
    operation_id="ingestEpisode",
    summary="Ingest a whole episode: timeline, tool graph, outcome",
    status_code=201,
    response_model=CaptureResponse,
    responses=ERRORS,
    tags=INGEST,
)
def ingest_episode(
    body: EpisodeIngest,
    state: StateDep,
    session: SessionDep,
    trust: WriteTrust,
    write: IdempotencyDep,
) -> CaptureResponse:
    return write.answer(
        201, _service(state, session).capture_response(ingest.from_episode(body), trust)
    )


@router.post(
    "/ingest/outcomes",
    operation_id="ingestOutcome",
    response_model=MemoryRecordOut,
    responses=error_responses(401, 403, 404, 409, 422, 429),
    tags=INGEST,
    summary="Record the outcome of an episodic record",
)
def ingest_outcome(
    body: OutcomeIngest,
    state: StateDep,
    session: SessionDep,
    trust: WriteTrust,
    write: IdempotencyDep,
) -> MemoryRecordOut:
    return write.answer(200, _service(state, session).record_outcome(body, trust))
