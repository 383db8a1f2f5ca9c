"""The six payload shapes, discriminated on `kind`."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from app.enums import Outcome
from app.schema_base import JsonObject, JsonValue, ShortText, StrictModel, Text, Unit


class TimelineEntry(StrictModel):
    t: datetime | None = None
    event_type: ShortText = "event"
    summary: Text = ""
    data: JsonObject = Field(default_factory=dict)


class ToolCall(StrictModel):
    id: ShortText
    tool: ShortText
    args: JsonObject = Field(default_factory=dict)
    result: JsonValue = None
    status: Literal["ok", "error", "unknown"] = "ok"
    depends_on: list[ShortText] = Field(default_factory=list, max_length=10_000)


class EpisodicPayload(StrictModel):
    kind: Literal["episodic"] = "episodic"
    summary: Text = ""
    timeline: list[TimelineEntry] = Field(default_factory=list, max_length=10_000)
    tool_graph: list[ToolCall] = Field(default_factory=list, max_length=10_000)
    environment: JsonObject = Field(default_factory=dict)
    outcome: Outcome | None = None
    artifacts: list[Text] = Field(default_factory=list, max_length=10_000)


class WorkingPayload(StrictModel):
    kind: Literal["working"] = "working"
    thread_id: ShortText
    state: JsonObject = Field(default_factory=dict)
    constraints: list[Text] = Field(default_factory=list, max_length=10_000)
    next_actions: list[Text] = Field(default_factory=list, max_length=10_000)
    open_questions: list[Text] = Field(default_factory=list, max_length=10_000)
    context_summary: Text = ""


class EntityPayload(StrictModel):
    kind: Literal["entity"] = "entity"
    canonical_name: ShortText
    types: list[ShortText] = Field(default_factory=list, max_length=1000)
    aliases: list[ShortText] = Field(default_factory=list, max_length=1000)
    identifiers: dict[str, Text] = Field(default_factory=dict)


class Validity(StrictModel):
    start: datetime | None = None
    end: datetime | None = None


class Evidence(StrictModel):
    kind: ShortText = "record"
    ref: ShortText
    note: Text = ""


class Revision(StrictModel):
    version: int = Field(default=1, ge=1)
    supersedes: str | None = None
    superseded_by: str | None = None


class SemanticPayload(StrictModel):
    kind: Literal["semantic"] = "semantic"
    subject: ShortText
    predicate: ShortText
    object: JsonValue
    validity: Validity = Field(default_factory=Validity)
    evidence: list[Evidence] = Field(default_factory=list, max_length=10_000)
    revision: Revision = Field(default_factory=Revision)


class Trigger(StrictModel):
    signal: Text
    conditions: JsonObject = Field(default_factory=dict)


class RecipeStep(StrictModel):
    step: int = Field(ge=0)
    action: Text
    tool: ShortText | None = None
    args: JsonObject = Field(default_factory=dict)


class Performance(StrictModel):
    success_count: int = Field(default=0, ge=0)
    failure_count: int = Field(default=0, ge=0)
    success_rate: Unit = 0.0
    avg_latency_ms: float = Field(default=0.0, ge=0)
    last_used_at: datetime | None = None


class CompetencePayload(StrictModel):
    kind: Literal["competence"] = "competence"
    skill_name: ShortText
    triggers: list[Trigger] = Field(default_factory=list, max_length=10_000)
    recipe: list[RecipeStep] = Field(default_factory=list, max_length=10_000)
    required_tools: list[ShortText] = Field(default_factory=list, max_length=10_000)
    failure_modes: list[Text] = Field(default_factory=list, max_length=10_000)
    fallbacks: list[Text] = Field(default_factory=list, max_length=10_000)
    performance: Performance = Field(default_factory=Performance)


class PlanNode(StrictModel):
    id: ShortText
    op: ShortText
    params: JsonObject = Field(default_factory=dict)


class PlanEdge(StrictModel):
    from_: ShortText = Field(alias="from")
    to: ShortText
    kind: ShortText = "then"


class PlanMetrics(StrictModel):
    execution_count: int = Field(default=0, ge=0)
    success_count: int = Field(default=0, ge=0)
    failure_count: int = Field(default=0, ge=0)
    avg_latency_ms: float = Field(default=0.0, ge=0)
    last_executed_at: datetime | None = None


class PlanGraphPayload(StrictModel):
    kind: Literal["plan_graph"] = "plan_graph"
    plan_id: ShortText
    version: int = Field(default=1, ge=1)
    intent: Text
    constraints: list[Text] = Field(default_factory=list, max_length=10_000)
    nodes: list[PlanNode] = Field(default_factory=list, max_length=10_000)
    edges: list[PlanEdge] = Field(default_factory=list, max_length=10_000)
    metrics: PlanMetrics = Field(default_factory=PlanMetrics)


Payload = Annotated[
    EpisodicPayload
    | WorkingPayload
    | EntityPayload
    | SemanticPayload
    | CompetencePayload
    | PlanGraphPayload,
    Field(discriminator="kind"),
]


def payload_dict(payload: Any) -> dict[str, Any]:
    """JSON-ready dict of a payload model (aliases, ISO datetimes)."""
    result: dict[str, Any] = payload.model_dump(mode="json", by_alias=True)
    return result
