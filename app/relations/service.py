"""Edges for other domains: the one published way to link two records (with the
inverse edge), so that no domain reaches into this one's repository."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.models import RelationRow
from app.relations import repository as relation_repo


def link(
    session: Session, source_id: str, predicate: str, target_id: str, now: float
) -> list[RelationRow]:
    """An edge from `source_id` to `target_id` and its inverse (staged in `session`)."""
    return relation_repo.add_pair(session, source_id, predicate, target_id, now)
