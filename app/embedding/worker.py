"""The embedding queue worker: embeds pending records in batches, off the request path.

A batch is claimed in one short transaction (a lease of LEASE_S on each record, so
several worker processes embed different batches), embedded with no transaction open (a
slow provider never holds a database lock), then written with its status in another,
which drops the leases. A worker that dies leaves its leases to run out; one whose
embedding or write fails drops them (best effort: with the database down they run out),
and retries after its backoff."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from app import clock
from app.db import Database
from app.embedding import queue_repository as repo
from app.embedding.passages import passages, pooled
from app.embedding.providers import Embedder
from app.records.search_text import passage_text

log = logging.getLogger("membrane.embedding")
MAX_BACKOFF_STEPS = 6  # interval · 2^6 at most after repeated failures
# How long a claimed batch is held from other workers: far longer than embedding a batch
# takes locally (seconds) or through a provider with its retries (minutes at worst); a
# dead worker's batch waits this long. A lease that runs out under a live worker costs a
# second embedding of its batch, never a second write (the write checks pending).
LEASE_S = 600.0


def embed_pending(db: Database, embedder: Embedder, batch_size: int, *, max_passages: int) -> int:
    """Embed one batch of pending records; returns how many records it settled."""
    now = clock.now()
    with db.transaction() as session:
        batch = repo.claim_batch(session, batch_size, now, LEASE_S)
    if not batch:
        return 0
    ids, lease = [r.id for r in batch], now + LEASE_S
    try:
        _embed_and_store(db, embedder, batch, max_passages, lease)
    except Exception:
        with db.transaction() as session:
            repo.release(session, ids, lease)  # retried after the worker's backoff
        raise
    return len(batch)


def _embed_and_store(
    db: Database,
    embedder: Embedder,
    batch: Sequence[repo.PendingRecord],
    max_passages: int,
    lease: float,
) -> None:
    """Embed the batch with no transaction open, then store what is still pending and
    drop the batch's leases in one transaction."""
    ids = [r.id for r in batch]
    with_text = [r for r in batch if r.search_text.strip()]
    vectors = record_vectors(embedder, with_text, max_passages) if with_text else []
    with db.transaction() as session:
        live = repo.still_pending(session, ids)
        items = [(r.id, vec) for r, vec in zip(with_text, vectors, strict=True) if r.id in live]
        repo.store_vectors(session, db.tier, embedder.name, items)
        repo.mark(session, [rid for rid, _ in items], "done")
        empty = [r.id for r in batch if not r.search_text.strip() and r.id in live]
        repo.mark(session, empty, "skipped")  # nothing to embed
        repo.release(session, ids, lease)


def record_vectors(
    embedder: Embedder, records: Sequence[repo.PendingRecord], max_passages: int
) -> list[list[float]]:
    """One vector per record: its whole searchable text pooled with its passages
    (app/embedding/passages.py), every text embedded in one call. `max_passages` 0
    embeds the whole text alone."""
    groups = [_passages_beside(r, max_passages) for r in records]
    vectors = embedder.embed([r.search_text for r in records] + [p for g in groups for p in g])
    out: list[list[float]] = []
    start = len(records)
    for whole, group in zip(vectors, groups, strict=False):
        out.append(pooled(whole, vectors[start : start + len(group)]).tolist())
        start += len(group)
    return out


def _passages_beside(record: repo.PendingRecord, max_passages: int) -> list[str]:
    if not max_passages:
        return []
    found = passages(passage_text(record.type, record.payload), max_passages)
    # A record that is one sentence and nothing more (a fact, a skill's name) is its own
    # passage; pooling a vector with itself gives the same vector, so it is embedded once.
    return [] if found == [record.search_text.strip()] else found


class EmbeddingWorker:
    """A daemon thread draining the queue; polls every `interval_s` when it is empty."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        *,
        batch_size: int,
        interval_s: float,
        max_passages: int,
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.batch_size = batch_size
        self.max_passages = max_passages
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
        failures = drained = 0
        first_drain = True
        while not self._stop.is_set():
            try:
                settled = embed_pending(
                    self.db, self.embedder, self.batch_size, max_passages=self.max_passages
                )
                failures = 0
            except Exception:  # the worker must outlive a provider or database outage
                log.exception("embedding batch failed")
                failures += 1
                settled = 0
            drained += settled
            if settled >= self.batch_size:
                continue  # more may be waiting: drain without sleeping
            if drained:
                # The first time at info: "are the vectors there yet?" after a start, an
                # import or a backfill; later drains at debug (one per burst of captures).
                level = logging.INFO if first_drain else logging.DEBUG
                log.log(level, "embeddings up to date (%d records embedded)", drained)
                first_drain, drained = False, 0
            delay = self.interval_s * (2 ** min(failures, MAX_BACKOFF_STEPS))
            self._stop.wait(delay)
