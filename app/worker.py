"""`python -m app.worker`: the background process — embeds pending records in batches,
interprets captured records with the LLM when that is on (app/interpret) and runs the
scheduled jobs (decay + prune, consolidation) — so API processes only embed queries.
Run one or more next to API processes started with MEMBRANE_BACKGROUND=worker; the jobs'
leader lock makes exactly one of them run each tick."""

from __future__ import annotations

import logging
import os
import signal
import threading
from types import FrameType

from app import logs
from app.config import Settings
from app.db import Database
from app.embedding.runtime import EmbeddingRuntime
from app.heap import startup_heap_frozen
from app.interpret.worker import InterpretationWorker
from app.jobs.scheduler import start_scheduler
from app.startup import exit_if_database_unopenable, settings_or_exit

log = logging.getLogger("membrane.worker")


def run(settings: Settings, stop: threading.Event) -> None:
    """Run until `stop` is set; the embedding worker, the interpretation worker and the
    scheduler stop cleanly."""
    db = Database(settings.database_url, settings.database)
    embedding = EmbeddingRuntime.start(db, settings.embedding, run_worker=True)
    interpretation = InterpretationWorker.start(db, settings)
    scheduler = start_scheduler(db, settings)
    log.info(
        "membrane worker: tier %s, embedding %s, LLM interpretation %s, scheduler %s",
        db.tier.name,
        embedding.embedder.provider if embedding.worker else "off",
        "on" if interpretation is not None else "off",
        "on" if scheduler is not None else "off",
    )
    try:
        with startup_heap_frozen():
            stop.wait()
    finally:
        if interpretation is not None:
            interpretation.stop()
        if scheduler is not None:
            scheduler.shutdown(wait=True)
        embedding.stop()
        db.dispose()


def main() -> None:
    settings = settings_or_exit()
    exit_if_database_unopenable(settings)
    if settings.worker_nice:
        os.nice(settings.worker_nice)
    logs.configure(settings.log_format, settings.log_level)
    stop = threading.Event()

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        log.info("signal %d: stopping", signum)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    run(settings, stop)


if __name__ == "__main__":
    main()
