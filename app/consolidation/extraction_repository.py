"""SQL of consolidation's LLM triple extraction: which episodes still wait for it, and
how often their extraction failed."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.models import AuditRow, RecordRow, TagRow


def pending_episodes(
    session: Session,
    *,
    done_action: str,
    failed_action: str,
    max_attempts: int,
    excluded_tag: str,
    limit: int,
) -> list[RecordRow]:
    """Active episodic records with a non-blank summary, not tagged `excluded_tag`,
    without a `done_action` audit entry and with fewer than `max_attempts`
    `failed_action` entries; oldest first."""
    done = (
        select(AuditRow.id)
        .where(AuditRow.record_id == RecordRow.id, AuditRow.action == done_action)
        .exists()
    )
    failures = (
        select(func.count(AuditRow.id))
        .where(AuditRow.record_id == RecordRow.id, AuditRow.action == failed_action)
        .scalar_subquery()
    )
    tagged = select(TagRow.record_id).where(TagRow.tag == excluded_tag)
    summary = RecordRow.payload["summary"].as_string()
    stmt = (
        select(RecordRow)
        .where(
            RecordRow.type == "episodic",
            RecordRow.status == "active",
            func.coalesce(func.trim(summary), "") != "",
            RecordRow.id.not_in(tagged),
            ~done,
            failures < max_attempts,
        )
        .order_by(RecordRow.created_at, RecordRow.id)
        .limit(limit)
    )
    return list(session.scalars(stmt))


def failure_counts(session: Session, ids: Sequence[str], failed_action: str) -> dict[str, int]:
    """How many `failed_action` audit entries each of `ids` has (absent: none)."""
    if not ids:
        return {}
    stmt = (
        select(AuditRow.record_id, func.count(AuditRow.id))
        .where(AuditRow.record_id.in_(list(ids)), AuditRow.action == failed_action)
        .group_by(AuditRow.record_id)
    )
    return {record_id: int(n) for record_id, n in session.execute(stmt)}


def has_action(session: Session, record_id: str, action: str) -> bool:
    """Whether `record_id` has an audit entry `action`."""
    stmt = select(AuditRow.id).where(AuditRow.record_id == record_id, AuditRow.action == action)
    return session.scalar(stmt.limit(1)) is not None
