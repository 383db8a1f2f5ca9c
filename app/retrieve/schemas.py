"""Bodies of POST /v1/retrieve and /v1/retrieve/graph and what they answer."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from app.enums import MemoryType, Sensitivity, Status
from app.records.schemas import RecordView, RelationOut
from app.schema_base import (
    JsonObject,
    OutModel,
    Scope,
    ShortText,
    StrictModel,
    Tags,
    Text,
    Unit,
)


class TrustNarrowingIn(StrictModel):
    """Narrow this request's trust further (never widens; headers narrow too)."""

    max_sensitivity: Sensitivity | None = None
    scopes: list[Scope] | None = Field(default=None, max_length=100)


class RetrieveRequest(StrictModel):
    query: Text | None = Field(
        default=None,
        description="Task descriptor or question. Without one, records come by salience.",
    )
    trust: TrustNarrowingIn | None = None
    types: list[MemoryType] = Field(default_factory=list, max_length=6)
    tags: Tags = Field(default_factory=list, description="Records carrying ALL these tags.")
    scopes: list[Scope] = Field(default_factory=list, max_length=100)
    statuses: list[Status] | None = Field(
        default=None, description="Default: active and contested (no retracted, superseded)."
    )
    min_salience: Unit | None = Field(default=None, description="On current salience.")
    limit: int = Field(default=20, ge=1, le=500)
    group_by_layer: bool = Field(
        default=False,
        description="Order results by layer (working, entity, semantic, competence, "
        "plan_graph, episodic), then by score.",
    )
    expand_context: bool = Field(
        default=True,
        description="Let strong episodic hits lend a share of their score to the records "
        "captured just before and after them in the same scope, and to the candidates of "
        "their sitting (same scope, event times within 30 minutes).",
    )
    valid_at: datetime | None = Field(
        default=None,
        description="The moment semantic facts must hold at: a fact whose validity window "
        "(start inclusive, end exclusive) leaves it out is not returned. Default: now.",
    )
    context: JsonObject | None = Field(
        default=None,
        description="The situation at hand, as condition values (environment keys, active "
        "constraints) and `tools`, the tool names at hand: a conditional fact with a "
        "condition this contradicts (same key, other value) is not returned, and the "
        "selector matches it against competence triggers and plan graph constraints.",
    )

    model_config = {
        "json_schema_extra": {
            "examples": [
                {
                    "query": "deploy the billing service to staging",
                    "types": ["competence", "episodic"],
                    "scopes": ["team-a"],
                    "limit": 10,
                }
            ]
        }
    }


class ScoreComponents(OutModel):
    lexical: float | None = Field(description="BM25, scaled so the best match is 1.")
    vector: float | None = Field(description="Cosine similarity, min-max scaled; null if none.")
    entity: float = Field(
        description="1 when the query names this entity record; 0.3 when the record mentions "
        "an entity the query names (its relevance is raised by 30 %)."
    )
    context: float = Field(
        description="Share received from a neighbouring strong hit and from the best "
        "match of the record's sitting."
    )
    relevance: float | None = Field(description="Fused relevance in [0, 1]; null without query.")
    salience: float = Field(description="Current salience.")


class RetrievedItem(OutModel):
    record: RecordView
    score: float | None = Field(description="Null for redacted entries.")
    components: ScoreComponents | None = Field(description="Null for redacted entries.")


class SelectionCandidate(OutModel):
    record_id: str
    type: MemoryType
    applicability: float
    success_rate: float
    recency: float
    score: float
    confidence: float


class Selection(OutModel):
    """The selector's pick among competence and plan graph candidates."""

    selected_id: str | None
    confidence: float
    needs_more: bool = Field(description="Confidence below the threshold: gather more first.")
    threshold: float
    candidates: list[SelectionCandidate]


class RetrieveResponse(OutModel):
    items: list[RetrievedItem]
    selection: Selection | None = None
    signals: list[str] = Field(
        description="Signals that ranked this answer: lexical, vector, entity, context, salience."
    )


class GraphRequest(RetrieveRequest):
    limit: int = Field(default=10, ge=1, le=500, description="How many ranked roots.")
    max_hops: int = Field(default=1, ge=0, le=4)
    node_limit: int = Field(default=25, ge=1, le=1000, description="Roots included.")
    edge_limit: int = Field(default=100, ge=0, le=5000)
    predicates: list[ShortText] | None = Field(
        default=None, max_length=100, description="Follow only these edge predicates."
    )


class GraphNode(OutModel):
    record: RecordView
    depth: int = Field(description="0 for roots, hops from the nearest root otherwise.")
    expanded: bool = Field(description="Whether its edges were followed (never if redacted).")


class GraphResponse(OutModel):
    roots: list[RetrievedItem]
    nodes: list[GraphNode]
    edges: list[RelationOut]
    truncated: bool = Field(description="A node or edge limit cut the neighbourhood short.")
    signals: list[str]
