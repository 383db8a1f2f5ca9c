"""The record envelope (DESIGN §4): what clients send and what they get back."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field, model_validator

from app.enums import DecayCurve, DeletionPolicy, MemoryType, Sensitivity, Status
from app.records.payloads import Payload, StoredPayload
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


class DecaySpec(StrictModel):
    curve: DecayCurve = DecayCurve.exponential
    half_life_seconds: float | None = Field(default=None, ge=1, le=1e12)
    min_salience: Unit = 0.0
    max_age_seconds: float | None = Field(default=None, ge=1, le=1e12)
    reinforcement_gain: Unit | None = None


class LifecycleSpec(StrictModel):
    decay: DecaySpec = Field(default_factory=DecaySpec)
    pinned: bool = False
    deletion_policy: DeletionPolicy | None = None


class ProvenanceSource(StrictModel):
    kind: ShortText
    ref: Text | None = None
    hash: ShortText | None = None
    created_by: ShortText | None = None
    timestamp: datetime | None = None


class Provenance(StrictModel):
    sources: list[ProvenanceSource] = Field(default_factory=list, max_length=10_000)
    created_by: ShortText | None = None


class RelationSpec(StrictModel):
    predicate: ShortText
    target_id: ShortText
    weight: float = Field(default=1.0, ge=0.0, le=1e6)


class RecordCreate(StrictModel):
    """A typed record. `type` may be omitted: it is the payload's `kind`."""

    type: MemoryType | None = Field(
        default=None, description="The payload's `kind` (the default); anything else is 422."
    )
    payload: Payload
    sensitivity: Sensitivity | None = None
    confidence: Unit | None = None
    salience: Unit | None = None
    scope: Scope | None = None
    tags: Tags = Field(default_factory=list)
    lifecycle: LifecycleSpec = Field(default_factory=LifecycleSpec)
    provenance: Provenance = Field(default_factory=Provenance)
    relations: list[RelationSpec] = Field(default_factory=list, max_length=1000)
    interpretation: JsonObject = Field(default_factory=dict)

    @model_validator(mode="after")
    def _type_matches_payload(self) -> RecordCreate:
        kind = MemoryType(self.payload.kind)
        if self.type is not None and self.type != kind:
            raise ValueError(f"type {self.type.value!r} does not match payload.kind {kind.value!r}")
        self.type = kind
        return self

    @property
    def memory_type(self) -> MemoryType:
        return MemoryType(self.payload.kind)


class DecayOut(OutModel):
    curve: DecayCurve
    half_life_seconds: float
    min_salience: float
    max_age_seconds: float | None
    reinforcement_gain: float


class LifecycleOut(OutModel):
    decay: DecayOut
    last_reinforced_at: datetime
    pinned: bool
    deletion_policy: DeletionPolicy


class RelationOut(OutModel):
    source_id: str
    predicate: str
    target_id: str
    weight: float
    created_at: datetime


class AuditEntryOut(OutModel):
    id: int
    record_id: str
    action: str
    actor: str
    timestamp: datetime
    rationale: str | None = None
    details: dict[str, object] = Field(default_factory=dict)


class MemoryRecordOut(OutModel):
    id: str
    type: MemoryType
    sensitivity: Sensitivity
    confidence: float
    salience: float = Field(description="Current salience, decayed to the time of the request.")
    scope: str | None
    tags: list[str]
    created_at: datetime
    updated_at: datetime
    lifecycle: LifecycleOut
    provenance: dict[str, object]
    relations: list[RelationOut] = Field(default_factory=list)
    interpretation: dict[str, object]
    payload: StoredPayload
    status: Status
    redacted: Literal[False] = False
    audit_log: list[AuditEntryOut] | None = Field(
        default=None, description="Present when a single record is read by id."
    )


class RedactedRecordOut(OutModel):
    """Metadata only: the record is one sensitivity level above the caller's ceiling. As
    the original's redacted copy: id, type, sensitivity, confidence, salience, scope, tags
    and timestamps; no payload, provenance, relations, interpretation or audit log."""

    id: str
    type: MemoryType
    sensitivity: Sensitivity
    confidence: float
    salience: float
    scope: str | None
    tags: list[str]
    status: Status
    created_at: datetime
    updated_at: datetime
    redacted: Literal[True] = True


RecordView = MemoryRecordOut | RedactedRecordOut


class RecordPage(OutModel):
    items: list[RecordView]
    next_cursor: str | None = None


class AuditPage(OutModel):
    items: list[AuditEntryOut]


class RelationsOut(OutModel):
    outgoing: list[RelationOut]
    incoming: list[RelationOut]


class RecordDeleted(OutModel):
    """The record is gone; its audit trail (ending with a `delete` entry) remains."""

    id: str
    deleted: bool = True
    deleted_at: datetime
