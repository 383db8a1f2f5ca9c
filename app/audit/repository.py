"""Append-only audit log."""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from app.models import AuditRow


def append(
    session: Session,
    record_id: str,
    action: str,
    actor: str,
    now: float,
    rationale: str | None = None,
    details: Mapping[str, object] | None = None,
) -> AuditRow:
    row = AuditRow(
        record_id=record_id,
        action=action,
        actor=actor,
        timestamp=now,
        rationale=rationale,
        details=dict(details or {}),
    )
    session.add(row)
    return row


def for_record(session: Session, record_id: str, limit: int = 1000) -> list[AuditRow]:
    return list(session.scalars(_FOR_RECORD, {"record_id": record_id, "limit": limit}))


# Built once: every GET of a record reads its trail.
_FOR_RECORD = (
    select(AuditRow)
    .where(AuditRow.record_id == bindparam("record_id"))
    .order_by(AuditRow.id)
    .limit(bindparam("limit"))
)


def tombstone(session: Session, record_id: str) -> AuditRow | None:
    """The entry that recorded a record's deletion (manual delete or prune), if any."""
    stmt = (
        select(AuditRow)
        .where(AuditRow.record_id == record_id, AuditRow.action.in_(["delete", "prune"]))
        .order_by(AuditRow.id.desc())
        .limit(1)
    )
    return session.scalar(stmt)
