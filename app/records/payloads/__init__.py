"""The six payload shapes, discriminated on `kind`.

They follow the original Membrane's record types field for field; where today's field
names differ, both are accepted (docs/choices.md, "Payload shapes")."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter, WithJsonSchema, model_validator

from app.enums import Outcome, TaskState
from app.json_walk import JsonDocument
from app.records.payloads.common import KIND_REQUIRED, mirror, optional, synonym
from app.records.payloads.knowledge import (
    CompetencePayload,
    Evidence,
    Performance,
    PlanEdge,
    PlanGraphPayload,
    PlanMetrics,
    PlanNode,
    RecipeStep,
    Revision,
    SemanticPayload,
    Trigger,
    Validity,
)
from app.schema_base import JsonObject, JsonValue, ShortText, StrictModel, Text

__all__ = [
    "CompetencePayload",
    "Constraint",
    "EntityPayload",
    "EpisodicPayload",
    "Evidence",
    "Payload",
    "Performance",
    "PlanEdge",
    "PlanGraphPayload",
    "PlanMetrics",
    "PlanNode",
    "RecipeStep",
    "Revision",
    "SemanticPayload",
    "StoredPayload",
    "TimelineEntry",
    "ToolCall",
    "Trigger",
    "Validity",
    "WorkingPayload",
    "payload_dict",
]


class TimelineEntry(StrictModel):
    """The original's TimelineEvent (t, event_kind, ref, summary). `event_type` is
    today's name for `event_kind`: either is accepted and both are returned. `data`
    (structured detail) is Membrane's own, next to the original's `ref`."""

    t: datetime | None = None
    event_kind: ShortText = synonym("event", "event_type")
    event_type: ShortText = synonym("event", "event_kind")
    ref: Text | None = optional()
    summary: Text = ""
    data: JsonObject = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _kind_synonyms(cls, data: Any) -> Any:
        return mirror(data, "event_kind", "event_type")


class ToolCall(StrictModel):
    """The original's ToolNode (id, tool, args, result, timestamp, depends_on) + status."""

    id: ShortText
    tool: ShortText
    args: JsonObject = Field(default_factory=dict)
    result: JsonValue = None
    timestamp: datetime | None = optional()
    status: Literal["ok", "error", "unknown"] = "ok"
    depends_on: list[ShortText] = Field(default_factory=list, max_length=10_000)


class EpisodicPayload(StrictModel):
    model_config = KIND_REQUIRED

    kind: Literal["episodic"] = "episodic"
    summary: Text = ""
    timeline: list[TimelineEntry] = Field(default_factory=list, max_length=10_000)
    tool_graph: list[ToolCall] = Field(default_factory=list, max_length=10_000)
    tool_graph_ref: ShortText | None = optional()
    environment: JsonObject = Field(default_factory=dict)
    outcome: Outcome | None = None
    artifacts: list[Text] = Field(default_factory=list, max_length=10_000)


class Constraint(StrictModel):
    """The original's Constraint."""

    type: ShortText
    key: ShortText
    value: JsonValue = None
    required: bool = False


class WorkingPayload(StrictModel):
    """`state` is the original's TaskState. Today's free-form state object is kept in
    `state_data`; an object sent as `state` is moved there (state then `executing`).
    `constraints` are free texts; objects sent there go to `active_constraints`."""

    model_config = KIND_REQUIRED

    kind: Literal["working"] = "working"
    thread_id: ShortText
    state: TaskState = TaskState.executing
    state_data: JsonObject = Field(default_factory=dict)
    active_constraints: list[Constraint] = Field(default_factory=list, max_length=10_000)
    constraints: list[Text] = Field(default_factory=list, max_length=10_000)
    next_actions: list[Text] = Field(default_factory=list, max_length=10_000)
    open_questions: list[Text] = Field(default_factory=list, max_length=10_000)
    context_summary: Text = ""

    @model_validator(mode="before")
    @classmethod
    def _today_shapes(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if isinstance(data.get("state"), dict):
            if data.get("state_data"):
                raise ValueError("give the state object as `state` or `state_data`, not both")
            data["state_data"] = data.pop("state")
        if data.get("state") is None:
            data.pop("state", None)
        constraints = data.get("constraints")
        if isinstance(constraints, list) and any(isinstance(c, dict) for c in constraints):
            data["constraints"] = [c for c in constraints if not isinstance(c, dict)]
            objects = [c for c in constraints if isinstance(c, dict)]
            data["active_constraints"] = [*(data.get("active_constraints") or []), *objects]
        return data


class EntityPayload(StrictModel):
    """`primary_type` and `summary` are the original's; a primary type missing from
    `types` is put first in it."""

    model_config = KIND_REQUIRED

    kind: Literal["entity"] = "entity"
    canonical_name: ShortText
    primary_type: ShortText | None = optional()
    types: list[ShortText] = Field(default_factory=list, max_length=1000)
    aliases: list[ShortText] = Field(default_factory=list, max_length=1000)
    identifiers: dict[str, Text] = Field(default_factory=dict)
    summary: Text | None = optional()

    @model_validator(mode="after")
    def _primary_in_types(self) -> EntityPayload:
        if self.primary_type and self.primary_type not in self.types:
            self.types = [self.primary_type, *self.types]
        return self


Payload = Annotated[
    EpisodicPayload
    | WorkingPayload
    | EntityPayload
    | SemanticPayload
    | CompetencePayload
    | PlanGraphPayload,
    Field(discriminator="kind"),
]


def _union_schema() -> JsonDocument:
    """The JSON schema of `Payload` with its variants referenced as OpenAPI components
    (they are there: RecordCreate's payload uses them)."""
    schema = TypeAdapter(Payload).json_schema(ref_template="#/components/schemas/{model}")
    schema.pop("$defs", None)
    schema["title"] = "Payload"
    schema["description"] = "The payload of the record's type, selected by its `kind`."
    return schema


# A stored payload as it is returned: read back as JSON (never re-validated, so a record
# written by an older version still reads), documented as the discriminated union.
StoredPayload = Annotated[dict[str, object], WithJsonSchema(_union_schema())]


def payload_dict(payload: BaseModel) -> dict[str, object]:
    """JSON-ready dict of a payload model (aliases, ISO datetimes)."""
    return payload.model_dump(mode="json", by_alias=True)
