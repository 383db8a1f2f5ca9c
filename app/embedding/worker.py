"""The embedding queue worker: embeds pending records in batches, off the request path.

A batch is read in one short transaction, embedded with no transaction open (a slow
provider never holds a database lock), then written with its status in another."""

from __future__ import annotations

import logging
import threading

from app.db import Database
from app.embedding import queue_repository as repo
from app.embedding.providers import Embedder

log = logging.getLogger("membrane.embedding")
MAX_BACKOFF_STEPS = 6  # interval · 2^6 at most after repeated failures


def embed_pending(db: Database, embedder: Embedder, batch_size: int) -> int:
    """Embed one batch of pending records; returns how many records it settled."""
    with db.transaction() as session:
        batch = repo.pending_batch(session, batch_size)
    if not batch:
        return 0
    with_text = [(rid, txt) for rid, txt in batch if txt.strip()]
    vectors = embedder.embed([txt for _, txt in with_text]) if with_text else []
    with db.transaction() as session:
        live = repo.still_pending(session, [rid for rid, _ in batch])
        items = [
            (rid, vec) for (rid, _), vec in zip(with_text, vectors, strict=True) if rid in live
        ]
        repo.store_vectors(session, db.tier, embedder.name, items)
        repo.mark(session, [rid for rid, _ in items], "done")
        empty = [rid for rid, txt in batch if not txt.strip() and rid in live]
        repo.mark(session, empty, "skipped")  # nothing to embed
    return len(batch)


class EmbeddingWorker:
    """A daemon thread draining the queue; polls every `interval_s` when it is empty."""

    def __init__(
        self, db: Database, embedder: Embedder, *, batch_size: int, interval_s: float
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.batch_size = batch_size
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="membrane-embedding", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            try:
                settled = embed_pending(self.db, self.embedder, self.batch_size)
                failures = 0
            except Exception:  # the worker must outlive a provider or database outage
                log.exception("embedding batch failed")
                failures += 1
                settled = 0
            if settled >= self.batch_size:
                continue  # more may be waiting: drain without sleeping
            delay = self.interval_s * (2 ** min(failures, MAX_BACKOFF_STEPS))
            self._stop.wait(delay)
