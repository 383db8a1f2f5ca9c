"""Rows → API views, with trust applied (full, redacted, or nothing)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence

from app.audit.names import seed_name
from app.clock import to_datetime
from app.enums import MemoryType, Sensitivity, Status
from app.models import AuditRow, RecordRow, RelationRow
from app.records.references import names_any, scrub, without_refs
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


def audit_out(
    entry: AuditRow, hidden: Collection[str] = (), *, seed_names: bool = False
) -> AuditEntryOut:
    """An audit entry; one naming a record in `hidden` (ids the caller may not read) shows
    neither those ids nor its rationale (app/records/references.py). With `seed_names`
    its action reads as the original names it (app/audit/names.py)."""
    details = entry.details or {}
    redact = names_any(details, hidden)
    return AuditEntryOut(
        id=entry.id,
        record_id=entry.record_id,
        action=seed_name(entry.action) if seed_names else entry.action,
        actor=entry.actor,
        timestamp=to_datetime(entry.timestamp),
        rationale=None if redact else entry.rationale,
        details=scrub(details, hidden) if redact else details,
    )


def full_view(
    row: RecordRow,
    now: float,
    relations: Sequence[RelationRow] = (),
    audit: Sequence[AuditRow] | None = None,
    hidden: Collection[str] = (),
    *,
    seed_names: bool = False,
) -> MemoryRecordOut:
    """A readable record in full; ids in `hidden` are left out of its revision block and
    audit details."""
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
        payload=without_refs(row.payload, hidden),
        status=Status(row.status),
        audit_log=[audit_out(a, hidden, seed_names=seed_names) for a in audit]
        if audit is not None
        else None,
    )


def redacted_view(row: RecordRow, now: float) -> RedactedRecordOut:
    """The original's redacted copy: metadata the writer set or the lifecycle computes
    (confidence, current salience, tags, timestamps), never what the record says."""
    return RedactedRecordOut(
        id=row.id,
        type=MemoryType(row.type),
        sensitivity=Sensitivity.from_rank(row.sensitivity),
        confidence=row.confidence,
        salience=row.salience_at(now),
        scope=row.scope,
        tags=list(row.tags or []),
        status=Status(row.status),
        created_at=to_datetime(row.created_at),
        updated_at=to_datetime(row.updated_at),
    )


def list_views(
    rows: Sequence[RecordRow],
    relations: Sequence[RelationRow],
    trust: TrustContext,
    now: float,
    hidden: Collection[str] = (),
) -> list[RecordView]:
    """Rows already passed the SQL visibility filter (≤ ceiling + 1)."""
    by_source: dict[str, list[RelationRow]] = defaultdict(list)
    for rel in relations:
        by_source[rel.source_id].append(rel)
    return [
        redacted_view(r, now)
        if trust.redacts(r.sensitivity)
        else full_view(r, now, by_source[r.id], hidden=hidden)
        for r in rows
    ]
