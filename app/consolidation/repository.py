"""SQL of consolidation: which episodes still wait to be compressed."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.models import RecordRow, RelationRow, TagRow


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
