"""The embedding model and dimension are pinned in the database at first use; a server
configured for another model refuses to start (vectors of two models do not compare).
Backfill queues records lacking a vector of the pinned (or active) model; repin drops
every vector and pins a new model: the way to switch models."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from app.db import Database, Tier
from app.embedding import meta_repository as meta_repo
from app.embedding import queue_repository as repo
from app.embedding.providers import Embedder
from app.embedding.schemas import BackfillOut
from app.errors import Conflict
from app.models import EMBEDDING_DIMENSION_KEY as DIMENSION_KEY
from app.models import EMBEDDING_MODEL_KEY as MODEL_KEY

REPIN_HINT = "python -m app.embedding.backfill --repin"


class EmbeddingModelMismatch(RuntimeError):
    """Start-up refusal: the configured embedder differs from the one the data was made with."""


def check_or_pin(db: Database, model: str, dimension: int) -> None:
    """Pin (model, dimension) on first use; raise when a different pair is pinned."""
    with db.transaction() as session:
        if db.tier is Tier.pgvector:
            _check_column(meta_repo.pgvector_dimension(session), model, dimension)
        meta_repo.put_meta_if_absent(session, {MODEL_KEY: model, DIMENSION_KEY: str(dimension)})
        pinned = meta_repo.get_meta(session, [MODEL_KEY, DIMENSION_KEY])
    pinned_model, pinned_dim = pinned.get(MODEL_KEY), pinned.get(DIMENSION_KEY)
    if pinned_model != model or pinned_dim != str(dimension):
        raise EmbeddingModelMismatch(
            f"Embedding model mismatch: this database's vectors were made with "
            f"{pinned_model!r} ({pinned_dim} dimensions) but the server is configured for "
            f"{model!r} ({dimension} dimensions). Set MEMBRANE_EMBEDDING__MODEL and "
            f"MEMBRANE_EMBEDDING__DIMENSION back to the pinned values, or re-embed every "
            f"record with `{REPIN_HINT}`."
        )


def repin(db: Database, model: str, dimension: int) -> int:
    """Drop every vector, pin the new model and queue all records; returns how many."""
    with db.transaction() as session:
        if db.tier is Tier.pgvector:
            _check_column(meta_repo.pgvector_dimension(session), model, dimension)
        queued = repo.drop_all_vectors(session)
        meta_repo.put_meta(session, {MODEL_KEY: model, DIMENSION_KEY: str(dimension)})
    return queued


def _check_column(column_dim: int | None, model: str, dimension: int) -> None:
    if column_dim is not None and column_dim != dimension:
        raise EmbeddingModelMismatch(
            f"The pgvector column record_embeddings.embedding is vector({column_dim}) but "
            f"{model!r} makes {dimension}-dimensional vectors. Use a {column_dim}-dimensional "
            f"model, or migrate a new database with MEMBRANE_EMBEDDING__DIMENSION={dimension}."
        )


def requeue_for(session: Session, embedder: Embedder | None) -> BackfillOut:
    """Queue records lacking a vector of the active provider's model, inside the
    caller's unit of work; 409 when no provider is active."""
    if embedder is None:
        raise Conflict("No embedding provider is active (provider 'none' or no pgvector).")
    return BackfillOut(model=embedder.name, queued=repo.requeue_missing(session, embedder.name))


def requeue_unembedded(db: Database, model: str | None = None) -> int:
    """Queue records lacking a vector of `model` (default: the pinned one)."""
    with db.transaction() as session:
        target = model or meta_repo.get_meta(session, [MODEL_KEY]).get(MODEL_KEY)
        if target is None:
            return 0  # nothing pinned yet: every record is still pending
        return repo.requeue_missing(session, target)


def pinned(session: Session) -> tuple[str, int] | None:
    """The (model, dimension) this store's vectors were made with, once pinned."""
    meta = meta_repo.get_meta(session, [MODEL_KEY, DIMENSION_KEY])
    if MODEL_KEY not in meta or DIMENSION_KEY not in meta:
        return None
    return meta[MODEL_KEY], int(meta[DIMENSION_KEY])


def store_ready_vectors(
    session: Session, tier: Tier, model: str, items: Sequence[tuple[str, Sequence[float]]]
) -> None:
    """Store vectors made elsewhere (an import) for existing records and mark them
    embedded, inside the caller's unit of work."""
    repo.store_vectors(session, tier, model, items)
