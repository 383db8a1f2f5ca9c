"""Typed ingestion: each /v1/ingest/* body becomes the CaptureRequest it stands for, so
every kind of experience goes through the one capture path (classify, interpret, link)."""

from __future__ import annotations

from app.capture.schemas import (
    CaptureCommon,
    CaptureRequest,
    EpisodeIngest,
    EventIngest,
    ObservationIngest,
    ToolOutputIngest,
    WorkingStateIngest,
)
from app.enums import SourceKind

WORKING_FIELDS = {
    "thread_id",
    "state",
    "state_data",
    "active_constraints",
    "constraints",
    "next_actions",
    "open_questions",
    "context_summary",
}
EPISODE_FIELDS = {
    "timeline",
    "tool_graph",
    "tool_graph_ref",
    "environment",
    "outcome",
    "artifacts",
    "entities",
}


def _request(
    body: CaptureCommon, kind: SourceKind, content: dict[str, object], summary: str | None
) -> CaptureRequest:
    common = {name: getattr(body, name) for name in CaptureCommon.model_fields}
    return CaptureRequest(**common, source_kind=kind, content=content, summary=summary)


def from_event(body: EventIngest) -> CaptureRequest:
    content = {
        **body.data,
        "event_kind": body.event_kind,
        "event_type": body.event_type,
        "entities": body.entities,
    }
    if body.ref is not None:
        content["ref"] = body.ref
    return _request(body, SourceKind.event, content, body.summary)


def from_observation(body: ObservationIngest) -> CaptureRequest:
    content: dict[str, object] = {**body.data, "entities": body.entities}
    if body.subject is not None:
        content.update(subject=body.subject, predicate=body.predicate, object=body.object)
    return _request(body, SourceKind.observation, content, body.summary)


def from_tool_output(body: ToolOutputIngest) -> CaptureRequest:
    content = {
        "tool": body.tool,
        "args": body.args,
        "result": body.result,
        "status": body.status,
        "depends_on": body.depends_on,
    }
    summary = body.summary or f"{body.tool} returned {body.status}"
    return _request(body, SourceKind.tool_output, content, summary)


def from_working_state(body: WorkingStateIngest) -> CaptureRequest:
    content = body.model_dump(mode="json", include=WORKING_FIELDS, exclude_none=True)
    return _request(body, SourceKind.working_state, content, body.context_summary or None)


def from_episode(body: EpisodeIngest) -> CaptureRequest:
    content = body.model_dump(mode="json", by_alias=True, include=EPISODE_FIELDS, exclude_none=True)
    return _request(body, SourceKind.episode, content, body.summary)
