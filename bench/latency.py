"""Cost of one request, operation by operation: p50 / p95 at one client over HTTP
(keep-alive), beside `/healthz` in the same run, with the SQL statements each request
executes and the API process's CPU per request.

The store holds LoCoMo turns (2,000 by default, ten scopes), captured through the API and
embedded by `python -m app.worker`, which is then stopped so that nothing but the
measured requests runs in the API process. On PostgreSQL the store is analyzed after
seeding, as autovacuum would within its first minute. The server is
bench/latency_server.py: the app as `python -m app.serve` serves it, plus a per-request
statement counter.

    .venv/bin/python bench/latency.py --store sqlite --out bench/results/latency-sqlite-2000.json
    .venv/bin/python bench/latency.py --store postgres --records 2000
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import httpx
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (
    REPO_ROOT,
    free_port,
    latency_ms,
    load_locomo,
    pg_admin,
    process_cpu_s,
    server_env,
    stop,
    store_url,
    wait_until_answering,
)

SCOPES = 10
Call = Callable[[httpx.Client, int], httpx.Response]


@dataclass
class Api:
    url: str
    process: subprocess.Popen[bytes]

    def cpu_s(self) -> float:
        """User + system CPU seconds of the API process so far (all its threads)."""
        return process_cpu_s(self.process.pid)


@contextmanager
def running(args: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("wb") as out:
        proc = subprocess.Popen(args, cwd=REPO_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        yield proc
    finally:
        stop(proc)


class Poster(Protocol):
    """What `seed` needs of a client: an httpx client, or a test client in process
    (bench/embedding.py)."""

    def post(self, url: str, *, json: Any, timeout: float) -> Any: ...


def seed(client: Poster, turns: list[str], records: int) -> list[str]:
    """Capture `records` turns in batches of 100 (scope = conversation slice); their ids."""
    ids: list[str] = []
    per_scope = max(1, records // SCOPES)
    start = time.time() - records * 60
    for i in range(0, records, 100):
        items = [
            {
                "source": "bench",
                "source_kind": "event",
                "summary": turns[j % len(turns)],
                "scope": f"conv-{j // per_scope}",
                "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start + j * 60)),
            }
            for j in range(i, min(records, i + 100))
        ]
        r = client.post("/v1/capture/batch", json={"items": items}, timeout=300)
        r.raise_for_status()
        ids += [x["result"]["primary_record"]["id"] for x in r.json()["results"]]
    return ids


def wait_embedded(client: httpx.Client, limit_s: float = 1800) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        body = client.get("/readyz").json()
        if not body.get("embedding", {}).get("pending"):
            return
        time.sleep(1)
    raise RuntimeError("records still pending embedding")


def operations(ids: list[str], questions: list[str], turns: list[str]) -> dict[str, Call]:
    def q(i: int) -> str:
        return questions[i % len(questions)]

    # Each query operation asks its own questions: a question asked before is answered
    # from the API process's query-vector cache, and the operations measured after the
    # first would not pay for embedding their query (999 LoCoMo questions, 205 an operation).
    def all_scopes_q(i: int) -> str:
        return q(i + 333)

    def graph_q(i: int) -> str:
        return q(i + 666)

    def event(i: int) -> dict[str, Any]:
        return {"source": "bench", "source_kind": "event", "summary": turns[i % len(turns)]}

    def fact(i: int) -> dict[str, Any]:
        triple = {"subject": f"service-{i}", "predicate": "runs_on_port", "object": str(i)}
        return {"source": "bench", "source_kind": "observation", "content": triple,
                "scope": "conv-2"}  # fmt: skip

    return {
        "healthz": lambda c, i: c.get("/healthz"),
        "retrieve_query_one_scope": lambda c, i: c.post(
            "/v1/retrieve", json={"query": q(i), "scopes": [f"conv-{i % SCOPES}"], "limit": 10}
        ),
        "retrieve_query_all_scopes": lambda c, i: c.post(
            "/v1/retrieve", json={"query": all_scopes_q(i), "limit": 10}
        ),
        "retrieve_no_query": lambda c, i: c.post(
            "/v1/retrieve", json={"limit": 10, "scopes": [f"conv-{i % SCOPES}"]}
        ),
        "graph": lambda c, i: c.post("/v1/retrieve/graph", json={"query": graph_q(i), "limit": 10}),
        "get_record": lambda c, i: c.get(f"/v1/records/{ids[i % len(ids)]}"),
        "list": lambda c, i: c.get("/v1/records", params={"limit": 20}),
        "metrics": lambda c, i: c.get("/v1/metrics"),
        "capture": lambda c, i: c.post("/v1/capture", json={**event(i), "scope": "conv-0"}),
        # An observation that creates a semantic fact: its contradiction check runs.
        "capture_fact": lambda c, i: c.post("/v1/capture", json=fact(i)),
        "batch_100": lambda c, i: c.post(
            "/v1/capture/batch",
            json={"items": [{**event(i * 100 + k), "scope": "conv-1"} for k in range(100)]},
        ),
    }


def measure(api: Api, client: httpx.Client, call: Call, n: int, warmup: int) -> dict[str, Any]:
    for i in range(warmup):
        call(client, i).raise_for_status()
    samples: list[float] = []
    statements: list[int] = []
    cpu0 = api.cpu_s()
    for i in range(warmup, warmup + n):
        started = time.perf_counter()
        r = call(client, i)
        samples.append(time.perf_counter() - started)
        r.raise_for_status()
        statements.append(int(r.headers.get("x-bench-statements", -1)))
    cpu_ms = (api.cpu_s() - cpu0) * 1000 / n
    return {
        **latency_ms(samples, (50, 95)),
        "statements": statistics.median(statements),
        "statements_max": max(statements),
        "cpu_ms": round(cpu_ms, 2),
        "n": n,
    }


@dataclass
class Seeded:
    """A server on a store seeded by `seeded_api`."""

    api: Api
    client: httpx.Client
    ids: list[str]  # the captured records'
    seconds: float  # capturing and embedding them


@contextmanager
def seeded_api(db_url: str, records: int, logs: Path, server: list[str]) -> Iterator[Seeded]:
    """The store migrated, `server` started on it, `records` LoCoMo turns captured through
    it and embedded by `python -m app.worker` (stopped before the caller measures, so that
    only the measured requests run); a PostgreSQL store is then analyzed."""
    port = free_port()
    env = server_env(db_url, 1, "worker", MEMBRANE_PORT=str(port))
    env["MEMBRANE_SCHEDULER__ENABLED"] = "false"
    subprocess.run([sys.executable, "-m", "app.migrate"], cwd=REPO_ROOT, env=env, check=True)
    with running(server, env, logs / "api.log") as proc:
        api = Api(f"http://127.0.0.1:{port}", proc)
        wait_until_answering(f"{api.url}/readyz", [proc], 180, lambda: str(logs))
        with httpx.Client(base_url=api.url, timeout=60) as client:
            with running([sys.executable, "-m", "app.worker"], env, logs / "worker.log"):
                started = time.monotonic()
                ids = seed(client, load_locomo().lines(), records)
                wait_embedded(client)
                seconds = time.monotonic() - started
            if make_url(db_url).get_backend_name() != "sqlite":
                # As autovacuum would within a minute of the load: right after seeding
                # the planner had no statistics, and the neighbour look-ups of a query
                # retrieve read a whole side of the scope per seed (5.3 ms, not 1.7).
                pg_admin(db_url, "ANALYZE")
            yield Seeded(api, client, ids, seconds)


def run(store: str, records: int, n: int, only: list[str] | None = None) -> dict[str, Any]:
    text = load_locomo()
    logs = Path(tempfile.mkdtemp(prefix="membrane-latency-"))
    server = [sys.executable, os.environ.get("LATENCY_SERVER", "bench/latency_server.py")]
    with store_url(store) as db_url, seeded_api(db_url, records, logs, server) as seeded:
        ops = operations(seeded.ids, text.questions, text.lines())
        ops = {name: call for name, call in ops.items() if only is None or name in only}
        results = {
            name: measure(seeded.api, seeded.client, call, n // 10 if name == "batch_100" else n, 5)
            for name, call in ops.items()
        }
        seeded_s = seeded.seconds
    return {
        "store": store,
        "records": records,
        "requests_per_operation": n,
        "seed_and_embed_s": round(seeded_s, 1),
        "machine": {"cpus": os.cpu_count()},
        "commit": _commit(),
        "operations": results,
    }


def _commit() -> str:
    out = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True
    )
    return out.stdout.decode().strip()


def print_table(result: dict[str, Any]) -> None:
    print(f"{result['store']}, {result['records']} records, commit {result['commit']}")
    print(f"{'operation':28} {'p50 ms':>7} {'p95 ms':>7} {'stmts':>6} {'cpu ms':>7}")
    for name, row in result["operations"].items():
        print(
            f"{name:28} {row['p50_ms']:7.1f} {row['p95_ms']:7.1f} "
            f"{row['statements']:6.0f} {row['cpu_ms']:7.2f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--requests", type=int, default=200, help="per operation (batch: /10)")
    parser.add_argument("--ops", help="comma-separated operations (default: all)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    result = run(args.store, args.records, args.requests, args.ops and args.ops.split(","))
    print_table(result)
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
