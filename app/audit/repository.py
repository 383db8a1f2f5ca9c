"""Append-only audit log."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from app.models import AuditRow, RecordRow, staging
from app.models.clauses import json_rows, rows_of_json

TRAIL_LIMIT = 1000  # entries a record's read shows (GET /v1/records/{id}/audit pages them)


def append(
    session: Session,
    record_id: str,
    action: str,
    actor: str,
    now: float,
    rationale: str | None = None,
    details: Mapping[str, object] | None = None,
) -> AuditRow:
    row = staging.new_row(
        AuditRow,
        record_id=record_id,
        action=action,
        actor=actor,
        timestamp=now,
        rationale=rationale,
        details=dict(details or {}),
    )
    staging.add(session, row)
    return row


def for_record(session: Session, record_id: str, limit: int = TRAIL_LIMIT) -> list[AuditRow]:
    return list(session.scalars(_FOR_RECORD, {"record_id": record_id, "limit": limit}))


# Built once: every GET of a record reads its trail.
_FOR_RECORD = (
    select(AuditRow)
    .where(AuditRow.record_id == bindparam("record_id"))
    .order_by(AuditRow.id)
    .limit(bindparam("limit"))
)


@cache
def trail_column(dialect: str) -> ColumnElement[Any]:
    """`for_record` of the statement's own `records` row (correlated), the first
    `trail_limit` entries, as one JSON array of [id, action, actor, timestamp, rationale,
    details] (`trail_of` reads it): a record and its trail in one round trip."""
    a = AuditRow
    picked = (
        select(a.id, a.action, a.actor, a.timestamp, a.rationale, a.details)
        .where(a.record_id == RecordRow.id)
        .order_by(a.id)
        .limit(bindparam("trail_limit"))
        .correlate(RecordRow)
        .subquery("trail")
    )
    return json_rows(dialect, picked)


def trail_of(record_id: str, listed: Any) -> list[AuditRow]:
    """The entries `trail_column` listed for `record_id`, oldest first, as (unsaved) rows."""
    return [
        AuditRow(
            id=int(eid),
            record_id=record_id,
            action=action,
            actor=actor,
            timestamp=float(timestamp),
            rationale=rationale,
            details=details,
        )
        for eid, action, actor, timestamp, rationale, details in rows_of_json(listed)
    ]


def tombstone(session: Session, record_id: str) -> AuditRow | None:
    """The entry that recorded a record's deletion (manual delete or prune), if any."""
    stmt = (
        select(AuditRow)
        .where(AuditRow.record_id == record_id, AuditRow.action.in_(["delete", "prune"]))
        .order_by(AuditRow.id.desc())
        .limit(1)
    )
    return session.scalar(stmt)
