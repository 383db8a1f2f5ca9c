"""SQL of the interpretation queue (table `interpretation_queue`): captured records that
wait for LLM interpretation, with the capturer's trust at capture time. This is the
worker's side; capture queues a record with `app/capture/queue_repository.py:enqueue`."""

from __future__ import annotations

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.models import InterpretationQueueRow


def any_due(session: Session, now: float) -> bool:
    stmt = select(InterpretationQueueRow.record_id).where(
        InterpretationQueueRow.next_attempt_at <= now
    )
    return session.scalar(stmt.limit(1)) is not None


def claim(session: Session, now: float, lease_s: float) -> InterpretationQueueRow | None:
    """The item due longest, taken for one attempt: its attempts grow by one and it is
    held (`running`) until now + lease_s, when another worker may take it again (this one
    died). PostgreSQL skips items another worker is claiming at the same moment."""
    stmt = (
        select(InterpretationQueueRow)
        .where(InterpretationQueueRow.next_attempt_at <= now)
        .order_by(InterpretationQueueRow.next_attempt_at, InterpretationQueueRow.record_id)
        .limit(1)
        .with_for_update(skip_locked=True)
    )
    row = session.scalar(stmt)
    if row is None:
        return None
    row.attempts += 1
    row.status = "running"
    row.next_attempt_at = now + lease_s
    session.flush()
    return row


def lock(session: Session, record_id: str) -> InterpretationQueueRow | None:
    """The item as stored now, locked until the transaction ends."""
    stmt = (
        select(InterpretationQueueRow)
        .where(InterpretationQueueRow.record_id == record_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    return session.scalar(stmt)


def reschedule(session: Session, row: InterpretationQueueRow, at: float, error: str) -> None:
    row.status = "pending"
    row.next_attempt_at = at
    row.last_error = error[:1000]
    session.flush()


def remove(session: Session, record_id: str) -> None:
    session.execute(
        delete(InterpretationQueueRow).where(InterpretationQueueRow.record_id == record_id)
    )


def count(session: Session) -> int:
    stmt = select(func.count()).select_from(InterpretationQueueRow)
    return int(session.scalar(stmt) or 0)
