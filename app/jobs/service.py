"""Running a background job: leader election, the one-run-per-tick guard, and the
job-run record (start, end, counts, error).

On PostgreSQL each job takes a session-level advisory lock on its own connection, so
with several replicas only one runs a job at a time; a scheduled run also skips when a
run of the same job started within half an interval (another replica already served
this tick). On SQLite a thread lock plus an exclusive flock on a file beside the database
play the advisory lock's part across threads and processes, and BEGIN IMMEDIATE makes
the tick check atomic."""

from __future__ import annotations

import fcntl
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy.orm import Session

from app import clock
from app.clock import to_datetime
from app.config import Settings
from app.consolidation.service import run_consolidation
from app.db import Database
from app.deadline import unbounded
from app.errors import Conflict
from app.idempotency.service import purge_expired
from app.jobs import repository as jobs_repo
from app.jobs.schemas import JobRunOut, JobRunPage
from app.metrics.registry import JOB_DURATION, JOB_RUNS
from app.models import JobRunRow
from app.sweep.service import run_sweep

log = logging.getLogger("membrane.jobs")

JobFn = Callable[[Database, Settings, float], dict[str, int]]


def decay_job(db: Database, settings: Settings, now: float) -> dict[str, int]:
    """The hourly sweep: decay and prune records, and forget expired idempotency keys."""
    result = run_sweep(db, now=now, batch_size=settings.scheduler.sweep_batch_size)
    with db.transaction() as session:
        expired = purge_expired(session, now, settings.idempotency.retention_s)
    return {**result.counts(), "idempotency_keys_expired": expired}


def consolidation_job(db: Database, settings: Settings, now: float) -> dict[str, int]:
    return run_consolidation(db, settings, now=now)


JOBS: dict[str, JobFn] = {"decay": decay_job, "consolidation": consolidation_job}


@dataclass
class RunOutcome:
    run: JobRunRow | None  # None when this runner skipped
    skipped: str | None = None  # "locked" (another runner holds it) or "already_ran"


_local_locks: dict[tuple[str, str], threading.Lock] = {}
_local_guard = threading.Lock()


def _local_lock(url: str, job: str) -> threading.Lock:
    with _local_guard:
        return _local_locks.setdefault((url, job), threading.Lock())


@contextmanager
def leader_lock(db: Database, job: str) -> Iterator[bool]:
    """Yield True when this runner may run `job` now (never blocks)."""
    if db.dialect == "postgresql":
        key = jobs_repo.lock_key(job)
        with db.engine.connect() as conn:
            got = jobs_repo.try_advisory_lock(conn, key)
            try:
                yield got
            finally:
                if got:
                    jobs_repo.advisory_unlock(conn, key)
        return
    lock = _local_lock(str(db.engine.url), job)
    got = lock.acquire(blocking=False)
    try:
        if not got:
            yield False
            return
        with _file_lock(db.engine.url.database, job) as across_processes:
            yield across_processes
    finally:
        if got:
            lock.release()


@contextmanager
def _file_lock(database: str | None, job: str) -> Iterator[bool]:
    """SQLite's stand-in for the advisory lock across processes (API workers and
    `python -m app.worker` on one file): an exclusive flock on a file beside the
    database, released when the run ends or the process dies."""
    if not database or database == ":memory:":
        yield True
        return
    fd = os.open(f"{database}.{job}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def run_job(
    db: Database,
    settings: Settings,
    job: str,
    trigger: str,
    *,
    now: float | None = None,
    once_since: float | None = None,
) -> RunOutcome:
    """Run `job` if this runner wins the lock (and, with `once_since`, if no run of it
    started since then). `now` overrides the job's clock (tests, benchmarks)."""
    fn = JOBS[job]
    with leader_lock(db, job) as leader:
        if not leader:
            return RunOutcome(run=None, skipped="locked")
        started = clock.now()
        with db.transaction() as session:
            if once_since is not None and jobs_repo.started_since(session, job, once_since):
                return RunOutcome(run=None, skipped="already_ran")
            jobs_repo.abandon_running(session, job, started)
            run_id = jobs_repo.start_run(session, job, trigger, started).id
        return RunOutcome(
            run=_execute(db, settings, job, fn, run_id, started if now is None else now)
        )


def _execute(
    db: Database, settings: Settings, job: str, fn: JobFn, run_id: int, now: float
) -> JobRunRow | None:
    t0 = time.perf_counter()
    counts: dict[str, int] = {}
    error: str | None = None
    try:
        counts = fn(db, settings, now)
        status = "succeeded"
    except Exception as exc:  # recorded on the run; the scheduler must keep going
        log.exception("job %s failed", job)
        status, error = "failed", f"{type(exc).__name__}: {exc}"
    elapsed = time.perf_counter() - t0
    with db.transaction() as session:
        jobs_repo.finish_run(
            session, run_id, status=status, counts=counts, error=error, now=clock.now()
        )
        row = jobs_repo.get_run(session, run_id)
    JOB_RUNS.inc(job, status)
    JOB_DURATION.observe(elapsed, job)
    log.info("job %s %s in %.2fs: %s", job, status, elapsed, counts)
    return row


def run_scheduled(db: Database, settings: Settings, job: str, interval_s: float) -> RunOutcome:
    """The scheduler's entry point: at most one run per tick across all replicas."""
    return run_job(db, settings, job, "schedule", once_since=clock.now() - interval_s / 2)


def job_run_out(row: JobRunRow) -> JobRunOut:
    return JobRunOut(
        id=row.id,
        job=row.job,
        trigger=row.trigger,
        status=row.status,
        started_at=to_datetime(row.started_at),
        finished_at=to_datetime(row.finished_at) if row.finished_at is not None else None,
        duration_s=row.finished_at - row.started_at if row.finished_at is not None else None,
        counts=row.counts or {},
        error=row.error,
    )


def run_now(db: Database, settings: Settings, job: str) -> JobRunOut:
    """A manual run, waited for; 409 while another runner holds the job's lock."""
    with unbounded():  # a job's statements may take long; the caller chose to wait
        outcome = run_job(db, settings, job, "manual")
    if outcome.run is None:
        raise Conflict(f"Job {job!r} is running elsewhere; try again later.")
    return job_run_out(outcome.run)


def recent_runs(session: Session, job: str | None, limit: int) -> JobRunPage:
    return JobRunPage(items=[job_run_out(r) for r in jobs_repo.recent(session, job, limit)])
