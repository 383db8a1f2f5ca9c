"""Start/stop of the embedding provider and its queue worker.

`pending` in readiness counts records waiting for a vector only while a provider is
active; with the `none` provider (or on PostgreSQL without pgvector) records keep
status 'pending' untouched, readiness reports 0, and a provider enabled later embeds
them (that is the backfill)."""

from __future__ import annotations

import logging

from app.db import Tier
from app.deps import AppState
from app.embedding.pinning import check_or_pin
from app.embedding.providers import (
    Embedder,
    LocalEmbedder,
    NoneEmbedder,
    OpenAIEmbedder,
    build_embedder,
)
from app.embedding.providers import is_active as provider_active
from app.embedding.worker import EmbeddingWorker
from app.embedding import queue_repository as repo
from app.health.schemas import EmbeddingStatus

log = logging.getLogger("membrane.embedding")


def start(state: AppState) -> None:
    """Build the provider, check/pin its model, start the worker when enabled."""
    cfg = state.settings.embedding
    embedder: Embedder = build_embedder(cfg)
    if provider_active(embedder) and state.db.tier is Tier.postgres:
        log.warning(
            "embedding provider %r is configured but PostgreSQL has no pgvector (tier 2): "
            "retrieval runs on full-text and salience only",
            cfg.provider,
        )
        embedder = NoneEmbedder()
    if provider_active(embedder):
        if isinstance(embedder, LocalEmbedder):
            embedder.load()  # a missing or wrong model stops start-up, not the first query
        check_or_pin(state.db, embedder.name, embedder.dimension)
    state.extras["embedder"] = embedder
    if provider_active(embedder) and cfg.worker_enabled:
        worker = EmbeddingWorker(
            state.db, embedder, batch_size=cfg.batch_size, interval_s=cfg.worker_interval_s
        )
        worker.start()
        state.extras["embedding_worker"] = worker

    def status() -> EmbeddingStatus:
        if not provider_active(embedder):
            return EmbeddingStatus(provider=embedder.provider, model=None, pending=0)
        try:
            with state.db.transaction() as session:
                pending = repo.count_pending(session)
        except Exception:  # readiness answers; the database check reports the outage
            log.exception("counting pending embeddings failed")
            pending = -1
        return EmbeddingStatus(provider=embedder.provider, model=embedder.name, pending=pending)

    state.extras["embedding_status"] = status


def stop(state: AppState) -> None:
    worker = state.extras.pop("embedding_worker", None)
    if isinstance(worker, EmbeddingWorker):
        worker.stop()
    embedder = state.extras.get("embedder")
    if isinstance(embedder, OpenAIEmbedder):
        embedder.close()


def active_embedder(state: AppState) -> Embedder | None:
    """The provider requests use to embed their query, or None without vectors."""
    embedder = state.extras.get("embedder")
    return embedder if provider_active(embedder) else None


def current_status(state: AppState) -> EmbeddingStatus:
    """What readiness and Prometheus report: the live queue while a provider is active,
    otherwise nothing pending (records wait for a provider, not for the worker)."""
    status = state.extras.get("embedding_status")
    if callable(status):
        result: EmbeddingStatus = status()
        return result
    return EmbeddingStatus(provider=state.settings.embedding.provider, model=None, pending=0)
