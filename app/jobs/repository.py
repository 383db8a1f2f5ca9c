"""Job-run history and the PostgreSQL advisory lock that elects one runner per job."""

from __future__ import annotations

import hashlib

from sqlalchemy import Connection, select, text, update
from sqlalchemy.orm import Session

from app.models import JobRunRow


def start_run(session: Session, job: str, trigger: str, now: float) -> JobRunRow:
    row = JobRunRow(job=job, trigger=trigger, started_at=now, status="running", counts={})
    session.add(row)
    session.flush([row])
    return row


def finish_run(
    session: Session,
    run_id: int,
    *,
    status: str,
    counts: dict[str, int],
    error: str | None,
    now: float,
) -> None:
    stmt = (
        update(JobRunRow)
        .where(JobRunRow.id == run_id)
        .values(status=status, counts=counts, error=error, finished_at=now)
        .execution_options(synchronize_session=False)
    )
    session.execute(stmt)


def abandon_running(session: Session, job: str, now: float) -> None:
    """Runs of `job` still marked running when a new runner holds the job's lock: their
    runner died (the lock is released with its connection or process). Mark them failed."""
    stmt = (
        update(JobRunRow)
        .where(JobRunRow.job == job, JobRunRow.status == "running")
        .values(status="failed", error="abandoned: its runner stopped", finished_at=now)
        .execution_options(synchronize_session=False)
    )
    session.execute(stmt)


def started_since(session: Session, job: str, since: float) -> bool:
    """Has any run of `job` started at or after `since`? (one run per scheduled tick)"""
    stmt = select(JobRunRow.id).where(JobRunRow.job == job, JobRunRow.started_at >= since)
    return session.execute(stmt.limit(1)).first() is not None


def get_run(session: Session, run_id: int) -> JobRunRow | None:
    stmt = select(JobRunRow).where(JobRunRow.id == run_id)
    return session.scalars(stmt.execution_options(populate_existing=True)).one_or_none()


def recent(session: Session, job: str | None, limit: int) -> list[JobRunRow]:
    stmt = select(JobRunRow).order_by(JobRunRow.started_at.desc(), JobRunRow.id.desc())
    if job is not None:
        stmt = stmt.where(JobRunRow.job == job)
    return list(session.scalars(stmt.limit(limit)))


def lock_key(job: str) -> int:
    """A stable signed 64-bit advisory-lock key per job name."""
    digest = hashlib.sha256(f"membrane.job.{job}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def try_advisory_lock(conn: Connection, key: int) -> bool:
    """Session-level lock: it outlives this statement's transaction and is released by
    advisory_unlock or when the connection closes (a crashed runner frees it)."""
    got = conn.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": key}).scalar()
    conn.commit()
    return bool(got)


def advisory_unlock(conn: Connection, key: int) -> None:
    conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
    conn.commit()
