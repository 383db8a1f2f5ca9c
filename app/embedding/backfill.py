"""Backfill: queue records for the embedding worker after the provider changed.

`python -m app.embedding.backfill` queues every record without a vector of the pinned
model (e.g. records captured while the provider was `none`). With `--repin` it drops all
vectors and pins the configured model instead: the way to switch models. The running
server's worker (or the next start) then embeds the queue."""

from __future__ import annotations

import argparse
import sys

from app.config import get_settings
from app.db import Database
from app.embedding.service import repin, requeue_unembedded


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
    db = Database(settings.database_url, settings.database)
    try:
        if args.repin:
            count = repin(db, cfg.model, cfg.dimension)
            print(f"pinned {cfg.model!r} ({cfg.dimension} dimensions); queued {count} records")
        else:
            count = requeue_unembedded(db)
            print(f"queued {count} records")
    finally:
        db.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
