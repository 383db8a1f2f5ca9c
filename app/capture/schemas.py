"""CaptureMemory, batch capture and the typed ingestion bodies."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import AliasChoices, Field, model_validator

from app.enums import MemoryType, Outcome, Sensitivity, SourceKind, TaskState
from app.errors import Problem
from app.records.payloads import Constraint, TimelineEntry, ToolCall
from app.records.payloads.common import mirror, rename, synonym
from app.records.schemas import MemoryRecordOut, RelationOut
from app.schema_base import (
    JsonObject,
    JsonValue,
    OutModel,
    Scope,
    ShortText,
    StrictModel,
    Tags,
    Text,
)


class CaptureCommon(StrictModel):
    source: ShortText = Field(description="Who or what produced the experience (agent, tool).")
    scope: Scope | None = None
    tags: Tags = Field(default_factory=list)
    sensitivity: Sensitivity | None = None
    timestamp: datetime | None = None
    reason_to_remember: Text | None = None
    context: JsonObject = Field(default_factory=dict)


class CaptureRequest(CaptureCommon):
    """CaptureMemory: raw experience in; typed records, entities and edges out.

    `content` may carry `subject`/`predicate`/`object` (a derived semantic fact),
    `entities` (names, or objects with `name`, `types`, `aliases`), and for
    `working_state` the working-memory fields; an `episode` carries `timeline`,
    `tool_graph`, `outcome`, `environment`, `artifacts`."""

    source_kind: SourceKind
    content: JsonValue = None
    proposed_type: MemoryType | None = None
    summary: Text | None = None

    model_config = {
        "json_schema_extra": {
            "examples": [
                {
                    "source": "agent-7",
                    "source_kind": "observation",
                    "content": {"subject": "Alice", "predicate": "works_at", "object": "Acme"},
                    "summary": "Alice works at Acme",
                    "scope": "team-a",
                    "tags": ["hr"],
                }
            ]
        }
    }


class CaptureResponse(OutModel):
    primary_record: MemoryRecordOut
    created_records: list[MemoryRecordOut]
    edges: list[RelationOut]


MAX_BATCH = 1000


class CaptureBatchRequest(StrictModel):
    """Up to 1,000 captures, each exactly as POST /v1/capture takes it. Items are
    validated one by one: a bad item gets its own problem and does not spoil the others."""

    items: list[dict[str, object]] = Field(
        min_length=1,
        max_length=MAX_BATCH,
        json_schema_extra={"items": {"$ref": "#/components/schemas/CaptureRequest"}},
    )


class CaptureBatchItem(OutModel):
    """One item's outcome, in request order: its records (status 201), or its problem."""

    index: int
    status: int = Field(description="201, or the status the item alone would have answered.")
    result: CaptureResponse | None = None
    problem: Problem | None = None


class CaptureBatchResponse(OutModel):
    results: list[CaptureBatchItem]
    created: int = Field(description="Items captured.")
    failed: int = Field(description="Items refused; nothing of them was written.")


class EventIngest(CaptureCommon):
    """The original's event: `event_kind` (alias `event_type`), `ref`, `summary`."""

    event_kind: ShortText = synonym("event", "event_type")
    event_type: ShortText = synonym("event", "event_kind")
    ref: Text | None = None
    summary: Text
    data: JsonObject = Field(default_factory=dict)
    entities: list[JsonValue] = Field(default_factory=list, max_length=1000)

    @model_validator(mode="before")
    @classmethod
    def _kind_synonyms(cls, data: Any) -> Any:
        return mirror(data, "event_kind", "event_type")


class ObservationIngest(CaptureCommon):
    summary: Text | None = None
    subject: ShortText | None = None
    predicate: ShortText | None = None
    object: JsonValue = None
    data: JsonObject = Field(default_factory=dict)
    entities: list[JsonValue] = Field(default_factory=list, max_length=1000)


class ToolOutputIngest(CaptureCommon):
    """The original's tool output (`tool_name` is accepted for `tool`), with the ids of
    the tool calls it depends on."""

    tool: ShortText
    args: JsonObject = Field(default_factory=dict)
    result: JsonValue = None
    status: str = Field(default="ok", pattern="^(ok|error|unknown)$")
    depends_on: list[ShortText] = Field(default_factory=list, max_length=10_000)
    summary: Text | None = None

    @model_validator(mode="before")
    @classmethod
    def _tool_name(cls, data: Any) -> Any:
        return rename(data, "tool", "tool_name")


class WorkingStateIngest(CaptureCommon):
    """`state` is the original's TaskState, or today's free-form object (stored as
    `state_data`); `active_constraints` are the original's constraint objects."""

    thread_id: ShortText
    state: TaskState | JsonObject | None = None
    state_data: JsonObject | None = None
    active_constraints: list[Constraint] = Field(default_factory=list, max_length=10_000)
    constraints: list[Text | Constraint] = Field(default_factory=list, max_length=10_000)
    next_actions: list[Text] = Field(default_factory=list, max_length=10_000)
    open_questions: list[Text] = Field(default_factory=list, max_length=10_000)
    context_summary: Text = ""


class EpisodeIngest(CaptureCommon):
    summary: Text
    timeline: list[TimelineEntry] = Field(default_factory=list, max_length=10_000)
    tool_graph: list[ToolCall] = Field(default_factory=list, max_length=10_000)
    tool_graph_ref: ShortText | None = None
    environment: JsonObject = Field(default_factory=dict)
    outcome: Outcome | None = None
    artifacts: list[Text] = Field(default_factory=list, max_length=10_000)
    entities: list[JsonValue] = Field(default_factory=list, max_length=1000)


class OutcomeIngest(StrictModel):
    """The original's outcome: `target_record_id` and `outcome_status` are accepted for
    `record_id` and `outcome`; `source` (default: the caller) becomes a provenance
    source of the record."""

    record_id: ShortText = Field(validation_alias=AliasChoices("record_id", "target_record_id"))
    outcome: Outcome = Field(validation_alias=AliasChoices("outcome", "outcome_status"))
    source: ShortText | None = None
    timestamp: datetime | None = None
    rationale: Text | None = None
    details: JsonObject = Field(default_factory=dict)
