"""Semantic, competence and plan-graph payloads (the original's field names, plus
today's where they differ)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from app.records.payloads.common import KIND_REQUIRED, mirror, optional, rename, synonym
from app.schema_base import JsonObject, JsonValue, ShortText, StrictModel, Text, Unit

ValidityMode = Literal["global", "conditional", "timeboxed"]


class Validity(StrictModel):
    """The original's validity: `mode` defaults to timeboxed when a window is given,
    else global."""

    mode: ValidityMode | None = None
    conditions: JsonObject = Field(default_factory=dict)
    start: datetime | None = None
    end: datetime | None = None

    @model_validator(mode="after")
    def _default_mode(self) -> Validity:
        if self.mode is None:
            self.mode = "timeboxed" if (self.start or self.end) else "global"
        start, end = self.start, self.end
        comparable = start and end and (start.tzinfo is None) == (end.tzinfo is None)
        if comparable and start and end and end < start:
            raise ValueError("validity.end is before validity.start")
        return self


class Evidence(StrictModel):
    """The original's ProvenanceRef (source_type, source_id, timestamp): `source_type` ↔
    `kind` and `source_id` ↔ `ref`; sent in the original's names, both are returned."""

    kind: ShortText = synonym("record", "source_type")
    ref: ShortText
    source_type: ShortText | None = optional()
    source_id: ShortText | None = optional()
    note: Text = ""
    hash: ShortText | None = optional()
    created_by: ShortText | None = optional()
    timestamp: datetime | None = optional()

    @model_validator(mode="before")
    @classmethod
    def _ref_synonyms(cls, data: Any) -> Any:
        if isinstance(data, dict) and ("source_type" in data or "source_id" in data):
            data = mirror(mirror(data, "kind", "source_type"), "ref", "source_id")
        return data


class Revision(StrictModel):
    version: int = Field(default=1, ge=1)
    supersedes: str | None = None
    superseded_by: str | None = None
    status: Literal["active", "contested", "retracted"] | None = optional()


class SemanticPayload(StrictModel):
    model_config = KIND_REQUIRED

    kind: Literal["semantic"] = "semantic"
    subject: ShortText
    predicate: ShortText
    object: JsonValue
    validity: Validity = Field(default_factory=Validity)
    evidence: list[Evidence] = Field(default_factory=list, max_length=10_000)
    revision_policy: ShortText | None = optional()
    revision: Revision = Field(default_factory=Revision)


class Trigger(StrictModel):
    signal: Text
    conditions: JsonObject = Field(default_factory=dict)


class RecipeStep(StrictModel):
    """The original's step is the step's text (`step: "run tests"`); today's is its
    ordinal with the text in `action`. Both are accepted; a text step fills `action`."""

    step: Annotated[int, Field(ge=0)] | Text
    action: Text = ""
    tool: ShortText | None = None
    args: JsonObject = Field(default_factory=dict)
    args_schema: JsonObject | None = optional()
    validation: Text | None = optional()

    @model_validator(mode="after")
    def _action_from_step(self) -> RecipeStep:
        if not self.action and isinstance(self.step, str):
            self.action = self.step
        return self


class Performance(StrictModel):
    success_count: int = Field(default=0, ge=0)
    failure_count: int = Field(default=0, ge=0)
    success_rate: Unit = 0.0
    avg_latency_ms: float = Field(default=0.0, ge=0)
    last_used_at: datetime | None = None


class CompetencePayload(StrictModel):
    model_config = KIND_REQUIRED

    kind: Literal["competence"] = "competence"
    skill_name: ShortText
    triggers: list[Trigger] = Field(default_factory=list, max_length=10_000)
    recipe: list[RecipeStep] = Field(default_factory=list, max_length=10_000)
    required_tools: list[ShortText] = Field(default_factory=list, max_length=10_000)
    failure_modes: list[Text] = Field(default_factory=list, max_length=10_000)
    fallbacks: list[Text] = Field(default_factory=list, max_length=10_000)
    performance: Performance = Field(default_factory=Performance)
    version: int | ShortText | None = optional()


class PlanNode(StrictModel):
    id: ShortText
    op: ShortText
    params: JsonObject = Field(default_factory=dict)
    guards: JsonObject | None = optional()


class PlanEdge(StrictModel):
    """`kind` is the original's data / control (an edge sent without one is a control
    dependency); any other label (the earlier default `then`) is kept as given."""

    from_: ShortText = Field(alias="from")
    to: ShortText
    kind: ShortText = "control"


class PlanMetrics(StrictModel):
    execution_count: int = Field(default=0, ge=0)
    success_count: int = Field(default=0, ge=0)
    failure_count: int = Field(default=0, ge=0)
    failure_rate: Unit = 0.0
    avg_latency_ms: float = Field(default=0.0, ge=0)
    last_executed_at: datetime | None = None


class PlanGraphPayload(StrictModel):
    """`version` is an integer (today) or the original's string; `constraints` a list of
    texts (today) or the original's object; `input_schema` / `output_schema` are
    accepted for the original's `inputs_schema` / `outputs_schema`."""

    model_config = KIND_REQUIRED

    kind: Literal["plan_graph"] = "plan_graph"
    plan_id: ShortText
    version: int | ShortText = 1
    intent: Text = ""
    constraints: list[Text] | JsonObject = Field(default_factory=list)
    inputs_schema: JsonObject | None = optional()
    outputs_schema: JsonObject | None = optional()
    nodes: list[PlanNode] = Field(default_factory=list, max_length=10_000)
    edges: list[PlanEdge] = Field(default_factory=list, max_length=10_000)
    metrics: PlanMetrics = Field(default_factory=PlanMetrics)

    @model_validator(mode="before")
    @classmethod
    def _schema_aliases(cls, data: Any) -> Any:
        data = rename(data, "inputs_schema", "input_schema")
        return rename(data, "outputs_schema", "output_schema")

    @model_validator(mode="after")
    def _version_positive(self) -> PlanGraphPayload:
        if isinstance(self.version, int) and self.version < 1:
            raise ValueError("version must be at least 1")
        if isinstance(self.constraints, list) and len(self.constraints) > 10_000:
            raise ValueError("constraints: more than 10000 items")
        return self
