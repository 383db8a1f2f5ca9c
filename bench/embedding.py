"""Embedding worker throughput: N LoCoMo turns captured with no embedder (they wait as
pending), then the worker's batches run until none is pending, as `python -m app.worker`
runs them (`app.embedding.worker.Pipeline`: claim, embed with no transaction open, and
store on a writer thread while the next batch is embedded; `--serial`: one batch at a time,
`embed_pending`). Nothing else runs, so the figure is what the worker does with the whole machine.

Reported: records/s, the bench process's CPU ms per record (the model's lanes included;
PostgreSQL's server is another process), the texts and tokens embedded (each record's
whole text and its sentences), and the settings in force.

    .venv/bin/python bench/embedding.py --store sqlite --records 2000
    .venv/bin/python bench/embedding.py --store sqlite --records 2000 --lanes 1 --float
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import REPO_ROOT, load_locomo, phase, store_url
from latency import seed as seed_turns

from app.embedding.cores import available_cores


def seed(db_url: str, records: int) -> None:
    """Capture `records` LoCoMo lines with no embedder (all pending), as bench/latency.py
    seeds its store."""
    from fastapi.testclient import TestClient

    from app.config import Settings
    from app.main import create_app

    settings = Settings(
        _env_file=None,
        database_url=db_url,
        embedding={"provider": "none", "worker_enabled": False},
        scheduler={"enabled": False},
        rate_limit={"enabled": False},
    )
    with TestClient(create_app(settings)) as client:
        seed_turns(client, load_locomo().lines(), records)


def drain(args: argparse.Namespace, db_url: str) -> dict[str, Any]:
    """Run the worker's batches until nothing is pending; wall and CPU around them."""
    from app.config import DatabaseSettings, EmbeddingSettings
    from app.db import Database
    from app.embedding.providers import LocalEmbedder, build_embedder
    from app.embedding.service import check_or_pin
    from app.embedding.worker import Pipeline, embed_pending

    lanes, max_passages, batch_size = args.lanes, args.max_passages, args.batch_size
    cfg = EmbeddingSettings(
        threads=lanes,
        max_passages=max_passages,
        batch_size=batch_size,
        int8_activations=not args.float,
    )
    db = Database(db_url, DatabaseSettings())
    embedder = build_embedder(cfg)
    assert isinstance(embedder, LocalEmbedder)
    embedder.load()
    check_or_pin(db, embedder.name, embedder.dimension)
    embedder.embed(["warm the model up", "and its lanes, with a second text"])
    wall, cpu, settled = time.perf_counter(), time.process_time(), 0
    if args.serial:  # one batch at a time: claim, embed, store
        while batch := embed_pending(db, embedder, batch_size, max_passages=max_passages):
            settled += batch
    else:  # as the worker runs them: a batch stored while the next is embedded
        pipeline = Pipeline(db, embedder, batch_size, max_passages)
        while (batch := pipeline.step()) or pipeline.busy:
            settled += batch
        pipeline.close()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    db.dispose()
    return {
        "records": settled,
        "records_per_s": round(settled / wall, 1),
        "cpu_ms_per_record": round(1000 * cpu / max(settled, 1), 2),
        "wall_s": round(wall, 2),
        "lanes": embedder.threads,
        "pipelined": not args.serial,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--lanes", type=int, default=0, help="MEMBRANE_EMBEDDING__THREADS")
    parser.add_argument("--max-passages", type=int, default=16)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--float", action="store_true", help="the bundled float graph")
    parser.add_argument("--serial", action="store_true", help="no store beside the next embedding")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    with store_url(args.store) as db_url:
        from app.migrate import upgrade

        upgrade(db_url)
        with phase(f"seed {args.records} records"):
            seed(db_url, args.records)
        with phase("drain the embedding queue"):
            worker = drain(args, db_url)
    result = {
        "benchmark": "embedding",
        "store": args.store,
        "commit": _commit(),
        "cores": available_cores(),
        "max_passages": args.max_passages,
        "batch_size": args.batch_size,
        "int8_activations": not args.float,
        "worker": worker,
    }
    print(json.dumps(result, indent=2))
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


def _commit() -> str:
    out = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True
    )
    return out.stdout.strip()


if __name__ == "__main__":
    raise SystemExit(main())
