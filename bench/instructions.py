"""Instructions per request, operation by operation, counted by callgrind: a measure of
the API's work that does not drift with the machine. On a shared two-core machine wall
and CPU time of the same code differ by ±15 % from run to run, more than most changes
save; instruction counts of the same code differ by ~0.3 %.

The store is seeded as bench/latency.py seeds it (LoCoMo turns in ten scopes, captured
through the API and embedded by the worker). Each operation then runs in a fresh process
on a copy of the store, under `valgrind --tool=callgrind --instr-atstart=no`: warm-up
requests uncounted, then the measured requests with counting switched on
(`callgrind_control -i on`). Requests go through Starlette's test client in process
(`--driver testclient`, the default, whose own ~3.3 M instructions a request are in every
figure alike: the series committed before `--driver` existed), or straight through ASGI
(`--driver asgi`, bench/asgi_client.py: the app's own work only); query operations ask
questions not asked before, so each pays for its query's embedding, as
bench/latency.py's do. Counted: every thread of the
API process (Python, SQLAlchemy, the drivers, SQLite's engine, the query embedding); not
PostgreSQL's server, another process. Needs valgrind (Debian: `apt-get install valgrind`).

    .venv/bin/python bench/instructions.py --store sqlite
    .venv/bin/python bench/instructions.py --store postgres --ops capture,batch_100
    .venv/bin/python bench/instructions.py --driver asgi --ops healthz,get_record
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

import httpx
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (
    REPO_ROOT,
    load_locomo,
    pg_admin,
    server_env,
    store_url,
)
from latency import operations, seeded_api

DEFAULT_OPS = (
    "retrieve_query_one_scope",
    "retrieve_query_all_scopes",
    "retrieve_no_query",
    "get_record",
    "metrics",
    "capture",
    "batch_100",
)
WARMUP = 5
_COLLECTED = re.compile(r"Collected : (\d+)")


def seed_store(db_url: str, records: int, logs: Path) -> list[str]:
    """The store seeded as bench/latency.py seeds it (its server and worker stopped
    after); the records' ids."""
    with seeded_api(db_url, records, logs, [sys.executable, "-m", "app.serve"]) as seeded:
        return seeded.ids


def copy_store(db_url: str, op: str) -> str:
    """A copy of the seeded store for one operation (captures grow it); its URL."""
    url = make_url(db_url)
    if url.get_backend_name() == "sqlite":
        target = Path(str(url.database)).with_name(f"{op}.db")
        target.unlink(missing_ok=True)
        with sqlite3.connect(str(url.database)) as src, sqlite3.connect(target) as dst:
            src.backup(dst)
        return f"sqlite:///{target}"
    admin = url.set(database="template1").render_as_string(hide_password=False)
    pg_admin(
        admin, f"DROP DATABASE IF EXISTS {op}", f"CREATE DATABASE {op} TEMPLATE {url.database}"
    )
    return url.set(database=op).render_as_string(hide_password=False)


def count(op: str, db_url: str, ids_file: Path, n: int, driver: str) -> float:
    """Instructions per request of `op`: a child process under callgrind (`--measure`)."""
    # Under callgrind the process runs ~50 times slower: the request deadlines widen to match.
    env = server_env(
        db_url,
        1,
        "worker",
        MEMBRANE_SCHEDULER__ENABLED="false",
        MEMBRANE_DATABASE__REQUEST_DEADLINE_S="300",
        MEMBRANE_DATABASE__STATEMENT_TIMEOUT_MS="300000",
    )
    child = [
        sys.executable,
        __file__,
        "--measure",
        op,
        "--ids",
        str(ids_file),
        "--requests",
        str(n),
        "--driver",
        driver,
    ]
    valgrind = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        "--callgrind-out-file=/dev/null",
    ]
    done = subprocess.run(
        [*valgrind, *child], cwd=REPO_ROOT, env=env, capture_output=True, text=True
    )
    found = _COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(
            f"{op}: callgrind run failed:\n{done.stdout[-2000:]}{done.stderr[-4000:]}"
        )
    return int(found.group(1)) / n


def _client(driver: str) -> Any:
    """The in-process client of `driver`, not yet entered."""
    from app.main import app

    if driver == "asgi":
        from asgi_client import AsgiClient

        return AsgiClient(app)
    from fastapi.testclient import TestClient

    return TestClient(app)


def measure(op: str, ids_file: Path, n: int, driver: str) -> None:
    """Child: WARMUP requests of `op`, then `n` with callgrind counting (the app in process,
    settings from MEMBRANE_* as `python -m app.serve` reads them)."""

    text = load_locomo()
    ids = json.loads(ids_file.read_text())
    call = operations(ids, text.questions, text.lines())[op]
    toggle = ["callgrind_control", "--instr={}", str(os.getpid())]
    with _client(driver) as in_process:
        client = cast(httpx.Client, in_process)  # the same get/post the operations call
        for i in range(WARMUP):
            call(client, i).raise_for_status()
        subprocess.run([a.replace("{}", "on") for a in toggle], check=True, capture_output=True)
        for i in range(WARMUP, WARMUP + n):
            call(client, i).raise_for_status()
        subprocess.run([a.replace("{}", "off") for a in toggle], check=True, capture_output=True)


def run(store: str, records: int, ops: list[str], n: int, driver: str) -> dict[str, Any]:
    per_op: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="membrane-instructions-") as tmp:
        work = Path(tmp)
        with store_url(store, work / "store") as db_url:
            started = time.monotonic()
            ids = seed_store(db_url, records, work)
            ids_file = work / "ids.json"
            ids_file.write_text(json.dumps(ids))
            seeded_s = time.monotonic() - started
            for op in ops:
                requests = max(1, n // 10) if op == "batch_100" else n
                per_op[op] = round(count(op, copy_store(db_url, op), ids_file, requests, driver))
    return {
        "store": store,
        "records": records,
        "requests_per_operation": n,
        "seed_and_embed_s": round(seeded_s, 1),
        "commit": _commit(),
        "driver": driver,
        "instructions_per_request": per_op,
    }


def _commit() -> str:
    """The commit of the code measured: the checkout `app` is imported from (PYTHONPATH
    may point at another worktree, for an A/B with this script)."""
    import app

    checkout = Path(app.__file__).resolve().parent.parent
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=checkout, capture_output=True)
    return out.stdout.decode().strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--ops", default=",".join(DEFAULT_OPS), help="comma-separated")
    parser.add_argument("--requests", type=int, default=40, help="per operation (batch: /10)")
    parser.add_argument("--driver", choices=["testclient", "asgi"], default="testclient")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--measure", help=argparse.SUPPRESS)  # child mode, under callgrind
    parser.add_argument("--ids", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        measure(args.measure, args.ids, args.requests, args.driver)
        return 0
    result = run(args.store, args.records, args.ops.split(","), args.requests, args.driver)
    print(
        f"{result['store']}, {result['records']} records, commit {result['commit']}, "
        f"{result['driver']} driver"
    )
    for op, per in result["instructions_per_request"].items():
        print(f"{op:28} {per / 1e6:9.2f} M instructions / request")
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
