"""Lifecycle benchmark: a full decay + prune sweep and a metrics snapshot over N records.

Seeds N synthetic records (mixed types, half-lives, curves, floors, max ages, statuses
and deletion policies) straight through the repository layer into a fresh store, then
times one decay job run (the same entry point the scheduler calls) and one metrics
snapshot.

    .venv/bin/python bench/lifecycle.py --store sqlite --records 200000 --out RESULT.json
    .venv/bin/python bench/lifecycle.py --store postgres --records 1000000 --out RESULT.json

`--state steady` (default) seeds `salience_swept` as the previous hourly sweep left it,
so the timed sweep is the next scheduled one; `--state cold` seeds it as creation leaves
it (never swept), the worst case of a first sweep after a bulk import.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from app.config import Settings  # noqa: E402
from app.db import Database  # noqa: E402
from app.enums import Sensitivity  # noqa: E402
from app.jobs.service import run_job  # noqa: E402
from app.metrics.service import snapshot  # noqa: E402
from app.migrate import upgrade  # noqa: E402
from app.records import repository as record_repo  # noqa: E402
from app.salience.decay import current_salience  # noqa: E402
from app.trust import TrustContext  # noqa: E402

HOUR, DAY = 3600.0, 86400.0
DEFAULT_RECORDS = {"sqlite": 200_000, "postgres": 1_000_000}
SEED_CHUNK = 10_000
ADMIN = TrustContext(ceiling=Sensitivity.hyper, scopes=None, actor_id="bench")

# type → (share, half-life, max age of the synthetic records)
TYPES: dict[str, tuple[float, float, float]] = {
    "episodic": (0.35, HOUR, 12 * HOUR),
    "working": (0.10, DAY, 7 * DAY),
    "entity": (0.15, 30 * DAY, 90 * DAY),
    "semantic": (0.25, 30 * DAY, 90 * DAY),
    "competence": (0.10, 30 * DAY, 90 * DAY),
    "plan_graph": (0.05, 30 * DAY, 90 * DAY),
}


def _choice(rng: random.Random, weighted: dict[str, float]) -> str:
    return rng.choices(list(weighted), weights=list(weighted.values()))[0]


def _payload(kind: str, i: int, rng: random.Random) -> dict[str, Any]:
    if kind == "episodic":
        return {"kind": kind, "summary": f"ran step {i}", "outcome": "success"}
    if kind == "working":
        return {"kind": kind, "thread_id": f"t{i % 1000}", "context_summary": f"state {i}"}
    if kind == "entity":
        return {"kind": kind, "canonical_name": f"entity {i}"}
    if kind == "semantic":
        return {"kind": kind, "subject": f"s{i}", "predicate": "related_to", "object": f"o{i}"}
    if kind == "competence":
        perf = {"success_count": rng.randint(0, 9), "failure_count": rng.randint(0, 3)}
        return {"kind": kind, "skill_name": f"skill {i}", "performance": perf}
    return {"kind": kind, "plan_id": f"p{i}", "intent": "ship", "metrics": {"execution_count": 3}}


def synthetic_record(i: int, now: float, rng: random.Random, cold: bool) -> dict[str, Any]:
    kind = _choice(rng, {k: v[0] for k, v in TYPES.items()})
    _, half_life, max_age_seen = TYPES[kind]
    created = now - rng.uniform(0, max_age_seen)
    t0 = rng.uniform(created, now)  # last reinforcement
    s0 = rng.uniform(0.3, 1.0)
    curve = "linear" if rng.random() < 0.2 else "exponential"
    floor = 0.05 if rng.random() < 0.1 else 0.0
    pinned = rng.random() < 0.02
    previous_sweep = t0 if cold else max(t0, now - HOUR)
    swept = current_salience(
        s0,
        t0,
        previous_sweep,
        half_life_s=half_life,
        curve=curve,
        min_salience=floor,
        pinned=pinned,
    )
    payload = _payload(kind, i, rng)
    return {
        "id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        "type": kind,
        "status": _choice(
            rng, {"active": 0.95, "contested": 0.02, "superseded": 0.02, "retracted": 0.01}
        ),
        "sensitivity": rng.randint(0, 3),
        "confidence": rng.uniform(0.5, 1.0),
        "scope": f"team-{i % 20}" if rng.random() < 0.5 else None,
        "tags": [],
        "created_at": created,
        "updated_at": t0,
        "salience_base": s0,
        "salience_t0": t0,
        "salience_swept": swept,
        "decay_curve": curve,
        "half_life_s": half_life,
        "min_salience": floor,
        "max_age_s": 7 * DAY if rng.random() < 0.1 else None,
        "reinforcement_gain": 0.1,
        "pinned": pinned,
        "deletion_policy": _choice(rng, {"auto_prune": 0.8, "manual_only": 0.15, "never": 0.05}),
        "created_by": "bench",
        "provenance": {},
        "interpretation": {},
        "payload": payload,
        "search_text": " ".join(str(v) for v in payload.values() if isinstance(v, str)),
        "embedding_status": "skipped",
    }


@contextmanager
def fresh_store(store: str) -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="membrane-lifecycle-") as tmp:
        if store == "sqlite":
            yield f"sqlite:///{Path(tmp) / 'membrane.db'}"
            return
        from pgserver.postgres_server import get_server

        server = get_server(Path(tmp) / "pg", cleanup_mode="stop")
        try:
            yield server.get_uri().replace("postgresql://", "postgresql+psycopg://", 1)
        finally:
            server.cleanup()


def seed(db: Database, n: int, now: float, cold: bool, rng: random.Random) -> None:
    done = 0
    while done < n:
        size = min(SEED_CHUNK, n - done)
        rows = [synthetic_record(done + j, now, rng, cold) for j in range(size)]
        with db.transaction() as session:
            record_repo.bulk_insert(session, rows)
        done += size
        if done % (10 * SEED_CHUNK) == 0 or done == n:
            print(f"  seeded {done:,}/{n:,}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> dict[str, Any]:
    n = args.records or DEFAULT_RECORDS[args.store]
    rng = random.Random(args.seed)
    with fresh_store(args.store) as url:
        upgrade(url)
        db = Database(url)
        settings = Settings(
            _env_file=None,
            database_url=url,
            scheduler={"enabled": False, "sweep_batch_size": args.batch_size},
        )
        now = time.time()
        t = time.perf_counter()
        seed(db, n, now, args.state == "cold", rng)
        seed_s = time.perf_counter() - t
        if args.store == "postgres":
            with db.engine.connect() as conn:  # what autovacuum would have done by now
                conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql(
                    "VACUUM ANALYZE records"
                )
        t = time.perf_counter()
        outcome = run_job(db, settings, "decay", "manual", now=now)
        sweep_s = time.perf_counter() - t
        assert outcome.run is not None and outcome.run.status == "succeeded", outcome
        counts = outcome.run.counts
        t = time.perf_counter()
        with db.transaction() as session:
            snap = snapshot(session, ADMIN, time.time())
        metrics_s = time.perf_counter() - t
        db.dispose()
    return {
        "store": args.store,
        "state": args.state,
        "records": n,
        "seed_s": round(seed_s, 3),
        "sweep_s": round(sweep_s, 3),
        "pruned": counts["pruned"],
        "swept": counts["swept"],
        "batches": counts["batches"],
        "sweep_records_per_s": round(n / sweep_s),
        "metrics_s": round(metrics_s, 3),
        "metrics_records_per_s": round(n / metrics_s),
        "metrics_total": snap.total,
        "batch_size": args.batch_size,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--records", type=int, default=0, help="default: 1M postgres, 200k sqlite")
    parser.add_argument("--state", choices=["steady", "cold"], default="steady")
    parser.add_argument("--batch-size", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    result = run(args)
    print(
        f"{result['records']:,} records ({args.store}, {args.state}): "
        f"sweep {result['sweep_s']:.2f}s ({result['sweep_records_per_s']:,} records/s, "
        f"{result['pruned']:,} pruned, {result['swept']:,} swept values refreshed); "
        f"metrics {result['metrics_s']:.2f}s ({result['metrics_records_per_s']:,} records/s)"
    )
    print(json.dumps(result, indent=2))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
