"""Goodput against API processes: the load ramp of bench/load.py run once per process
count against one store (seeded once), each with its own `python -m app.serve` (N
workers) plus `python -m app.worker`.

Per process count: the peak goodput (2xx/s) of the ramp, its steps, and the largest drop
between consecutive steps after the peak (the "dip"). `--without-rebalance N` adds one
more ramp at N processes with connection rebalancing off
(MEMBRANE_CAPACITY__REBALANCE_CONNECTIONS=false), the behaviour before it existed.
`--replica-at N` (PostgreSQL) makes the store a primary with a streaming standby
(pg_basebackup -R, tests/replica_support.py) and adds one more ramp at N processes with
reads on the standby (MEMBRANE_DATABASE__READ_URLS). `--worker-threads N` caps the
embedding worker's ONNX threads (the API processes use one each for queries).

    .venv/bin/python bench/scaling.py --store postgres --processes 1,2,4,8,16 \\
        --without-rebalance 8 --out bench/results/scaling-postgres-16cores.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import LOCOMO, PG_SETTINGS, REPO_ROOT, production_server, store_url
from load import Corpus, load_corpus, ramp


def dip(steps: Sequence[dict[str, Any]]) -> float:
    """The largest fall of goodput from one step to the next after the peak, as a
    fraction of the step before it (0.0 when goodput never falls)."""
    goodput: list[float] = [s["goodput_rps"] for s in steps]
    peak_at = goodput.index(max(goodput))
    falls = [
        (before - after) / before
        for before, after in zip(goodput[peak_at:], goodput[peak_at + 1 :], strict=False)
        if before > 0
    ]
    return round(max([0.0, *falls]), 3)


def one_ramp(
    url: str, processes: int, corpus: Corpus, args: argparse.Namespace, seed: int, **env: str
) -> dict[str, Any]:
    corpus.acknowledged = []  # each ramp verifies its own captures
    ramp_args = argparse.Namespace(**{**vars(args), "seed": seed})
    # Connections sized to what a process can use at once (max_in_flight, plus the
    # request-less work of a process), so that 16 processes fit max_connections. The
    # servers inherit this process's environment (harness.server_env).
    sized = {
        "MEMBRANE_DATABASE__POOL_SIZE": str(args.max_in_flight + 2),
        "MEMBRANE_DATABASE__MAX_OVERFLOW": "2",
        "MEMBRANE_CAPACITY__MAX_IN_FLIGHT": str(args.max_in_flight),
    }
    os.environ.update(sized | env)
    try:
        with production_server(args.store, workers=processes, db_url=url) as server:
            print(f"== {processes} API processes {env or ''}", file=sys.stderr, flush=True)
            result = asyncio.run(ramp(server.url, None, corpus, ramp_args))
            result["server"] = server.describe()
            # One process's view of its replicas (reads served, lag): empty without them.
            result["replicas"] = httpx.get(f"{server.url}/readyz").json().get("replicas", [])
    finally:
        for name in env:
            os.environ.pop(name, None)
    result["dip_after_peak"] = dip(result["steps"])
    return result


@contextmanager
def store(args: argparse.Namespace) -> Iterator[tuple[str, str | None]]:
    """(the store's URL, its standby's URL or None)."""
    if not args.replica_at:
        with store_url(args.store) as url:
            yield url, None
        return
    sys.path.insert(0, str(REPO_ROOT))
    from tests.replica_support import primary_with_standby

    with primary_with_standby(PG_SETTINGS) as (primary, standby):
        url = re.sub(r"^postgres(ql)?://", "postgresql+psycopg://", primary.get_uri())
        yield url, standby.uri("postgres")


def summarise(
    runs: dict[str, dict[str, Any]], args: argparse.Namespace, started: float
) -> dict[str, Any]:
    by_processes = {n: r["peak_goodput_rps"] for n, r in runs.items()}
    base = next(iter(by_processes.values()))
    return {
        "store": args.store,
        "cpu_count": os.cpu_count(),
        "step_seconds": args.step_seconds,
        "max_in_flight": args.max_in_flight,
        "by_processes": by_processes,
        "ratio_to_first": {n: round(v / base, 2) if base else 0.0 for n, v in by_processes.items()},
        "dip_after_peak": {n: r["dip_after_peak"] for n, r in runs.items()},
        "runs": runs,
        "elapsed_s": round(time.monotonic() - started, 1),
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--store", choices=["sqlite", "postgres"], default="postgres")
    ap.add_argument("--processes", default="1,2,4", help="API process counts, comma-separated")
    ap.add_argument("--without-rebalance", type=int, help="one more ramp at this count, off")
    ap.add_argument("--replica-at", type=int, help="one more ramp at this count, on a standby")
    ap.add_argument("--worker-threads", type=int, help="the embedding worker's ONNX threads")
    ap.add_argument("--seed", type=int, default=2_000, help="records captured before the first")
    ap.add_argument("--step-seconds", type=float, default=5.0)
    ap.add_argument("--max-requests", type=int, default=20_000, help="per step")
    ap.add_argument("--max-clients", type=int, default=128, help="last step of each ramp")
    ap.add_argument("--max-in-flight", type=int, default=4, help="per process")
    ap.add_argument("--data", type=Path, default=LOCOMO)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    args.client = "raw"
    counts = [int(n) for n in args.processes.split(",")]
    corpus = load_corpus(args.data)
    out = args.out or REPO_ROOT / "bench" / "results" / f"scaling-{args.store}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    runs: dict[str, dict[str, Any]] = {}
    started = time.monotonic()
    result: dict[str, Any] = {}
    if args.worker_threads:
        os.environ["MEMBRANE_EMBEDDING__THREADS"] = str(args.worker_threads)
    with store(args) as (url, standby_url):
        seed = args.seed
        for count in counts:
            runs[str(count)] = one_ramp(url, count, corpus, args, seed)
            seed = 0  # the store keeps what the first ramp seeded (and every capture since)
            result = summarise(runs, args, started)
            out.write_text(json.dumps(result, indent=2) + "\n")  # kept if a later one fails
        if args.without_rebalance:
            off = one_ramp(
                url,
                args.without_rebalance,
                corpus,
                args,
                0,
                MEMBRANE_CAPACITY__REBALANCE_CONNECTIONS="false",
            )
            result = summarise(runs, args, started)
            result["without_rebalance"] = {
                "processes": args.without_rebalance,
                "peak_goodput_rps": off["peak_goodput_rps"],
                "dip_after_peak": off["dip_after_peak"],
                "run": off,
            }
        if args.replica_at and standby_url:
            on = one_ramp(
                url, args.replica_at, corpus, args, 0, MEMBRANE_DATABASE__READ_URLS=standby_url
            )
            result["with_replica"] = {
                "processes": args.replica_at,
                "peak_goodput_rps": on["peak_goodput_rps"],
                "without_replica_rps": runs.get(str(args.replica_at), {}).get("peak_goodput_rps"),
                "dip_after_peak": on["dip_after_peak"],
                "run": on,
            }
    summary = {k: result[k] for k in ("by_processes", "ratio_to_first", "dip_after_peak")}
    print(json.dumps(summary))
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
