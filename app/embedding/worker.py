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
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager

from app import clock
from app.db import Database
from app.embedding import planner_stats_repository as stats_repo
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
# How often an idle worker gives vector rows without a scope their record's (at most
# SCOPE_REPAIR_ROWS at a time): a worker of the previous release writes such rows while a
# release with migration 0015 rolls out, and every scoped vector search reads them. Few:
# on PostgreSQL each filled row is a new HNSW entry (~10 ms), its row locked meanwhile.
SCOPE_REPAIR_EVERY_S = 60.0
SCOPE_REPAIR_ROWS = 100


def embed_pending(db: Database, embedder: Embedder, batch_size: int, *, max_passages: int) -> int:
    """Embed one batch of pending records; returns how many records it settled."""
    claimed = claim(db, batch_size)
    if claimed is None:
        return 0
    batch, lease = claimed
    vectors = embed_claimed(db, embedder, batch, lease, max_passages)
    return store_claimed(db, embedder.name, batch, vectors, lease)


Vectors = dict[str, list[float]]  # record id → its vector (the records with text)


Claimed = tuple[list[repo.PendingRecord], float]  # the batch and its lease's end


def claim(db: Database, batch_size: int) -> Claimed | None:
    """Lease the next batch of pending records in one short transaction (None: none)."""
    now = clock.now()
    with db.transaction() as session:
        batch = repo.claim_batch(session, batch_size, now, LEASE_S)
    return (list(batch), now + LEASE_S) if batch else None


def embed_claimed(
    db: Database,
    embedder: Embedder,
    batch: Sequence[repo.PendingRecord],
    lease: float,
    max_passages: int,
) -> Vectors:
    """The vectors of the batch's records with text, with no transaction open; on
    failure its leases are dropped (retried after the worker's backoff)."""
    with_text = [r for r in batch if r.search_text.strip()]
    with _released_on_failure(db, batch, lease):
        vectors = record_vectors(embedder, with_text, max_passages) if with_text else []
    return {r.id: vec for r, vec in zip(with_text, vectors, strict=True)}


def store_claimed(
    db: Database,
    model: str,
    batch: Sequence[repo.PendingRecord],
    vectors: Vectors,
    lease: float,
) -> int:
    """Store the vectors of what is still pending and drop the batch's leases in one
    transaction (a record without text is marked skipped); returns how many records the
    batch had."""
    ids = [r.id for r in batch]
    with _released_on_failure(db, batch, lease), db.transaction() as session:
        live = repo.still_pending(session, ids)
        items = [(rid, vec) for rid, vec in vectors.items() if rid in live]
        repo.store_vectors(session, db.tier, model, items)
        empty = [rid for rid in ids if rid not in vectors and rid in live]
        repo.mark(session, empty, "skipped")  # nothing to embed
        repo.release(session, ids, lease)
    return len(batch)


@contextmanager
def _released_on_failure(
    db: Database, batch: Sequence[repo.PendingRecord], lease: float
) -> Iterator[None]:
    try:
        yield
    except Exception:
        with db.transaction() as session:
            repo.release(session, [r.id for r in batch], lease)
        raise


class Pipeline:
    """The worker's batches with the store of one overlapping the embedding of the next:
    while the model's lanes embed batch N+1, a writer thread stores batch N (the
    transaction, the driver's and SQLAlchemy's Python), so the cores do not wait for the
    database between batches."""

    def __init__(self, db: Database, embedder: Embedder, batch_size: int, max_passages: int):
        self.db, self.embedder = db, embedder
        self.batch_size, self.max_passages = batch_size, max_passages
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="membrane-embedding-store")
        self._storing: Future[int] | None = None

    def step(self) -> int:
        """Claim and embed the next batch and hand it to the writer; returns how many
        records the store before it settled (0 once nothing is pending and stored),
        raising what that store or this embedding raised (a failed embedding has dropped
        its leases; an embedded batch is handed on even when the store before it failed)."""
        claimed = claim(self.db, self.batch_size)
        if claimed is None:
            return self.finish()
        batch, lease = claimed
        previous, self._storing = self._storing, None
        try:
            vectors = embed_claimed(self.db, self.embedder, batch, lease, self.max_passages)
            args = (self.db, self.embedder.name, batch, vectors, lease)
            self._storing = self._writer.submit(store_claimed, *args)
        finally:
            settled = 0 if previous is None else previous.result()
        return settled

    @property
    def busy(self) -> bool:
        """A batch is being stored: the next step settles it."""
        return self._storing is not None

    def finish(self) -> int:
        """Wait for the store in flight; how many records it settled."""
        storing, self._storing = self._storing, None
        return 0 if storing is None else storing.result()

    def close(self) -> None:
        try:
            self.finish()
        finally:
            self._writer.shutdown(wait=True)


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
        self._repaired_at = float("-inf")

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="membrane-embedding", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        pipeline = Pipeline(self.db, self.embedder, self.batch_size, self.max_passages)
        try:
            self._drain(pipeline)
        finally:
            pipeline.close()

    def _drain(self, pipeline: Pipeline) -> None:
        failures = drained = 0
        first_drain = True
        while not self._stop.is_set():
            try:
                settled = pipeline.step()
                failures = 0
            except Exception:  # the worker must outlive a provider or database outage
                log.exception("embedding batch failed")
                failures += 1
                settled = 0
            drained += settled
            if not failures and (pipeline.busy or settled >= self.batch_size):
                continue  # more may be waiting: drain without sleeping
            if drained:
                # The first time at info: "are the vectors there yet?" after a start, an
                # import or a backfill; later drains at debug (one per burst of captures).
                level = logging.INFO if first_drain else logging.DEBUG
                log.log(level, "embeddings up to date (%d records embedded)", drained)
                first_drain, drained = False, 0
                self._refresh_planner_stats()
            if not failures:
                self._repair_scopes()
            delay = self.interval_s * (2 ** min(failures, MAX_BACKOFF_STEPS))
            self._stop.wait(delay)

    def _refresh_planner_stats(self) -> None:
        """SQLite: after a burst of captures is embedded, the planner's statistics taken
        again when the records table has outgrown them (`planner_stats_repository`): until
        the next decay sweep a store filled after start-up kept statistics of a few rows."""
        if self.db.dialect != "sqlite":
            return  # PostgreSQL analyzes on its own: no transaction a burst for nothing
        try:
            with self.db.read_transaction() as session:
                stale = stats_repo.planner_stats_stale(session)
            if stale:
                self.db.refresh_planner_stats()
        except Exception:  # statistics are an optimisation: the worker goes on without
            log.exception("refreshing the planner statistics failed")

    def _repair_scopes(self) -> None:
        """Fill vector rows without a scope, at most once every SCOPE_REPAIR_EVERY_S."""
        now = time.monotonic()
        if now - self._repaired_at < SCOPE_REPAIR_EVERY_S:
            return
        self._repaired_at = now
        try:
            with self.db.transaction() as session:
                filled = repo.fill_missing_scopes(session, SCOPE_REPAIR_ROWS)
        except Exception:
            log.exception("filling the scopes of vector rows failed")
            return
        if filled:
            log.info("gave %d vector rows their record's scope", filled)
