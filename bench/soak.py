"""Soak: mixed traffic at a steady share of the measured peak for a set time, against a
server this script starts as production starts it (bench/harness.production_server: the
API and, where it exists, the worker that embeds), recording per window the resident
memory of the API and worker, the API's open file descriptors, the database connections
the service holds, and p50 / p99 latency.

First --seed-records LoCoMo turns are captured in batches and embedded, so that the store
is near the size the soak will grow it to; then --peak-seconds of closed-loop traffic
(--clients clients back to back) measure the peak goodput (2xx per second over the second
half); then requests are sent open-loop at --share of it (default 70 %) for --minutes. A
peak measured on an empty store is one the growing store cannot keep: four 30-minute
attempts at 70 % of it saturated the API after 3 to 13 minutes (bench/README.md).
Traffic: 60 % retrieve (one scope or all), 30 % capture, 10 % GET of a captured record;
LoCoMo's turns are captured and its questions asked.

    .venv/bin/python bench/soak.py --store sqlite                      # 30 minutes
    .venv/bin/python bench/soak.py --store sqlite --minutes 4 --window-s 30 \\
        --out bench/results/soak-sqlite-4min.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (
    Server,
    descendants,
    latency_ms,
    load_locomo,
    process_cpu_s,
    production_server,
)

SCOPES = [f"soak-{n}" for n in range(8)]
SEED_BATCH = 500


@dataclass
class Window:
    """What one window of the soak saw."""

    started_s: float
    latencies: list[float] = field(default_factory=list)
    statuses: dict[str, int] = field(default_factory=dict)
    by_operation: dict[str, list[float]] = field(default_factory=dict)

    def add(self, seconds: float, status: str, operation: str = "") -> None:
        self.latencies.append(seconds)
        self.statuses[status] = self.statuses.get(status, 0) + 1
        self.by_operation.setdefault(operation, []).append(seconds)


class Traffic:
    """The mixed requests, and the records captured so far (for the GETs). Text is LoCoMo's:
    conversation turns are captured and its questions asked (a synthetic vocabulary of a
    few dozen words made every query match most of the store, so a retrieve's cost grew
    with the store as real text does not)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.ids: list[str] = []
        text = load_locomo()
        self.turns = [f"{speaker}: {said}" for speaker, said in text.turns]
        self.questions = text.questions
        self.sent = 0

    async def one(self, client: httpx.AsyncClient) -> tuple[str, str]:
        """(operation, status) of one request of the mix."""
        roll = self.rng.random()
        if roll < 0.3 or not self.ids:
            self.sent += 1
            summary = self.turns[self.sent % len(self.turns)]
            body = {"source": "soak", "source_kind": "event", "summary": summary}
            r = await client.post("/v1/capture", json={**body, "scope": self.rng.choice(SCOPES)})
            if r.status_code == 201 and len(self.ids) < 10_000:
                self.ids.append(r.json()["primary_record"]["id"])
            return "capture", str(r.status_code)
        elif roll < 0.9:
            query: dict[str, Any] = {"query": self.rng.choice(self.questions), "limit": 10}
            one_scope = self.rng.random() < 0.5
            if one_scope:
                query["scopes"] = [self.rng.choice(SCOPES)]
            r = await client.post("/v1/retrieve", json=query)
            return ("retrieve_one_scope" if one_scope else "retrieve_all_scopes"), str(
                r.status_code
            )
        r = await client.get(f"/v1/records/{self.rng.choice(self.ids)}")
        return "get_record", str(r.status_code)


async def _timed(traffic: Traffic, client: httpx.AsyncClient, window: Window) -> None:
    started = time.perf_counter()
    operation = ""
    try:
        operation, status = await traffic.one(client)
    except httpx.HTTPError as exc:
        status = type(exc).__name__
    window.add(time.perf_counter() - started, status, operation)


async def seed_store(url: str, traffic: Traffic, records: int) -> dict[str, float]:
    """Capture `records` turns across the scopes (batches of 500), then wait until the
    worker has embedded them all."""
    started = time.monotonic()
    async with httpx.AsyncClient(base_url=url, timeout=300) as client:
        for start in range(0, records, SEED_BATCH):
            items = []
            for _ in range(min(SEED_BATCH, records - start)):
                traffic.sent += 1
                summary = traffic.turns[traffic.sent % len(traffic.turns)]
                scope = traffic.rng.choice(SCOPES)
                items.append(
                    {"source": "soak", "source_kind": "event", "summary": summary, "scope": scope}
                )
            response = await client.post("/v1/capture/batch", json={"items": items})
            response.raise_for_status()
        captured = time.monotonic()
        while (await client.get("/readyz")).json()["embedding"].get("pending", 0) > 0:
            await asyncio.sleep(2.0)
    return {
        "records": records,
        "capture_s": round(captured - started, 1),
        "embedded_s": round(time.monotonic() - captured, 1),
    }


async def peak_rate(url: str, traffic: Traffic, clients: int, seconds: float) -> float:
    """Goodput with `clients` sending back to back: 2xx answers per second over the second
    half of `seconds`. The first half lets the worker's embedding of the captures reach its
    steady share of the cores, and answers shed with 503 are not throughput (a peak that
    counted them, measured over 30 s, set a rate the service could not keep up)."""
    window = Window(0.0)
    begin = time.monotonic()
    counted_from = begin + seconds / 2
    stop = begin + seconds
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:

        async def loop() -> None:
            while time.monotonic() < stop:
                if time.monotonic() >= counted_from:
                    await _timed(traffic, client, window)
                else:
                    await _timed(traffic, client, Window(0.0))

        await asyncio.gather(*(loop() for _ in range(clients)))
    good = sum(n for status, n in window.statuses.items() if status.startswith("2"))
    return good / (stop - counted_from)


async def soak(url: str, traffic: Traffic, rate: float, args: argparse.Namespace) -> list[Window]:
    """Open loop at `rate` requests/s (at most 64 in flight) for args.minutes."""
    windows: list[Window] = []
    begin = time.monotonic()
    end = begin + args.minutes * 60
    in_flight = asyncio.Semaphore(64)
    tasks: set[asyncio.Task[None]] = set()
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        sent = 0
        while (now := time.monotonic()) < end:
            index = int((now - begin) // args.window_s)
            while len(windows) <= index:
                windows.append(Window(round(len(windows) * args.window_s, 1)))
            due = begin + sent / rate
            if due > now:
                await asyncio.sleep(due - now)
                continue
            sent += 1
            await in_flight.acquire()
            task = asyncio.create_task(_timed(traffic, client, windows[index]))
            task.add_done_callback(tasks.discard)
            task.add_done_callback(lambda _t: in_flight.release())
            tasks.add(task)
        await asyncio.gather(*tasks)
    return windows


def cpu_seconds(server: Server) -> dict[str, float]:
    """User + system CPU seconds so far of the API and the worker processes (their
    descendants included: the API's workers)."""
    out: dict[str, float] = {}
    for name, proc in zip(("api", "worker"), server.processes, strict=False):
        total = 0.0
        for pid in descendants(proc.pid):
            try:
                total += process_cpu_s(pid)
            except OSError:  # exited since it was listed
                continue
        out[name] = round(total, 1)
    return out


def open_fds(server: Server) -> int:
    return len(os.listdir(f"/proc/{server.processes[0].pid}/fd"))


def db_connections(server: Server, store: str) -> int:
    """PostgreSQL: sessions of the service's database (API and worker); SQLite: the API's
    open descriptors of the database file (one per pooled connection)."""
    if store == "postgres":
        import psycopg

        uri = server.db_url.replace("postgresql+psycopg://", "postgresql://")
        with psycopg.connect(uri, autocommit=True) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid()"
            ).fetchone()
        return int(row[0]) if row else 0
    fd_dir = Path(f"/proc/{server.processes[0].pid}/fd")
    links = [os.readlink(fd_dir / name) for name in os.listdir(fd_dir)]
    return sum(1 for link in links if link.endswith("membrane.db"))


async def sample(server: Server, store: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Resources at the end of every window (run beside the traffic)."""
    samples = []
    begin = time.monotonic()
    while time.monotonic() - begin < args.minutes * 60:
        await asyncio.sleep(args.window_s)
        samples.append(
            {
                "at_s": round(time.monotonic() - begin, 1),
                "rss_mb": server.rss_mb(),
                "cpu_s": cpu_seconds(server),
                "api_fds": open_fds(server),
                "db_connections": db_connections(server, store),
            }
        )
    return samples


def summarize(windows: list[Window], samples: list[dict[str, Any]], warmup: int) -> dict[str, Any]:
    """Growth after the warm-up windows; first vs last windows of latency."""
    edge = max(1, len(windows) // 6)
    first = [x for w in windows[:edge] for x in w.latencies]
    last = [x for w in windows[-edge:] for x in w.latencies]
    rss = [s["rss_mb"]["total"] for s in samples]
    base = rss[min(warmup, len(rss) - 1)]
    fds = [s["api_fds"] for s in samples]
    p99_first = latency_ms(first, (99,))["p99_ms"]
    p99_last = latency_ms(last, (99,))["p99_ms"]
    api = [s["rss_mb"]["api"] for s in samples]
    api_base = api[min(warmup, len(api) - 1)]
    statuses: dict[str, int] = {}
    for w in windows:
        for status, n in w.statuses.items():
            statuses[status] = statuses.get(status, 0) + n
    return {
        "requests": sum(statuses.values()),
        "statuses": statuses,
        "rss_growth_after_warmup_pct": round(100 * (rss[-1] - base) / base, 1),
        "api_rss_growth_after_warmup_pct": round(100 * (api[-1] - api_base) / api_base, 1),
        "api_fds_min_max": [min(fds), max(fds)],
        "p99_first_ms": p99_first,
        "p99_last_ms": p99_last,
        "p99_last_over_first": round(p99_last / p99_first, 2) if p99_first else None,
        "p99_first_last_by_operation": _by_operation(windows[:edge], windows[-edge:]),
        "windows_compared": edge,
    }


def _by_operation(first: list[Window], last: list[Window]) -> dict[str, list[float]]:
    """Per operation, [p99 of the first windows, p99 of the last] in ms."""
    ops = {op for w in first + last for op in w.by_operation if op}
    out: dict[str, list[float]] = {}
    for op in sorted(ops):
        a = [x for w in first for x in w.by_operation.get(op, [])]
        b = [x for w in last for x in w.by_operation.get(op, [])]
        if a and b:
            out[op] = [latency_ms(a, (99,))["p99_ms"], latency_ms(b, (99,))["p99_ms"]]
    return out


def table(windows: list[Window], samples: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for window, res in zip(windows, samples, strict=False):
        lat = latency_ms(window.latencies, (50, 99))
        row: dict[str, Any] = {"from_s": window.started_s, "requests": len(window.latencies)}
        operations = {
            op: {"n": len(values), **latency_ms(values, (50, 99))}
            for op, values in sorted(window.by_operation.items())
            if op
        }
        rows.append({**row, **lat, "statuses": window.statuses, "operations": operations, **res})
    return rows


async def run(args: argparse.Namespace) -> dict[str, Any]:
    traffic = Traffic(args.seed)
    with production_server(args.store) as server:
        seeded = await seed_store(server.url, traffic, args.seed_records)
        print(f"seeded: {seeded}", flush=True)
        peak = await peak_rate(server.url, traffic, args.clients, args.peak_seconds)
        rate = peak * args.share
        print(f"peak {peak:.1f} req/s; soaking at {rate:.1f} req/s for {args.minutes} min")
        windows, samples = await asyncio.gather(
            soak(server.url, traffic, rate, args), sample(server, args.store, args)
        )
        described = server.describe()
    return {
        "store": args.store,
        "minutes": args.minutes,
        "window_s": args.window_s,
        "seeded": seeded,
        "peak_rps": round(peak, 1),
        "rate_rps": round(rate, 1),
        "server": described,
        "summary": summarize(windows, samples, args.warmup_windows),
        "windows": table(windows, samples),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--window-s", type=float, default=60.0)
    parser.add_argument("--warmup-windows", type=int, default=5, help="growth counted after")
    parser.add_argument("--share", type=float, default=0.7, help="of the measured peak")
    parser.add_argument("--clients", type=int, default=8, help="of the peak measurement")
    parser.add_argument("--peak-seconds", type=float, default=120.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--seed-records", type=int, default=20_000, help="captured and embedded before the peak"
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    result = asyncio.run(run(args))
    print(json.dumps(result["summary"], indent=2))
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
