"""The embedding provider of one process and, when enabled, its queue worker.

`pending` in readiness counts records waiting for a vector only while a provider is
active; with the `none` provider (or on PostgreSQL without pgvector) records keep
status 'pending' untouched, readiness reports 0, and a provider enabled later embeds
them (that is the backfill)."""

from __future__ import annotations

import logging

from app.config import EmbeddingSettings
from app.db import Database, Tier
from app.embedding import queue_repository as queue_repo
from app.embedding.providers import (
    Embedder,
    LocalEmbedder,
    NoneEmbedder,
    OpenAIEmbedder,
    build_embedder,
    is_active,
)
from app.embedding.schemas import EmbeddingStatus
from app.embedding.service import check_or_pin
from app.embedding.worker import EmbeddingWorker

log = logging.getLogger("membrane.embedding")


class EmbeddingRuntime:
    def __init__(self, db: Database, embedder: Embedder, worker: EmbeddingWorker | None) -> None:
        self.db = db
        self.embedder = embedder
        self.worker = worker

    @classmethod
    def start(
        cls, db: Database, cfg: EmbeddingSettings, run_worker: bool = True
    ) -> EmbeddingRuntime:
        """Build the provider, check/pin its model, and start the queue worker when
        enabled here (`run_worker` is False in an API process whose records are embedded
        by `python -m app.worker`)."""
        embedder: Embedder = build_embedder(cfg, queries_only=not run_worker)
        if is_active(embedder) and db.tier is Tier.postgres:
            log.warning(
                "embedding provider %r is configured but PostgreSQL has no pgvector (tier 2): "
                "retrieval runs on full-text and salience only",
                cfg.provider,
            )
            embedder = NoneEmbedder()
        worker = None
        if is_active(embedder):
            if isinstance(embedder, LocalEmbedder):
                embedder.load()  # a missing or wrong model stops start-up, not the first query
            check_or_pin(db, embedder.name, embedder.dimension)
            if cfg.worker_enabled and run_worker:
                worker = EmbeddingWorker(
                    db,
                    embedder,
                    batch_size=cfg.batch_size,
                    interval_s=cfg.worker_interval_s,
                    max_passages=cfg.max_passages,
                )
                worker.start()
        return cls(db, embedder, worker)

    def stop(self) -> None:
        if self.worker is not None:
            self.worker.stop()
        if isinstance(self.embedder, OpenAIEmbedder):
            self.embedder.close()

    @property
    def active_embedder(self) -> Embedder | None:
        """The provider requests embed their query with, or None without vectors."""
        return self.embedder if is_active(self.embedder) else None

    def status(self) -> EmbeddingStatus:
        """What readiness and Prometheus report: the live queue while a provider is
        active, otherwise nothing pending (records wait for a provider, not the worker)."""
        if not is_active(self.embedder):
            return EmbeddingStatus(provider=self.embedder.provider, model=None, pending=0)
        try:
            with self.db.transaction() as session:
                pending = queue_repo.count_pending(session)
        except Exception:  # readiness answers; the database check reports the outage
            log.exception("counting pending embeddings failed")
            pending = -1
        return EmbeddingStatus(
            provider=self.embedder.provider, model=self.embedder.name, pending=pending
        )
