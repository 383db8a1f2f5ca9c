"""POST /v1/capture and the typed /v1/ingest/* endpoints (registered from one table,
`INGESTS`: each maps its body to what CaptureService answers)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from fastapi import APIRouter, Request, status
from pydantic import BaseModel
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
from app.errors import error_responses
from app.idempotency.http import KeyedWriteDep, writing_once
from app.records.schemas import MemoryRecordOut
from app.records.service import RecordService
from app.state import AppState
from app.trust import TrustContext

router = APIRouter(prefix="/v1")
# Tags per route: the typed ingestion endpoints are a client module of their own.
CAPTURE: list[str | Enum] = ["capture"]
INGEST: list[str | Enum] = ["ingest"]
ERRORS = error_responses(401, 403, 404, 413, 422, 429)


def _service(state: AppState, session: Session) -> CaptureService:
    records = RecordService(session, state.policy, defer_writes=True, settles_facts=True)
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
async def capture(
    body: CaptureRequest,
    request: Request,
    write: KeyedWriteDep,
) -> CaptureResponse:
    state, trust, key = write.state, write.trust, write.key
    return await writing_once(
        state, request, key, 201, lambda s: _service(state, s).capture_response(body, trust)
    )


@router.post(
    "/capture/batch",
    operation_id="captureBatch",
    tags=CAPTURE,
    response_model=CaptureBatchResponse,
    responses=ERRORS,
    summary="Capture up to 1,000 items in one request; results in order, one per item",
)
async def capture_batch(
    body: CaptureBatchRequest,
    request: Request,
    write: KeyedWriteDep,
) -> CaptureBatchResponse:
    state, trust, key = write.state, write.trust, write.key
    return await writing_once(
        state,
        request,
        key,
        200,
        lambda s: batch.capture_batch(_service(state, s), body.items, trust),
    )


Answer = Callable[[CaptureService, Any, TrustContext], BaseModel]


def _captured(to_request: Callable[[Any], CaptureRequest]) -> Answer:
    """The answer of an ingest body that stands for a capture (ingest.py maps it)."""

    def answer(service: CaptureService, body: Any, trust: TrustContext) -> BaseModel:
        return service.capture_response(to_request(body), trust)

    return answer


@dataclass(frozen=True)
class Ingest:
    """One typed /v1/ingest/* endpoint: its route, its body and what the service answers."""

    name: str
    path: str
    operation_id: str
    summary: str
    body: type[BaseModel]
    answer: Answer
    status_code: int = status.HTTP_201_CREATED
    response_model: type[BaseModel] = CaptureResponse
    responses: dict[int | str, dict[str, object]] = field(default_factory=lambda: ERRORS)


INGESTS = (
    Ingest(
        "ingest_event",
        "/ingest/events",
        "ingestEvent",
        "Ingest an event as episodic memory",
        EventIngest,
        _captured(ingest.from_event),
    ),
    Ingest(
        "ingest_observation",
        "/ingest/observations",
        "ingestObservation",
        "Ingest an observation (a subject/predicate/object becomes a fact)",
        ObservationIngest,
        _captured(ingest.from_observation),
    ),
    Ingest(
        "ingest_tool_output",
        "/ingest/tool-outputs",
        "ingestToolOutput",
        "Ingest a tool call and its result",
        ToolOutputIngest,
        _captured(ingest.from_tool_output),
    ),
    Ingest(
        "ingest_working_state",
        "/ingest/working-states",
        "ingestWorkingState",
        "Ingest an agent's working state",
        WorkingStateIngest,
        _captured(ingest.from_working_state),
    ),
    Ingest(
        "ingest_episode",
        "/ingest/episodes",
        "ingestEpisode",
        "Ingest a whole episode: timeline, tool graph, outcome",
        EpisodeIngest,
        _captured(ingest.from_episode),
    ),
    Ingest(
        "ingest_outcome",
        "/ingest/outcomes",
        "ingestOutcome",
        "Record the outcome of an episodic record",
        OutcomeIngest,
        CaptureService.record_outcome,
        status_code=status.HTTP_200_OK,
        response_model=MemoryRecordOut,
        responses=error_responses(401, 403, 404, 409, 422, 429),
    ),
)


def _endpoint(spec: Ingest) -> Callable[..., Any]:
    async def endpoint(
        body: BaseModel,
        request: Request,
        write: KeyedWriteDep,
    ) -> Any:
        state, trust, key = write.state, write.trust, write.key
        return await writing_once(
            state,
            request,
            key,
            spec.status_code,
            lambda s: spec.answer(_service(state, s), body, trust),
        )

    # FastAPI reads the body's model from the annotation: this endpoint's own.
    endpoint.__annotations__["body"] = spec.body
    endpoint.__name__ = endpoint.__qualname__ = spec.name
    return endpoint


for _spec in INGESTS:
    router.add_api_route(
        _spec.path,
        _endpoint(_spec),
        methods=["POST"],
        name=_spec.name,
        operation_id=_spec.operation_id,
        summary=_spec.summary,
        status_code=_spec.status_code,
        response_model=_spec.response_model,
        responses=_spec.responses,
        tags=INGEST,
    )
