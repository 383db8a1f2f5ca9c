"""POST /v1/capture and the typed /v1/ingest/* endpoints."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, status
from sqlalchemy.orm import Session

from app import clock
from app.capture.service import CaptureResult, CaptureService
from app.deps import SessionDep, StateDep, WriteTrust
from app.errors import error_responses
from app.records.service import RecordService
from app.records.views import full_view, relation_out
from app.capture.schemas import (
    CaptureRequest,
    CaptureResponse,
    EpisodeIngest,
    EventIngest,
    ObservationIngest,
    OutcomeIngest,
    ToolOutputIngest,
    WorkingStateIngest,
    common_fields,
)
from app.enums import SourceKind
from app.records.schemas import MemoryRecordOut
from app.security import TrustContext

router = APIRouter(prefix="/v1", tags=["capture"])
ERRORS = error_responses(401, 403, 404, 413, 422, 429)


def _capture(
    state: StateDep, session: Session, req: CaptureRequest, trust: TrustContext
) -> CaptureResponse:
    service = CaptureService(session, RecordService(session, state.policy))
    result = service.capture(req, trust)
    session.flush()
    return _response(result)


def _response(result: CaptureResult) -> CaptureResponse:
    now = clock.now()
    return CaptureResponse(
        primary_record=full_view(
            result.primary, now, [e for e in result.edges if e.source_id == result.primary.id]
        ),
        created_records=[
            full_view(r, now, [e for e in result.edges if e.source_id == r.id])
            for r in result.created
        ],
        edges=[relation_out(e) for e in result.edges],
    )


@router.post(
    "/capture",
    operation_id="captureMemory",
    status_code=status.HTTP_201_CREATED,
    response_model=CaptureResponse,
    responses=ERRORS,
    summary="Capture raw experience as typed memory",
)
def capture(
    body: CaptureRequest, state: StateDep, session: SessionDep, trust: WriteTrust
) -> CaptureResponse:
    return _capture(state, session, body, trust)


def _ingest(
    state: StateDep,
    session: Session,
    trust: TrustContext,
    kind: SourceKind,
    common: dict[str, Any],
    content: dict[str, Any],
    summary: str | None,
) -> CaptureResponse:
    req = CaptureRequest(**common, source_kind=kind, content=content, summary=summary)
    return _capture(state, session, req, trust)


@router.post(
    "/ingest/events",
    operation_id="ingestEvent",
    summary="Ingest an event as episodic memory",
    status_code=201,
    response_model=CaptureResponse,
    responses=ERRORS,
    tags=["ingest"],
)
def ingest_event(
    body: EventIngest, state: StateDep, session: SessionDep, trust: WriteTrust
) -> CaptureResponse:
    content = {"event_type": body.event_type, **body.data, "entities": body.entities}
    return _ingest(
        state, session, trust, SourceKind.event, common_fields(body), content, body.summary
    )


@router.post(
    "/ingest/observations",
    operation_id="ingestObservation",
    summary="Ingest an observation (a subject/predicate/object becomes a fact)",
    status_code=201,
    response_model=CaptureResponse,
    responses=ERRORS,
    tags=["ingest"],
)
def ingest_observation(
    body: ObservationIngest, state: StateDep, session: SessionDep, trust: WriteTrust
) -> CaptureResponse:
    content: dict[str, Any] = {**body.data, "entities": body.entities}
    if body.subject is not None:
        content.update(subject=body.subject, predicate=body.predicate, object=body.object)
    return _ingest(
        state, session, trust, SourceKind.observation, common_fields(body), content, body.summary
    )


@router.post(
    "/ingest/tool-outputs",
    operation_id="ingestToolOutput",
    summary="Ingest a tool call and its result",
    status_code=201,
    response_model=CaptureResponse,
    responses=ERRORS,
    tags=["ingest"],
)
def ingest_tool_output(
    body: ToolOutputIngest, state: StateDep, session: SessionDep, trust: WriteTrust
) -> CaptureResponse:
    content = {"tool": body.tool, "args": body.args, "result": body.result, "status": body.status}
    summary = body.summary or f"{body.tool} returned {body.status}"
    return _ingest(
        state, session, trust, SourceKind.tool_output, common_fields(body), content, summary
    )


@router.post(
    "/ingest/working-states",
    operation_id="ingestWorkingState",
    summary="Ingest an agent's working state",
    status_code=201,
    response_model=CaptureResponse,
    responses=ERRORS,
    tags=["ingest"],
)
def ingest_working_state(
    body: WorkingStateIngest, state: StateDep, session: SessionDep, trust: WriteTrust
) -> CaptureResponse:
    content = body.model_dump(
        mode="json",
        include={
            "thread_id",
            "state",
            "constraints",
            "next_actions",
            "open_questions",
            "context_summary",
        },
    )
    return _ingest(
        state,
        session,
        trust,
        SourceKind.working_state,
        common_fields(body),
        content,
        body.context_summary or None,
    )


@router.post(
    "/ingest/episodes",
    operation_id="ingestEpisode",
    summary="Ingest a whole episode: timeline, tool graph, outcome",
    status_code=201,
    response_model=CaptureResponse,
    responses=ERRORS,
    tags=["ingest"],
)
def ingest_episode(
    body: EpisodeIngest, state: StateDep, session: SessionDep, trust: WriteTrust
) -> CaptureResponse:
    content = body.model_dump(
        mode="json",
        by_alias=True,
        include={"timeline", "tool_graph", "environment", "outcome", "artifacts", "entities"},
        exclude_none=True,
    )
    return _ingest(
        state, session, trust, SourceKind.episode, common_fields(body), content, body.summary
    )


@router.post(
    "/ingest/outcomes",
    operation_id="ingestOutcome",
    response_model=MemoryRecordOut,
    responses=error_responses(401, 403, 404, 409, 422, 429),
    tags=["ingest"],
    summary="Record the outcome of an episodic record",
)
def ingest_outcome(
    body: OutcomeIngest, state: StateDep, session: SessionDep, trust: WriteTrust
) -> MemoryRecordOut:
    records = RecordService(session, state.policy)
    row = CaptureService(session, records).record_outcome(body, trust)
    return records.view(row)
