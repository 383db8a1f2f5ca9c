"""The stored JSON of the payload shapes (app/records/payloads), as TypedDicts, for the
pure readers of a record's payload (search text, replies, the classifier's drafts); and
of the other JSON a record keeps: its provenance, and what a delete or prune audit entry
keeps of it (its tombstone).

A stored payload is what `payload_dict` wrote of a validated payload model; it is read
back without re-validation (a record written by an older version still reads), so every
key is optional here and a reader supplies its own default. The pydantic models stay the
one definition of what a payload may be; these only name the keys a reader uses and the
types they were written with (tests/test_payload_json.py keeps the two in step)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict, cast

# A record's payload as stored: JSON, read only.
StoredJson = Mapping[str, object]


class TimelineJson(TypedDict, total=False):
    t: str | None
    event_kind: str
    event_type: str
    ref: str | None
    summary: str
    data: dict[str, object]


class ToolCallJson(TypedDict, total=False):
    id: str
    tool: str
    args: dict[str, object]
    result: object
    timestamp: str | None
    status: str
    depends_on: list[str]


class EpisodicJson(TypedDict, total=False):
    kind: str
    summary: str
    timeline: list[TimelineJson]
    tool_graph: list[ToolCallJson]
    tool_graph_ref: str | None
    environment: dict[str, object]
    outcome: str | None
    artifacts: list[str]


class WorkingJson(TypedDict, total=False):
    kind: str
    thread_id: str
    state: str
    state_data: dict[str, object]
    active_constraints: list[dict[str, object]]
    constraints: list[str]
    next_actions: list[str]
    open_questions: list[str]
    context_summary: str


class EntityJson(TypedDict, total=False):
    kind: str
    canonical_name: str
    primary_type: str | None
    types: list[str]
    aliases: list[str]
    identifiers: dict[str, str]
    summary: str | None


class RevisionJson(TypedDict, total=False):
    version: int
    supersedes: str | None
    superseded_by: str | None
    status: str | None


class SemanticJson(TypedDict, total=False):
    kind: str
    subject: str
    predicate: str
    object: object
    revision: RevisionJson


class TriggerJson(TypedDict, total=False):
    signal: str
    conditions: dict[str, object]


class RecipeStepJson(TypedDict, total=False):
    step: int | str
    action: str
    tool: str | None


class PerformanceJson(TypedDict, total=False):
    success_count: int
    failure_count: int
    success_rate: float
    last_used_at: str | None


class CompetenceJson(TypedDict, total=False):
    kind: str
    skill_name: str
    triggers: list[TriggerJson]
    recipe: list[RecipeStepJson]
    required_tools: list[str]
    performance: PerformanceJson


class PlanNodeJson(TypedDict, total=False):
    id: str
    op: str


class PlanMetricsJson(TypedDict, total=False):
    execution_count: int
    success_count: int
    failure_count: int
    last_executed_at: str | None


class PlanGraphJson(TypedDict, total=False):
    kind: str
    plan_id: str
    intent: str
    nodes: list[PlanNodeJson]
    metrics: PlanMetricsJson


class ProvenanceSourceJson(TypedDict, total=False):
    kind: str
    ref: str | None
    hash: str | None
    created_by: str | None
    timestamp: str | None


class ProvenanceJson(TypedDict, total=False):
    sources: list[ProvenanceSourceJson]
    created_by: str | None
    sources_not_shown: int  # sources past the first ones embedded (RecordService)


class TombstoneJson(TypedDict, total=False):
    """The keys a deleted record's trail is trust-checked by (delete and prune entries)."""

    scope: str | None
    sensitivity: int


def provenance(stored: StoredJson) -> ProvenanceJson:
    return cast(ProvenanceJson, stored)


def tombstone(details: StoredJson) -> TombstoneJson:
    return cast(TombstoneJson, details)


def episodic(payload: StoredJson) -> EpisodicJson:
    return cast(EpisodicJson, payload)


def working(payload: StoredJson) -> WorkingJson:
    return cast(WorkingJson, payload)


def entity(payload: StoredJson) -> EntityJson:
    return cast(EntityJson, payload)


def semantic(payload: StoredJson) -> SemanticJson:
    return cast(SemanticJson, payload)


def competence(payload: StoredJson) -> CompetenceJson:
    return cast(CompetenceJson, payload)


def plan_graph(payload: StoredJson) -> PlanGraphJson:
    return cast(PlanGraphJson, payload)
