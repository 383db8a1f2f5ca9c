"""Edges between records, for the domains that write and read them inside their own
unit of work. Reads take the caller's trust: an edge never reveals the id of a record the
caller may not read (external references, which are not records, always show)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy.orm import Session

from app.models import RelationRow
from app.relations import repository as repo
from app.trust import TrustContext

INVERSE = repo.INVERSE


def link(
    session: Session,
    source_id: str,
    predicate: str,
    target_id: str,
    now: float,
    weight: float = 1.0,
) -> list[RelationRow]:
    """An edge plus its inverse (when the predicate has one)."""
    return repo.add_pair(session, source_id, predicate, target_id, now, weight)


def link_one_way(
    session: Session, source_id: str, predicate: str, target_id: str, now: float
) -> RelationRow:
    """An edge without its inverse (its target is not a record)."""
    return repo.add_edge(session, source_id, predicate, target_id, now)


def outgoing(session: Session, ids: Sequence[str], trust: TrustContext) -> list[RelationRow]:
    """Edges from `ids` to what `trust` may see."""
    return repo.outgoing(session, ids, trust.reading())


def incoming(session: Session, ids: Sequence[str], trust: TrustContext) -> list[RelationRow]:
    """Edges into `ids` from records `trust` may read."""
    return repo.incoming(session, ids, trust.reading())


def touching(session: Session, ids: Iterable[str], limit: int) -> list[RelationRow]:
    """Edges in either direction of any of `ids`, unfiltered: the graph walk checks
    every record it reaches itself."""
    return repo.touching(session, ids, limit)
