"""Idempotency keys: claim a key for a write, keep its first answer, purge expired ones."""

from __future__ import annotations

from sqlalchemy import CursorResult, delete, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.db import dialect_of
from app.models import IdempotencyRow


def claim(
    session: Session, actor: str, key: str, fingerprint: str, now: float, expired_before: float
) -> IdempotencyRow | None:
    """Claim (actor, key) for a write in this transaction: None when the claim is ours,
    else the row of the earlier write. On PostgreSQL a concurrent claim of the same key
    waits here until the first transaction ends, so duplicates resolve to one write."""
    insert = (sqlite.insert if dialect_of(session) == "sqlite" else postgresql.insert)(
        IdempotencyRow
    )
    stmt = insert.values(
        actor=actor, key=key, fingerprint=fingerprint, created_at=now
    ).on_conflict_do_nothing(index_elements=["actor", "key"])
    if session.scalar(stmt.returning(IdempotencyRow.key)) is not None:
        return None
    # An expired key is taken over; the created_at condition makes one of two concurrent
    # takeovers win (the other re-reads the winner's row after it commits).
    takeover = (
        update(IdempotencyRow)
        .where(
            IdempotencyRow.actor == actor,
            IdempotencyRow.key == key,
            IdempotencyRow.created_at < expired_before,
        )
        .values(fingerprint=fingerprint, created_at=now, status_code=None, response=None)
    )
    if _rowcount(session.execute(takeover)) == 1:
        return None
    return session.scalar(
        select(IdempotencyRow)
        .where(IdempotencyRow.actor == actor, IdempotencyRow.key == key)
        .execution_options(populate_existing=True)
    )


def keep_answer(session: Session, actor: str, key: str, status_code: int, body: str) -> None:
    session.execute(
        update(IdempotencyRow)
        .where(IdempotencyRow.actor == actor, IdempotencyRow.key == key)
        .values(status_code=status_code, response=body)
    )


def purge(session: Session, expired_before: float) -> int:
    """Forget keys older than the retention window."""
    result = session.execute(
        delete(IdempotencyRow).where(IdempotencyRow.created_at < expired_before)
    )
    return _rowcount(result)


def _rowcount(result: object) -> int:
    return result.rowcount if isinstance(result, CursorResult) else 0
