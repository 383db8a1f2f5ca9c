"""The lines of an export file (NDJSON, one JSON object per line, `kind` first) and the
answer of an import.

Timestamps inside records, edges, provenance and audit entries are UNIX epoch seconds,
exactly as stored (JSON numbers round-trip a double exactly), so a restored store decays,
sorts and pages exactly as the original; only the header's `exported_at` is ISO-8601.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from app.enums import DecayCurve, DeletionPolicy, MemoryType, Sensitivity, Status
from app.schema_base import (
    MAX_STRING,
    JsonObject,
    OutModel,
    Scope,
    StrictModel,
    Tags,
    Text,
    Unit,
)

FORMAT = "membrane-export"
FORMAT_VERSION = 1
MEDIA_TYPE = "application/x-ndjson"
MAX_VECTOR = 16_384

# Numbers are bounded by what both stores and the clock hold: epochs up to the end of
# year 9999 (Python's datetime), row ids within a signed 64-bit integer (PostgreSQL
# bigint), vector values within float32 without overflow.
MAX_EPOCH = 253_402_300_799.0
MAX_ROW_ID = 2**63 - 1
RecordId = Annotated[
    str,
    Field(
        pattern=r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
        description="A record id: a lowercase UUID, as the service issues them.",
    ),
]
Epoch = Annotated[float, Field(ge=0.0, le=MAX_EPOCH, description="UNIX epoch seconds, as stored.")]
RowId = Annotated[int, Field(ge=1, le=MAX_ROW_ID)]
Actor = Annotated[str, Field(min_length=1, max_length=256)]
VectorValue = Annotated[float, Field(ge=-1e6, le=1e6)]


class ExportFilters(StrictModel):
    """Which records an export holds (every field narrows; empty: no limit)."""

    scopes: list[Scope] = Field(default_factory=list, max_length=100)
    types: list[MemoryType] = Field(default_factory=list, max_length=6)
    created_after: datetime | None = None
    created_before: datetime | None = None
    include_embeddings: bool = False


class EmbeddingInfo(StrictModel):
    model: str = Field(max_length=256)
    dimension: int = Field(ge=1, le=MAX_VECTOR)


class HeaderLine(StrictModel):
    """First line: what the file is and how it was made."""

    kind: Literal["header"] = "header"
    format: Literal["membrane-export"] = "membrane-export"
    version: int = Field(default=FORMAT_VERSION, ge=1)
    exported_at: datetime
    schema_revision: str | None = Field(default=None, max_length=64)
    filters: ExportFilters = Field(default_factory=ExportFilters)
    embeddings: EmbeddingInfo | None = Field(
        default=None, description="The source's pinned embedding model, when it has one."
    )


class SalienceState(StrictModel):
    """The decay state: current salience = f(base, t0, curve, half-life, floor, pinned, now)."""

    base: Unit
    t0: Epoch
    swept: Unit
    curve: DecayCurve
    half_life_s: float = Field(ge=1.0, le=1e12)
    min_salience: Unit
    max_age_s: float | None = Field(default=None, gt=0, le=1e12)
    reinforcement_gain: Unit
    pinned: bool


class RecordLine(StrictModel):
    """A record with every stored column (its tags rows follow from `tags`)."""

    kind: Literal["record"] = "record"
    id: RecordId
    type: MemoryType
    status: Status
    sensitivity: Sensitivity
    confidence: Unit
    scope: Scope | None
    tags: Tags
    created_at: Epoch
    updated_at: Epoch
    created_by: Actor
    deletion_policy: DeletionPolicy
    salience: SalienceState
    provenance: JsonObject
    interpretation: JsonObject
    payload: JsonObject
    search_text: str | None = Field(
        default=None,
        max_length=MAX_STRING,
        description="The text the record is searched by; computed from the payload when absent.",
    )


class RelationLine(StrictModel):
    """An edge from an exported record (the target may be any record id or a reference)."""

    kind: Literal["relation"] = "relation"
    id: RowId | None = None
    source_id: RecordId
    predicate: str = Field(min_length=1, max_length=64)
    target_id: str = Field(min_length=1, max_length=1024)
    weight: float = Field(ge=0.0, le=1e6)
    created_at: Epoch


class ProvenanceLine(StrictModel):
    """A provenance source row of a record (`source_kind` is the row's own kind)."""

    kind: Literal["provenance"] = "provenance"
    id: RowId | None = None
    record_id: RecordId
    source_kind: str = Field(min_length=1, max_length=64)
    ref: Text | None = None
    hash: str | None = Field(default=None, max_length=128)
    created_by: str | None = Field(default=None, max_length=256)
    timestamp: Epoch | None = None


class EntityTermLine(StrictModel):
    """A normalized name or alias an entity record is resolved by."""

    kind: Literal["entity_term"] = "entity_term"
    record_id: RecordId
    term: str = Field(min_length=1, max_length=1024)
    scope: str = Field(default="", max_length=512)


class AuditLine(StrictModel):
    """An audit entry (entries outlive their records: the trail of a deleted record)."""

    kind: Literal["audit"] = "audit"
    id: RowId | None = None
    record_id: RecordId
    action: str = Field(min_length=1, max_length=32)
    actor: Actor
    timestamp: Epoch
    rationale: Text | None = None
    details: JsonObject = Field(default_factory=dict)


class EmbeddingLine(StrictModel):
    """A record's vector and the model that made it."""

    kind: Literal["embedding"] = "embedding"
    record_id: RecordId
    model: str = Field(min_length=1, max_length=256)
    dimension: int = Field(ge=1, le=MAX_VECTOR)
    vector: list[VectorValue] = Field(max_length=MAX_VECTOR)


class EndLine(StrictModel):
    """Last line: how many lines of each kind precede it (a truncated file has none)."""

    kind: Literal["end"] = "end"
    counts: dict[str, int]


BodyLine = Annotated[
    RecordLine | RelationLine | ProvenanceLine | EntityTermLine | AuditLine | EmbeddingLine,
    Field(discriminator="kind"),
]
AnyLine = Annotated[
    HeaderLine
    | RecordLine
    | RelationLine
    | ProvenanceLine
    | EntityTermLine
    | AuditLine
    | EmbeddingLine
    | EndLine,
    Field(discriminator="kind"),
]
LINE = TypeAdapter[Any](AnyLine)
BODY_KINDS = ("record", "provenance", "entity_term", "relation", "audit", "embedding")


class KindCounts(OutModel):
    records: int = 0
    relations: int = 0
    provenance: int = 0
    entity_terms: int = 0
    audit: int = 0
    embeddings: int = 0


class ImportReport(OutModel):
    """What an import wrote. Rows already present (same record id; same edge, same audit
    entry) are skipped, so importing a file twice changes nothing the second time."""

    lines: int = Field(description="Lines read, header and end line included.")
    created: KindCounts
    skipped: KindCounts
    queued_for_embedding: int = Field(
        description="Created records with text but no vector of the target's embedding "
        "model: the embedding worker embeds them."
    )

    model_config = {
        "json_schema_extra": {
            "examples": [
                {
                    "lines": 12,
                    "created": {"records": 3, "relations": 4, "audit": 3},
                    "skipped": {"records": 0, "relations": 0, "audit": 0},
                    "queued_for_embedding": 3,
                }
            ]
        }
    }


class LineError(OutModel):
    line: int
    msg: str
    type: str
