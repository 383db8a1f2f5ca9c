"""Entity resolution terms: normalized canonical names and aliases per scope."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.models import EntityTermRow, RecordRow

_SPACES = re.compile(r"\s+")


def normalize(name: str) -> str:
    folded = unicodedata.normalize("NFKC", name).casefold()
    return _SPACES.sub(" ", folded).strip()[:1024]


def add_terms(session: Session, record_id: str, scope: str | None, names: Iterable[str]) -> None:
    for term in {normalize(n) for n in names if normalize(n)}:
        session.add(EntityTermRow(record_id=record_id, term=term, scope=scope or ""))


def resolve(session: Session, scope: str | None, names: Sequence[str]) -> str | None:
    """The oldest live entity record in `scope` whose name or alias matches any of `names`."""
    terms = sorted({normalize(n) for n in names if normalize(n)})
    if not terms:
        return None
    stmt = (
        select(EntityTermRow.record_id)
        .join(RecordRow, RecordRow.id == EntityTermRow.record_id)
        .where(
            EntityTermRow.scope == (scope or ""),
            EntityTermRow.term.in_(terms),
            RecordRow.status.in_(["active", "contested"]),
        )
        .order_by(RecordRow.created_at, RecordRow.id)
        .limit(1)
    )
    return session.scalar(stmt)


def matching_terms(
    session: Session, terms: Sequence[str], scopes: Sequence[str] | None
) -> dict[str, str]:
    """record_id → matched term, for query words that name entities."""
    if not terms:
        return {}
    stmt = select(EntityTermRow.record_id, EntityTermRow.term).where(
        EntityTermRow.term.in_(list(set(terms)))
    )
    if scopes is not None:
        stmt = stmt.where(EntityTermRow.scope.in_([*scopes, ""]))
    return {rid: term for rid, term in session.execute(stmt)}
