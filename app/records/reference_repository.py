"""Which of a set of record ids a caller may read: one indexed look-up by primary key."""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.models import RecordRow
from app.models.clauses import visible
from app.trust import Visibility


def readable_ids(session: Session, ids: Collection[str], vis: Visibility) -> set[str]:
    """The ids among `ids` naming a record that exists and passes `vis`."""
    if not ids:
        return set()
    stmt = select(RecordRow.id).where(RecordRow.id.in_(sorted(ids)), visible(vis))
    return set(session.scalars(stmt))
