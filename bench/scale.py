"""Scale benchmark: a store of N records (bench/scale_store.py says how it is shaped), then,
against a server started as production starts it (bench/harness.py: `python -m
app.serve` with --workers API processes, MEMBRANE_BACKGROUND=worker and one `python -m
app.worker`), over HTTP:

- retrieve p50/p95/p99, sequential, on questions not asked before (query embedding
  included, limit 10): one scope and all scopes, context expansion on and off;
- graph retrieve p50/p95/p99 (sequential, unseen questions);
- retrieve throughput at concurrency 1, 8 and 32 (one scope; each query made unique so
  the query-vector cache never answers);
- capture requests/s (8 clients) and records/s through /v1/capture/batch (batches of
  500); then the worker's embedding lag and throughput for what was just captured;
- recall@10 of the HNSW index against an exact scan (PostgreSQL; SQLite is exact);
- resident memory of the server processes.

    .venv/bin/python bench/scale.py --store sqlite --records 200000 --reuse
    .venv/bin/python bench/scale.py --store postgres --records 1000000 --reuse
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (
    LOCOMO,
    REPO_ROOT,
    Progress,
    Server,
    latency_ms,
    load_locomo,
    phase,
    postmaster_running,
    production_server,
    retry_after_s,
    store_url,
    wipe,
)
from rawhttp import RawConnection, RawResponse
from scale_store import SCOPES, Corpus, build, count_records, embed, scope_name

from app.config import Settings
from app.db import Database

CAPTURE_CLIENTS = 8
BATCH_SIZE = 500
TIMEOUT_S = 60.0


class Questions:
    """LoCoMo questions handed out once each; when they run out, numbered variants (a
    new text is a new query embedding, so nothing is served from a cache)."""

    def __init__(self, questions: list[str]) -> None:
        self.all = questions
        self.next = 0

    def take(self, n: int) -> list[str]:
        out = []
        for _ in range(n):
            q = self.all[self.next % len(self.all)]
            lap = self.next // len(self.all)
            out.append(q if lap == 0 else f"{q} ({lap})")
            self.next += 1
        return out


@dataclass
class Load:
    """Outcome of a closed-loop phase: every client sends its next request as soon as the
    previous one is answered."""

    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    records: int = 0

    def ok(self) -> int:
        return sum(n for code, n in self.statuses.items() if code.startswith("2"))

    def summary(self, unit: str = "rps") -> dict[str, Any]:
        rate = self.ok() / self.seconds if self.seconds else 0.0
        return {
            unit: round(rate, 1),
            "requests": sum(self.statuses.values()),
            **latency_ms(self.latencies),
            "statuses": dict(sorted(self.statuses.items())),
        }


Send = Callable[[RawConnection, random.Random], Awaitable[RawResponse]]


async def closed_loop(url: str, clients: int, seconds: float, cap: int, send: Send) -> Load:
    load = Load()
    deadline = time.monotonic() + seconds

    async def client(k: int) -> None:
        conn, rng = RawConnection(url), random.Random(k * 7919 + clients)
        while time.monotonic() < deadline and sum(load.statuses.values()) < cap:
            t0 = time.perf_counter()
            try:
                status = str((await send(conn, rng)).status)
            except TimeoutError:
                status = "timeout"
            except (OSError, asyncio.IncompleteReadError) as exc:
                status = type(exc).__name__
            load.latencies.append(time.perf_counter() - t0)
            load.statuses[status] += 1
        await conn.close()

    t0 = time.monotonic()
    await asyncio.gather(*(client(k) for k in range(clients)))
    load.seconds = time.monotonic() - t0
    return load


# ------------------------------------------------------------------------- phases


def sequential(
    client: httpx.Client,
    path: str,
    questions: list[str],
    label: str,
    scopes: int | None = None,
    **body: Any,
) -> dict[str, Any]:
    """p50/p95/p99 of one request after the other; with `scopes`, each asks one scope
    picked at random among that many, else all scopes."""
    rng = random.Random(len(questions))
    samples: list[float] = []
    failures: Counter[str] = Counter()
    bar = Progress(label, len(questions))
    for q in questions:
        payload = {"query": q, "limit": 10, **body}
        if scopes:
            payload["scopes"] = [scope_name(rng.randrange(scopes))]
        t0 = time.perf_counter()
        r = client.post(path, json=payload)
        samples.append(time.perf_counter() - t0)
        if r.status_code != 200:
            failures[str(r.status_code)] += 1
        bar.advance()
    return {**latency_ms(samples), "n": len(samples), "failed": dict(failures)}


def warm_up(client: httpx.Client, corpus: Corpus, scopes: int) -> None:
    """Bring the store into memory as a serving instance has it: one retrieve in every
    scope and fifty across all of them, asking turns of the corpus (not the questions
    measured afterwards, so no query vector is cached for them). Without it the first
    series paid for reading the store from disk (4 retrieves/s at 1M records)."""
    rng = random.Random(11)
    bar = Progress("warm-up: every scope", scopes + 50)
    for k in [*range(scopes), *([None] * 50)]:
        body: dict[str, Any] = {"query": rng.choice(corpus.turns)[1], "limit": 10}
        if k is not None:
            body["scopes"] = [scope_name(k)]
        client.post("/v1/retrieve", json=body)
        bar.advance()


def throughput(url: str, questions: list[str], clients: int, args: argparse.Namespace) -> Load:
    serial = iter(range(10**9))

    async def send(conn: RawConnection, rng: random.Random) -> RawResponse:
        # A unique suffix keeps the query-vector cache out of the measurement.
        body = {
            "query": f"{rng.choice(questions)} #{next(serial)}",
            "limit": 10,
            "scopes": [scope_name(rng.randrange(args.scopes))],
        }
        return await conn.request("POST", "/v1/retrieve", body, timeout=TIMEOUT_S)

    with phase(f"retrieve throughput, {clients} clients, {args.seconds:.0f}s"):
        return asyncio.run(closed_loop(url, clients, args.seconds, args.max_requests, send))


def capture_item(corpus: Corpus, rng: random.Random, scopes: int) -> dict[str, Any]:
    """A LoCoMo turn said in one of the store's scopes, naming its speaker as an entity
    (so capture resolves the scope's person entity, as an agent's capture would)."""
    k = rng.randrange(scopes)
    names = corpus.names_of(k)
    speaker, said = rng.choice(corpus.turns)
    line = corpus.rename.sub(lambda m: names[m.group(1)], f"{speaker}: {said}")
    name = names[speaker]
    return {
        "source": "scale",
        "source_kind": "event",
        "scope": scope_name(k),
        "summary": line,
        "content": {"speaker": name, "text": line.partition(": ")[2], "entities": [name]},
    }


def capture_single(url: str, corpus: Corpus, args: argparse.Namespace) -> dict[str, Any]:
    records = 0

    async def send(conn: RawConnection, rng: random.Random) -> RawResponse:
        nonlocal records
        r = await conn.request("POST", "/v1/capture", capture_item(corpus, rng, args.scopes))
        if r.status == 201:
            records += 1 + len(r.json()["created_records"])
        return r

    with phase(f"capture, {CAPTURE_CLIENTS} clients, {args.seconds:.0f}s"):
        load = asyncio.run(closed_loop(url, CAPTURE_CLIENTS, args.seconds, args.max_requests, send))
    return {**load.summary(), "records_created": records}


def capture_batches(client: httpx.Client, corpus: Corpus, args: argparse.Namespace) -> Any:
    rng = random.Random(99)
    created = records = 0
    samples: list[float] = []
    bar = Progress(f"capture batches of {BATCH_SIZE}", args.batches * BATCH_SIZE)
    t0 = time.perf_counter()
    for _ in range(args.batches):
        items = [capture_item(corpus, rng, args.scopes) for _ in range(BATCH_SIZE)]
        for _attempt in range(5):
            started = time.perf_counter()
            r = client.post("/v1/capture/batch", json={"items": items}, timeout=300)
            samples.append(time.perf_counter() - started)
            if r.status_code != 503:
                break
            time.sleep(retry_after_s(r.headers.get("retry-after")) or 1.0)
        if r.status_code in (404, 405):
            return {"skipped": f"/v1/capture/batch answered {r.status_code}"}
        if r.status_code != 200:
            print(file=sys.stderr)
            return {"failed": f"/v1/capture/batch answered {r.status_code}: {r.text[:300]}"}
        body = r.json()
        created += body["created"]
        for item in body["results"]:
            if item["status"] == 201:
                records += 1 + len(item["result"]["created_records"])
        bar.advance(BATCH_SIZE)
    seconds = time.perf_counter() - t0
    return {
        "items_per_s": round(created / seconds, 1),
        "records_per_s": round(records / seconds, 1),
        "items_created": created,
        "records_created": records,
        "batch_ms": latency_ms(samples, (50, 99)),
    }


def _drain(client: httpx.Client, label: str, limit_s: float) -> tuple[int, int, float]:
    """Poll /readyz until the worker has nothing pending or `limit_s` passed: (pending at
    the start, still pending, seconds waited)."""
    t0 = time.monotonic()
    start = pending = int(client.get("/readyz").json()["embedding"]["pending"])
    bar = Progress(label, start) if start else None
    while pending > 0 and time.monotonic() - t0 < limit_s:
        time.sleep(0.5)
        pending = int(client.get("/readyz").json()["embedding"]["pending"])
        if bar is not None:
            bar.update(start - pending)
    if pending:
        print(file=sys.stderr)  # the bar stopped short of its end
    return start, pending, time.monotonic() - t0


def backlog_drain(client: httpx.Client, limit_s: float) -> dict[str, Any]:
    """Wait until the worker has embedded what a reused store already held unembedded
    (captured by an earlier run or another tool): it would otherwise embed that backlog
    during the retrieve phases, on the cores they measure (a backlog of 37,000 records
    doubled graph retrieve p95 at 1M)."""
    start, pending, waited = _drain(client, "embedding the store's backlog", limit_s)
    return {"pending_at_start": start, "drained_s": round(waited, 1), "still_pending": pending}


def embedding_drain(client: httpx.Client, captured: int, limit_s: float) -> dict[str, Any]:
    """From the end of the capture phases until /readyz shows nothing pending."""
    start, pending, lag = _drain(client, "embedding what was captured", limit_s)
    return {
        "records_captured": captured,
        "pending_at_end_of_capture": start,
        "lag_s": round(lag, 1),
        "records_per_s": round((start - pending) / lag, 1) if lag > 0 else 0.0,
        "still_pending": pending,
    }


def vector_recall(db_url: str, questions: list[str], limit_s: float) -> dict[str, Any]:
    """recall@10 of the HNSW index against an exact scan, at pgvector's default ef_search
    (40), at 400 and at the one retrieve sets (MEMBRANE_RANKING__EF_SEARCH)."""
    db = Database(db_url)
    try:
        if db.dialect != "postgresql":
            return {
                "recall_at_10": 1.0,
                "note": "SQLite has no approximate index: retrieve ranks the vectors of "
                "every filtered record exactly (app/retrieve/vector_cache.py)",
            }
        return _pg_recall(db, questions, limit_s)
    finally:
        db.dispose()


# A returned record at the distance of the exact 10th neighbour (within float rounding) is
# as near as it: the store holds exact copies of some vectors (an entity's name embeds
# alike in every scope), and which ten of 200 equal vectors an exact scan lists is
# arbitrary. As ann-benchmarks counts recall; the id-for-id figure is reported too.
TIE_EPSILON = 1e-6


def _pg_recall(db: Database, questions: list[str], limit_s: float) -> dict[str, Any]:
    retrieve_ef = Settings().ranking.ef_search
    efs = sorted({40, 400, retrieve_ef})
    vectors = embed(questions, "embedding recall queries")
    sql = (
        "SELECT record_id, embedding <=> CAST(:q AS vector) FROM record_embeddings "
        "ORDER BY (embedding <=> CAST(:q AS vector)){} LIMIT 10"
    )
    ties, same = dict.fromkeys(efs, 0), dict.fromkeys(efs, 0)
    done = 0
    bar = Progress("recall@10: index vs exact", len(vectors))
    deadline = time.monotonic() + limit_s
    with db.engine.connect() as conn:
        literals = ["[" + ",".join(f"{x:.6f}" for x in vec) + "]" for vec in vectors]
        with conn.begin():
            explain = conn.execute(text("EXPLAIN " + sql.format("")), {"q": literals[0]})
            plan = " ".join(str(row[0]) for row in explain)
        for literal in literals:
            if time.monotonic() > deadline:
                print(file=sys.stderr)
                break
            with conn.begin():
                # Exact: `+ 0` hides the ordering from the index; index scans off too.
                conn.execute(text("SET LOCAL enable_indexscan = off"))
                exact = conn.execute(text(sql.format(" + 0")), {"q": literal}).all()
            tenth = max(float(d) for _, d in exact)
            for ef in efs:
                with conn.begin():
                    conn.execute(text(f"SET LOCAL hnsw.ef_search = {ef}"))
                    rows = conn.execute(text(sql.format("")), {"q": literal}).all()
                same[ef] += len({r for r, _ in rows} & {r for r, _ in exact})
                ties[ef] += sum(1 for _, d in rows if float(d) <= tenth + TIE_EPSILON)
            done += 1
            bar.update(done)
    out: dict[str, Any] = {"queries": done, "index_used": "ix_record_embeddings_hnsw" in plan}
    out["retrieve_ef_search"] = retrieve_ef
    for ef in efs:
        out[f"recall_at_10_ef{ef}"] = round(ties[ef] / (10 * done), 4) if done else None
        out[f"id_recall_at_10_ef{ef}"] = round(same[ef] / (10 * done), 4) if done else None
    return out


def measure(server: Server, corpus: Corpus, args: argparse.Namespace) -> dict[str, Any]:
    questions = Questions(corpus_questions(args))
    sample = random.Random(3).sample(questions.all, min(200, len(questions.all)))
    out: dict[str, Any] = {}
    with httpx.Client(base_url=server.url, timeout=TIMEOUT_S) as client:
        out["backlog"] = backlog_drain(client, args.phase_limit)
        warm_up(client, corpus, args.scopes)
        out["rss_mb_after_warmup"] = server.rss_mb()
        series: dict[str, dict[str, Any]] = {
            "one_scope_expand": {"scopes": args.scopes},
            "all_scopes_expand": {},
            "one_scope_no_expand": {"scopes": args.scopes, "expand_context": False},
            "all_scopes_no_expand": {"expand_context": False},
        }
        out["retrieve_ms"] = {
            name: sequential(client, "/v1/retrieve", questions.take(args.series), name, **body)
            for name, body in series.items()
        }
        out["graph_retrieve_ms"] = sequential(
            client,
            "/v1/retrieve/graph",
            questions.take(max(1, args.series // 2)),
            "graph retrieve",
            scopes=args.scopes,
        )
        out["retrieve_throughput"] = {
            f"c{c}": throughput(server.url, sample, c, args).summary() for c in (1, 8, 32)
        }
        out["capture_single_c8"] = capture_single(server.url, corpus, args)
        out["capture_batch"] = capture_batches(client, corpus, args)
        captured = out["capture_single_c8"]["records_created"]
        captured += out["capture_batch"].get("records_created", 0)
        out["embedding"] = embedding_drain(client, captured, args.phase_limit)
    out["vector_index"] = vector_recall(
        server.db_url, questions.take(args.recall_queries), args.phase_limit
    )
    out["server"] = server.describe()
    return out


def corpus_questions(args: argparse.Namespace) -> list[str]:
    questions = load_locomo(args.data).questions
    random.Random(5).shuffle(questions)
    return questions


# --------------------------------------------------------------------------- main


def prepare(args: argparse.Namespace, corpus: Corpus, datadir: Path, db_url: str) -> Any:
    built = datadir / "built.json"
    if args.reuse and built.exists():
        info = json.loads(built.read_text())
        print(f"reusing the store in {datadir} (built {info.get('built_at')})", file=sys.stderr)
        return info
    from app.migrate import upgrade

    with phase("migrating"):
        upgrade(db_url)
    db = Database(db_url)
    try:
        if count_records(db):
            raise RuntimeError(f"{datadir} already holds records; use --reuse or remove it")
        info = build(db, corpus, args.records, scopes=args.scopes, cache_dir=args.datadir)
    finally:
        db.dispose()
    info["built_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    built.write_text(json.dumps(info, indent=2) + "\n")
    return info


def print_table(result: dict[str, Any]) -> None:
    print(f"\nscale: {result['store']}, {result['records_in_store']:,} records, "
          f"{result['server']['api_workers']} API process(es), background "
          f"{result['server']['background']}")  # fmt: skip
    b = result["build"]
    print(f"  build: embed {b['embed_base_s']}s, load {b['load_s']}s, index {b['index_s']}s")
    backlog = result.get("backlog") or {}
    if backlog.get("pending_at_start"):
        print(
            f"  backlog: {backlog['pending_at_start']} records unembedded at start, "
            f"{backlog['still_pending']} still pending after {backlog['drained_s']}s"
        )
    print(f"  {'retrieve (sequential)':<26}{'p50':>9}{'p95':>9}{'p99':>9}  ms")
    rows = {**result["retrieve_ms"], "graph (one scope)": result["graph_retrieve_ms"]}
    for name, r in rows.items():
        print(f"  {name:<26}{r['p50_ms']:>9}{r['p95_ms']:>9}{r['p99_ms']:>9}")
    tp = result["retrieve_throughput"]
    print("  retrieve req/s: " + ", ".join(f"{k} {v['rps']}" for k, v in tp.items()))
    cap, batch = result["capture_single_c8"], result["capture_batch"]
    line = f"  capture c8: {cap['rps']} req/s (p50 {cap['p50_ms']} ms)"
    if "skipped" in batch:
        print(f"{line}; batch: {batch['skipped']}")
    else:
        print(f"{line}; batch: {batch['items_per_s']} items/s, {batch['records_per_s']} records/s")
    e = result["embedding"]
    print(
        f"  embedding: {e['pending_at_end_of_capture']} pending after capture, drained in "
        f"{e['lag_s']}s ({e['records_per_s']} records/s)"
    )
    print(f"  vector index: {result['vector_index']}")
    print(f"  server RSS MB: {result['server']['rss_mb']}")


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--store", choices=["sqlite", "postgres"], required=True)
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--scopes", type=int, default=SCOPES)
    ap.add_argument(
        "--workers", type=int, help="API processes (default: 2 on PostgreSQL, 1 on SQLite)"
    )
    ap.add_argument("--seconds", type=float, default=10.0, help="per throughput phase")
    ap.add_argument("--max-requests", type=int, default=5000, help="per throughput phase")
    ap.add_argument("--series", type=int, default=100, help="questions per latency series")
    ap.add_argument("--batches", type=int, default=5, help=f"batches of {BATCH_SIZE}")
    ap.add_argument("--recall-queries", type=int, default=200)
    ap.add_argument("--phase-limit", type=float, default=600.0, help="seconds, drain/recall")
    ap.add_argument("--reuse", action="store_true", help="keep and reuse the built store")
    ap.add_argument("--datadir", type=Path, default=Path("/tmp/membrane-scale"))
    ap.add_argument("--data", type=Path, default=LOCOMO)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    corpus = Corpus.from_locomo(load_locomo(args.data))
    datadir = args.datadir / f"{args.store}-{args.records}"
    if not (args.reuse and (datadir / "built.json").exists()):
        wipe(datadir)  # a fresh store (also after a build that did not finish)
    elif postmaster_running(datadir / "pg"):
        raise SystemExit(f"a PostgreSQL server already runs on {datadir / 'pg'}")
    workers = args.workers or (2 if args.store == "postgres" else 1)
    with store_url(args.store, datadir) as db_url:
        result: dict[str, Any] = {"store": args.store, "records": args.records}
        result["build"] = prepare(args, corpus, datadir, db_url)
        args.scopes = result["build"].get("scopes", args.scopes)  # as the store was built
        db = Database(db_url)
        result["records_in_store"] = count_records(db)
        db.dispose()
        with production_server(args.store, workers=workers, db_url=db_url) as server:
            result |= measure(server, corpus, args)
    out = args.out or REPO_ROOT / "bench" / "results" / f"scale-{args.store}-{args.records}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print_table(result)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
