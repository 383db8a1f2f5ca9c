"""Backfill: queue records for the embedding worker after the provider changed.

`python -m app.embedding.backfill` queues every record without a vector of the pinned
model (e.g. records captured while the provider was `none`). With `--repin` it drops all
vectors and pins the configured model instead: the way to switch models. The running
server's worker (or the next start) then embeds the queue."""

from __future__ import annotations

import argparse
import sys

from sqlalchemy.orm import Session

from app.config import get_settings
from app.db import Database
from app.embedding import meta_repository as meta_repo
from app.embedding import queue_repository as repo
from app.embedding.pinning import MODEL_KEY, repin
from app.embedding.providers import Embedder
from app.embedding.schemas import BackfillOut
from app.errors import Conflict


def requeue_for(session: Session, embedder: Embedder | None) -> BackfillOut:
    """Queue records lacking a vector of the active provider's model, inside the
    caller's unit of work; 409 when no provider is active."""
    if embedder is None:
        raise Conflict("No embedding provider is active (provider 'none' or no pgvector).")
    return BackfillOut(model=embedder.name, queued=repo.requeue_missing(session, embedder.name))


def requeue_missing(db: Database, model: str | None = None) -> int:
    """Queue records lacking a vector of `model` (default: the pinned one)."""
    with db.transaction() as session:
        target = model or meta_repo.get_meta(session, [MODEL_KEY]).get(MODEL_KEY)
        if target is None:
            return 0  # nothing pinned yet: every record is still pending
        return repo.requeue_missing(session, target)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--repin", action="store_true", help="drop all vectors and pin the configured model"
    )
    args = parser.parse_args(argv)
    settings = get_settings()
    cfg = settings.embedding
    if cfg.provider == "none":
        print("MEMBRANE_EMBEDDING__PROVIDER is 'none': nothing to embed.", file=sys.stderr)
        return 2
    db = Database(settings.database_url)
    try:
        if args.repin:
            count = repin(db, cfg.model, cfg.dimension)
            print(f"pinned {cfg.model!r} ({cfg.dimension} dimensions); queued {count} records")
        else:
            count = requeue_missing(db)
            print(f"queued {count} records")
    finally:
        db.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
