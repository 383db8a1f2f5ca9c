"""Rows → API views, with trust applied (full, redacted, or nothing)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from app.clock import to_datetime
from app.enums import MemoryType, Sensitivity, Status
from app.models import AuditRow, RecordRow, RelationRow
from app.records.schemas import (
    AuditEntryOut,
    DecayOut,
    LifecycleOut,
    MemoryRecordOut,
    RecordView,
    RedactedRecordOut,
    RelationOut,
)
from app.trust import TrustContext


def relation_out(rel: RelationRow) -> RelationOut:
    return RelationOut(
        source_id=rel.source_id,
        predicate=rel.predicate,
        target_id=rel.target_id,
        weight=rel.weight,
        created_at=to_datetime(rel.created_at),
    )


def audit_out(entry: AuditRow) -> AuditEntryOut:
    return AuditEntryOut(
        id=entry.id,
        record_id=entry.record_id,
        action=entry.action,
        actor=entry.actor,
        timestamp=to_datetime(entry.timestamp),
        rationale=entry.rationale,
        details=entry.details or {},
    )


def full_view(
    row: RecordRow,
    now: float,
    relations: Sequence[RelationRow] = (),
    audit: Sequence[AuditRow] | None = None,
) -> MemoryRecordOut:
    return MemoryRecordOut(
        id=row.id,
        type=MemoryType(row.type),
        sensitivity=Sensitivity.from_rank(row.sensitivity),
        confidence=row.confidence,
        salience=row.salience_at(now),
        scope=row.scope,
        tags=list(row.tags or []),
        created_at=to_datetime(row.created_at),
        updated_at=to_datetime(row.updated_at),
        lifecycle=LifecycleOut(
            decay=DecayOut(
                curve=row.decay_curve,
                half_life_seconds=row.half_life_s,
                min_salience=row.min_salience,
                max_age_seconds=row.max_age_s,
                reinforcement_gain=row.reinforcement_gain,
            ),
            last_reinforced_at=to_datetime(row.salience_t0),
            pinned=row.pinned,
            deletion_policy=row.deletion_policy,
        ),
        provenance=row.provenance or {},
        relations=[relation_out(r) for r in relations],
        interpretation=row.interpretation or {},
        payload=row.payload,
        status=Status(row.status),
        audit_log=[audit_out(a) for a in audit] if audit is not None else None,
    )


def redacted_view(row: RecordRow) -> RedactedRecordOut:
    return RedactedRecordOut(
        id=row.id,
        type=MemoryType(row.type),
        sensitivity=Sensitivity.from_rank(row.sensitivity),
        scope=row.scope,
        status=Status(row.status),
        created_at=to_datetime(row.created_at),
    )


def list_views(
    rows: Sequence[RecordRow], relations: Sequence[RelationRow], trust: TrustContext, now: float
) -> list[RecordView]:
    """Rows already passed the SQL visibility filter (≤ ceiling + 1)."""
    by_source: dict[str, list[RelationRow]] = defaultdict(list)
    for rel in relations:
        by_source[rel.source_id].append(rel)
    return [
        redacted_view(r) if trust.redacts(r.sensitivity) else full_view(r, now, by_source[r.id])
        for r in rows
    ]
