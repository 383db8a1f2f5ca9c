"""The in-process scheduler (APScheduler): decay + prune and consolidation on intervals
from settings.scheduler; every replica schedules, the leader lock picks one runner."""

from __future__ import annotations

import logging

from apscheduler.schedulers.background import BackgroundScheduler

from app.deps import AppState
from app.jobs.service import run_scheduled

log = logging.getLogger("membrane.jobs")


def _tick(state: AppState, job: str, interval_s: float) -> None:
    try:
        outcome = run_scheduled(state.db, state.settings, job, interval_s)
        if outcome.skipped:
            log.debug("job %s skipped: %s", job, outcome.skipped)
    except Exception:  # never let one failed tick stop the scheduler
        log.exception("scheduled job %s could not run", job)


def start(state: AppState) -> None:
    cfg = state.settings.scheduler
    if not cfg.enabled:
        return
    scheduler = BackgroundScheduler(
        timezone="UTC",
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": 300},
    )
    for job, interval in (
        ("decay", cfg.decay_interval_s),
        ("consolidation", cfg.consolidation_interval_s),
    ):
        scheduler.add_job(
            _tick, "interval", seconds=interval, args=[state, job, interval], id=job, name=job
        )
    scheduler.start()
    state.extras["scheduler"] = scheduler
    log.info(
        "scheduler started: decay every %.0fs, consolidation every %.0fs",
        cfg.decay_interval_s,
        cfg.consolidation_interval_s,
    )


def stop(state: AppState) -> None:
    scheduler = state.extras.pop("scheduler", None)
    if scheduler is not None:
        scheduler.shutdown(wait=True)  # let a running sweep finish its batch loop
