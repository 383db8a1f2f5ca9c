"""SQL of working memory threads."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.models import RecordRow
from app.models.clauses import visible
from app.trust import Visibility

MAX_SNAPSHOTS = 1000  # a thread's earlier snapshots closed per done state


def open_snapshots(
    session: Session, scope: str | None, thread_id: str, vis: Visibility, exclude: str
) -> list[str]:
    """Active working records of `thread_id` in `scope` within `vis`, oldest first,
    except `exclude` (the snapshot that closes the thread)."""
    stmt = (
        select(RecordRow.id)
        .where(
            RecordRow.type == "working",
            RecordRow.status == "active",
            RecordRow.scope.is_(None) if scope is None else RecordRow.scope == scope,
            visible(vis, RecordRow),
            RecordRow.payload["thread_id"].as_string() == thread_id,
            RecordRow.id != exclude,
        )
        .order_by(RecordRow.created_at, RecordRow.id)
        .limit(MAX_SNAPSHOTS)
    )
    return list(session.scalars(stmt))
