"""SQL of consolidation: which episodes still wait for a stage, and duplicate facts."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.models import AuditRow, RecordRow, RelationRow, TagRow


def uncompressed_episodes(
    session: Session, *, before: float, compressed_tag: str, limit: int
) -> list[RecordRow]:
    """Active episodic records created before `before` that are neither compressed
    records themselves nor already sources of one (a `derives` edge to a record tagged
    `compressed_tag`)."""
    compressed_ids = select(TagRow.record_id).where(TagRow.tag == compressed_tag)
    already = (
        select(RelationRow.id)
        .join(TagRow, TagRow.record_id == RelationRow.target_id)
        .where(
            RelationRow.source_id == RecordRow.id,
            RelationRow.predicate == "derives",
            TagRow.tag == compressed_tag,
        )
        .exists()
    )
    stmt = (
        select(RecordRow)
        .where(
            RecordRow.type == "episodic",
            RecordRow.status == "active",
            RecordRow.created_at < before,
            RecordRow.id.not_in(compressed_ids),
            ~already,
        )
        .order_by(RecordRow.scope, RecordRow.created_at, RecordRow.id)
        .limit(limit)
    )
    return list(session.scalars(stmt))


def unconsolidated_successes(session: Session, *, stage: str, limit: int) -> list[RecordRow]:
    """Active successful episodes that `stage` has not processed yet (no audit entry
    `consolidate:<stage>` on them), oldest first."""
    done = (
        select(AuditRow.id)
        .where(AuditRow.record_id == RecordRow.id, AuditRow.action == f"consolidate:{stage}")
        .exists()
    )
    stmt = (
        select(RecordRow)
        .where(
            RecordRow.type == "episodic",
            RecordRow.status == "active",
            RecordRow.payload["outcome"].as_string() == "success",
            ~done,
        )
        .order_by(RecordRow.created_at, RecordRow.id)
        .limit(limit)
    )
    return list(session.scalars(stmt))


def same_fact(
    session: Session, scope: str | None, sensitivity: int, triple: tuple[str, str, str]
) -> str | None:
    """The oldest active semantic record with this subject, predicate and (text) object
    in `scope` at exactly `sensitivity`."""
    subject, predicate, obj = triple
    payload = RecordRow.payload
    stmt = (
        select(RecordRow.id)
        .where(
            RecordRow.type == "semantic",
            RecordRow.status.in_(["active", "contested"]),
            RecordRow.scope.is_(None) if scope is None else RecordRow.scope == scope,
            RecordRow.sensitivity == sensitivity,
            payload["subject"].as_string() == subject,
            payload["predicate"].as_string() == predicate,
            payload["object"].as_string() == obj,
        )
        .order_by(RecordRow.created_at, RecordRow.id)
        .limit(1)
    )
    return session.scalar(stmt)
