"""The in-process scheduler (APScheduler): decay + prune and consolidation on intervals
from settings.scheduler; every replica schedules, the leader lock picks one runner."""

from __future__ import annotations

import logging

from apscheduler.schedulers.background import BackgroundScheduler

from app.config import Settings
from app.db import Database
from app.jobs.service import run_scheduled

log = logging.getLogger("membrane.jobs")


def _tick(db: Database, settings: Settings, job: str, interval_s: float) -> None:
    try:
        outcome = run_scheduled(db, settings, job, interval_s)
        if outcome.skipped:
            log.debug("job %s skipped: %s", job, outcome.skipped)
    except Exception:  # never let one failed tick stop the scheduler
        log.exception("scheduled job %s could not run", job)


def start_scheduler(db: Database, settings: Settings) -> BackgroundScheduler | None:
    """A started scheduler, or None when settings.scheduler.enabled is false."""
    cfg = settings.scheduler
    if not cfg.enabled:
        return None
    scheduler = BackgroundScheduler(
        timezone="UTC",
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": 300},
    )
    for job, interval in (
        ("decay", cfg.decay_interval_s),
        ("consolidation", cfg.consolidation_interval_s),
    ):
        scheduler.add_job(
            _tick,
            "interval",
            seconds=interval,
            args=[db, settings, job, interval],
            id=job,
            name=job,
        )
    scheduler.start()
    log.info(
        "scheduler started: decay every %.0fs, consolidation every %.0fs",
        cfg.decay_interval_s,
        cfg.consolidation_interval_s,
    )
    return scheduler
