"""Scale benchmark: a store of N records (bench/scale_store.py says how it is shaped), then,
against a server started as production starts it (bench/harness.py: `python -m
app.serve` with --workers API processes, MEMBRANE_BACKGROUND=worker, one `python -m
app.worker`), over HTTP:

- retrieve p50/p95/p99, sequential, on questions not asked before (query embedding
  included, limit 10): one scope and all scopes, context expansion on and off;
- retrieve throughput at concurrency 1, 8 and 32 (each query made unique);
- graph retrieve p95; capture requests/s (8 clients) and records/s through
  /v1/capture/batch (batches of 500);
- embedding throughput and lag of the worker for what was just captured;
- recall@10 of the vector index against an exact scan (PostgreSQL; SQLite is exact);
- resident memory of the server processes.

    .venv/bin/python bench/scale.py --store postgres --records 100000
    .venv/bin/python bench/scale.py --store sqlite --records 200000 --reuse
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import REPO_ROOT, percentile, production_server, store_url
from rawhttp import RawConnection
from scale_store import SCOPES, Corpus, build, embed, load_corpus

from app.db import Database

DATA = REPO_ROOT.parent / "shared" / "bench" / "locomo" / "locomo-dev.json"
SERIES = 100  # questions per latency series


def latency_series(client: httpx.Client, questions: list[str], **body: Any) -> dict[str, float]:
    rng = random.Random(len(questions))
    samples = []
    for q in questions:
        payload = {"query": q, "limit": 10, **body}
        if payload.pop("one_scope", False):
            payload["scopes"] = [f"scale/{rng.randrange(SCOPES)}"]
        t0 = time.perf_counter()
        r = client.post("/v1/retrieve", json=payload)
        samples.append(time.perf_counter() - t0)
        r.raise_for_status()
    return {f"p{p}_ms": round(percentile(samples, p) * 1000, 1) for p in (50, 95, 99)}


async def throughput(url: str, questions: list[str], clients: int, seconds: float) -> float:
    done = 0
    deadline = time.monotonic() + seconds
    counter = iter(range(10**9))

    async def client() -> None:
        nonlocal done
        conn = RawConnection(url)
        rng = random.Random(clients)
        while time.monotonic() < deadline:
            # A unique suffix keeps the query-vector cache out of the measurement.
            q = f"{rng.choice(questions)} {next(counter)}"
            body = {"query": q, "limit": 10, "scopes": [f"scale/{rng.randrange(SCOPES)}"]}
            r = await conn.request("POST", "/v1/retrieve", body, timeout=30)
            done += r.status == 200
        await conn.close()

    t0 = time.monotonic()
    await asyncio.gather(*(client() for _ in range(clients)))
    return round(done / (time.monotonic() - t0), 1)


def capture_phase(url: str, corpus: Corpus, seconds: float) -> dict[str, float]:
    async def single() -> int:
        done = 0
        deadline = time.monotonic() + seconds

        async def client(k: int) -> None:
            nonlocal done
            conn, rng = RawConnection(url), random.Random(k)
            while time.monotonic() < deadline:
                body = {
                    "source": "scale",
                    "source_kind": "event",
                    "scope": "scale/new",
                    "summary": rng.choice(corpus.turns),
                }
                done += (await conn.request("POST", "/v1/capture", body, timeout=30)).status == 201
            await conn.close()

        await asyncio.gather(*(client(k) for k in range(8)))
        return done

    t0 = time.monotonic()
    singles = asyncio.run(single())
    single_rps = singles / (time.monotonic() - t0)
    batch_records = 0
    t0 = time.monotonic()
    with httpx.Client(base_url=url, timeout=120) as client:
        for b in range(5):
            items = [
                {
                    "source": "scale",
                    "source_kind": "event",
                    "scope": f"scale/batch{b}",
                    "summary": corpus.turns[(b * 500 + i) % len(corpus.turns)],
                }
                for i in range(500)
            ]
            r = client.post("/v1/capture/batch", json={"items": items})
            r.raise_for_status()
            batch_records += r.json()["created"]
    batch_rps = batch_records / (time.monotonic() - t0)
    return {
        "capture_single_rps": round(single_rps, 1),
        "capture_batch_records_per_s": round(batch_rps, 1),
        "captured": singles + batch_records,
    }


def embedding_lag(client: httpx.Client, captured: int) -> dict[str, float]:
    t0 = time.monotonic()
    pending = client.get("/readyz").json()["embedding"]["pending"]
    start = pending
    while pending > 0 and time.monotonic() - t0 < 600:
        time.sleep(1)
        pending = client.get("/readyz").json()["embedding"]["pending"]
    lag = time.monotonic() - t0
    return {
        "embedding_pending_after_capture": start,
        "embedding_lag_s": round(lag, 1),
        "embedding_records_per_s": round(start / lag, 1) if lag > 0 else 0.0,
    }


def vector_recall(db_url: str, questions: list[str]) -> dict[str, Any]:
    db = Database(db_url)
    if db.dialect != "postgresql":
        return {"recall_at_10": 1.0, "note": "SQLite ranks vectors by an exact scan"}
    vectors = embed(questions)
    hits = 0
    with db.engine.connect() as conn:
        conn.execute(text("SET hnsw.ef_search = 400"))  # what retrieve asks for (pool 200)
        for vec in vectors:
            lit = "[" + ",".join(f"{x:.6f}" for x in vec) + "]"
            sql = (
                "SELECT record_id FROM record_embeddings "
                "ORDER BY (embedding <=> CAST(:q AS vector)){} LIMIT 10"
            )
            approx = {r[0] for r in conn.execute(text(sql.format("")), {"q": lit})}
            # `+ 0` hides the ordering from the index: an exact scan.
            exact = {r[0] for r in conn.execute(text(sql.format(" + 0")), {"q": lit})}
            hits += len(approx & exact)
    db.dispose()
    return {"recall_at_10": round(hits / (10 * len(vectors)), 4), "ef_search": 400}


def measure(url: str, db_url: str, corpus: Corpus, args: argparse.Namespace) -> dict[str, Any]:
    qs = corpus.questions
    out: dict[str, Any] = {}
    with httpx.Client(base_url=url, timeout=60) as client:
        latency_series(client, qs[-20:], one_scope=True)  # warm-up
        series = {
            "one_scope_expand": {"one_scope": True},
            "all_scopes_expand": {},
            "one_scope_no_expand": {"one_scope": True, "expand_context": False},
            "all_scopes_no_expand": {"expand_context": False},
        }
        for k, (name, body) in enumerate(series.items()):
            out[f"retrieve_{name}"] = latency_series(
                client, qs[k * SERIES : (k + 1) * SERIES], **body
            )
            print(f"  retrieve {name}: {out[f'retrieve_{name}']}", file=sys.stderr)
        graph = qs[4 * SERIES : 4 * SERIES + 50]
        out["graph_retrieve"] = latency_series_graph(client, graph)
        for c in (1, 8, 32):
            out[f"retrieve_rps_c{c}"] = asyncio.run(throughput(url, qs, c, args.seconds))
            print(f"  throughput c{c}: {out[f'retrieve_rps_c{c}']}", file=sys.stderr)
        out |= capture_phase(url, corpus, args.seconds)
        out |= embedding_lag(client, out["captured"])
    out["vector"] = vector_recall(db_url, qs[500:700])
    return out


def latency_series_graph(client: httpx.Client, questions: list[str]) -> dict[str, float]:
    samples = []
    for q in questions:
        t0 = time.perf_counter()
        client.post("/v1/retrieve/graph", json={"query": q, "limit": 5}).raise_for_status()
        samples.append(time.perf_counter() - t0)
    return {f"p{p}_ms": round(percentile(samples, p) * 1000, 1) for p in (50, 95)}


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--store", choices=["sqlite", "postgres"], required=True)
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=2, help="API processes (PostgreSQL)")
    ap.add_argument("--seconds", type=float, default=10.0, help="per throughput phase")
    ap.add_argument("--reuse", action="store_true", help="keep and reuse the built store")
    ap.add_argument("--datadir", type=Path, default=Path("/tmp/membrane-scale"))
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    corpus = load_corpus(DATA)
    datadir = args.datadir / f"{args.store}-{args.records}"
    built = datadir / "built.json"
    workers = 1 if args.store == "sqlite" else args.workers
    with store_url(args.store, datadir) as db_url:
        if not (args.reuse and built.exists()):
            from app.migrate import upgrade

            upgrade(db_url)
            db = Database(db_url)
            built.write_text(json.dumps(build(db, corpus, args.records)))
            db.dispose()
        result: dict[str, Any] = {"store": args.store, "records": args.records}
        result["build"] = json.loads(built.read_text())
        with production_server(args.store, workers=workers, db_url=db_url) as server:
            result |= measure(server.url, db_url, corpus, args)
            result["server"] = server.describe()
    out = args.out or REPO_ROOT / "bench" / "results" / f"scale-{args.store}-{args.records}.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
