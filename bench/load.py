"""Load ramp: concurrent clients 1 → 256 on mixed traffic, against a running server or one
this script starts as production starts it (`python -m app.serve` plus `python -m
app.worker`, MEMBRANE_BACKGROUND=worker).

Traffic: 70 % retrieve (LoCoMo questions, one scope or all), 25 % capture (LoCoMo turns),
5 % reinforce or penalize of a record this run captured. Each step runs for
--step-seconds (and at most --max-requests); every client issues requests back to back,
except that after a 503 it waits the Retry-After it was given, as a well-behaved client
or gateway does.
Per step: requests/s, 2xx/s, p50/p99/max latency, counts per status, 503s that carried
Retry-After, and client timeouts (10 s, their own category). Each simulated client has
its own keep-alive connection (bench/rawhttp.py; `--client httpx` shares one
httpx.AsyncClient with a pool of 300 instead). Afterwards every acknowledged capture (2xx
with an id) is read back: lost = acknowledged - readable.

    .venv/bin/python bench/load.py --store sqlite      # → bench/results/load-sqlite.json
    .venv/bin/python bench/load.py --store postgres    # → bench/results/load-postgres.json
    .venv/bin/python bench/load.py --url http://127.0.0.1:8080 --api-key KEY
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (
    LOCOMO,
    REPO_ROOT,
    is_loopback,
    load_locomo,
    percentile,
    production_server,
    retry_after_s,
)
from rawhttp import RawConnection, RawResponse

STEPS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
SCOPES = 50
CLIENT_TIMEOUT_S = 10.0
SEED_BATCH = 500
SEED_EMBED_WAIT_S = 900.0


@dataclass
class Step:
    clients: int
    latencies: list[float] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    by_operation: dict[str, Counter[str]] = field(default_factory=dict)
    retry_after_503: int = 0
    elapsed: float = 0.0

    def summary(self) -> dict[str, Any]:
        lat = sorted(self.latencies)
        done = len(lat)
        ok = sum(n for code, n in self.statuses.items() if code.startswith("2"))
        return {
            "clients": self.clients,
            "requests": done,
            "throughput_rps": round(done / self.elapsed, 1) if self.elapsed else 0.0,
            "goodput_rps": round(ok / self.elapsed, 1) if self.elapsed else 0.0,
            "p50_ms": round(percentile(lat, 50) * 1000, 1),
            "p99_ms": round(percentile(lat, 99) * 1000, 1),
            "max_ms": round(lat[-1] * 1000, 1) if lat else 0.0,
            "statuses": dict(sorted(self.statuses.items())),
            "timeouts": self.statuses.get("timeout", 0),
            "503_with_retry_after": self.retry_after_503,
            "by_operation": {
                op: dict(sorted(c.items())) for op, c in sorted(self.by_operation.items())
            },
        }


@dataclass
class Corpus:
    turns: list[str]
    questions: list[str]
    acknowledged: list[str] = field(default_factory=list)


def load_corpus(path: Path) -> Corpus:
    text = load_locomo(path)
    return Corpus(turns=text.lines(), questions=text.questions)


class Client(Protocol):
    async def request(
        self, method: str, path: str, body: Any = None, timeout: float = CLIENT_TIMEOUT_S
    ) -> RawResponse: ...

    async def close(self) -> None: ...


class PooledClient:
    """The same interface over one shared httpx.AsyncClient (`--client httpx`)."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def request(
        self, method: str, path: str, body: Any = None, timeout: float = CLIENT_TIMEOUT_S
    ) -> RawResponse:
        try:
            # httpx's timeout bounds each phase (pool, connect, read); the client's
            # timeout bounds the whole exchange, as the raw client's does.
            exchange = self.client.request(method, path, json=body, timeout=timeout)
            r = await asyncio.wait_for(exchange, timeout)
        except httpx.TimeoutException as exc:
            raise TimeoutError from exc
        return RawResponse(r.status_code, dict(r.headers), r.content)

    async def close(self) -> None:
        return None


@asynccontextmanager
async def clients(
    url: str, headers: dict[str, str], kind: str
) -> AsyncIterator[Callable[[], Client]]:
    """Yields a factory of per-simulated-client connections."""
    if kind == "raw":
        yield lambda: RawConnection(url, headers)
        return
    limits = httpx.Limits(max_connections=300, max_keepalive_connections=300)
    async with httpx.AsyncClient(
        base_url=url, headers=headers, limits=limits, timeout=CLIENT_TIMEOUT_S
    ) as pooled:
        shared = PooledClient(pooled)
        yield lambda: shared


def pick(corpus: Corpus, rng: random.Random) -> str:
    """The next operation of the mix (salience needs a record this run captured)."""
    roll = rng.random()
    if roll < 0.05 and corpus.acknowledged:
        return "reinforce" if rng.random() < 0.5 else "penalize"
    return "capture" if roll < 0.30 else "retrieve"


async def one_request(
    client: Client, op: str, corpus: Corpus, rng: random.Random
) -> tuple[str, float | None]:
    """Issue one request; returns (status, Retry-After seconds or None)."""
    if op in ("reinforce", "penalize"):
        path = f"/v1/records/{rng.choice(corpus.acknowledged)}/{op}"
        body = {"amount": 0.05} if op == "penalize" else None
        response = await client.request("POST", path, body)
    elif op == "capture":
        capture = {
            "source": "load",
            "source_kind": "event",
            "summary": rng.choice(corpus.turns),
            "scope": f"load/{rng.randrange(SCOPES)}",
        }
        response = await client.request("POST", "/v1/capture", capture)
        if 200 <= response.status < 300:
            rid = response.json().get("primary_record", {}).get("id")
            if rid:
                corpus.acknowledged.append(rid)
    else:
        query: dict[str, Any] = {"query": rng.choice(corpus.questions), "limit": 10}
        if rng.random() < 0.5:
            query["scopes"] = [f"load/{rng.randrange(SCOPES)}"]
        response = await client.request("POST", "/v1/retrieve", query)
    return str(response.status), retry_after_s(response.headers.get("retry-after"))


async def run_step(
    connect: Callable[[], Client], corpus: Corpus, clients: int, seconds: float, cap: int
) -> Step:
    step = Step(clients)
    deadline = time.monotonic() + seconds
    rng = random.Random(clients)

    async def worker() -> None:
        client = connect()
        while time.monotonic() < deadline and len(step.latencies) < cap:
            t0 = time.monotonic()
            retry_after: float | None = None
            op = pick(corpus, rng)
            try:
                status, retry_after = await one_request(client, op, corpus, rng)
            except TimeoutError:
                status = "timeout"
            except (OSError, asyncio.IncompleteReadError, httpx.TransportError) as exc:
                status = type(exc).__name__
            step.latencies.append(time.monotonic() - t0)
            step.statuses[status] += 1
            step.by_operation.setdefault(op, Counter())[status] += 1
            if status == "503" and retry_after is not None:
                step.retry_after_503 += 1
                # A well-behaved client (or gateway) waits as told before its next call.
                await asyncio.sleep(min(retry_after, max(0.0, deadline - time.monotonic())))
        await client.close()

    t0 = time.monotonic()
    await asyncio.gather(*(worker() for _ in range(clients)))
    step.elapsed = time.monotonic() - t0
    return step


async def verify(client: httpx.AsyncClient, ids: Sequence[str]) -> dict[str, Any]:
    """Read back every acknowledged capture (a few at a time, retrying 503s and
    timeouts): lost = acknowledged - readable."""
    gate = asyncio.Semaphore(8)
    missing: Counter[str] = Counter()

    async def check(rid: str) -> None:
        async with gate:
            status = "never answered"
            for _ in range(20):
                try:
                    response = await client.get(f"/v1/records/{rid}")
                except httpx.HTTPError as exc:
                    status = type(exc).__name__
                    await asyncio.sleep(0.2)
                    continue
                status = str(response.status_code)
                if response.status_code != 503:
                    break
                await asyncio.sleep(retry_after_s(response.headers.get("retry-after")) or 0.2)
            if status != "200":
                missing[status] += 1

    await asyncio.gather(*(check(rid) for rid in dict.fromkeys(ids)))
    unique = len(dict.fromkeys(ids))
    lost = sum(missing.values())
    return {
        "acknowledged": unique,
        "readable": unique - lost,
        "lost": lost,
        "unreadable_statuses": dict(missing),
    }


async def seed_store(
    client: httpx.AsyncClient, corpus: Corpus, records: int, rng: random.Random
) -> dict[str, Any]:
    """Capture `records` events across the scopes through batch capture, then wait until
    the worker has embedded them: the ramp then measures a store that is already in use.
    Started empty, the first steps would query a store of a few hundred records that the
    ramp itself grows tenfold, and their 'peak' would measure the empty store."""
    t0 = time.monotonic()
    for start in range(0, records, SEED_BATCH):
        items = [
            {
                "source": "load",
                "source_kind": "event",
                "summary": rng.choice(corpus.turns),
                "scope": f"load/{rng.randrange(SCOPES)}",
            }
            for _ in range(min(SEED_BATCH, records - start))
        ]
        response = await client.post("/v1/capture/batch", json={"items": items}, timeout=300)
        response.raise_for_status()
    captured = time.monotonic()
    pending = -1
    while time.monotonic() - captured < SEED_EMBED_WAIT_S:
        embedding = (await client.get("/readyz")).json().get("embedding") or {}
        pending = int(embedding.get("pending", 0))
        if pending == 0:
            break
        await asyncio.sleep(1.0)
    return {
        "records": records,
        "capture_s": round(captured - t0, 1),
        "embedded_s": round(time.monotonic() - captured, 1),
        "pending_at_start": pending,
    }


async def ramp(
    url: str, key: str | None, corpus: Corpus, args: argparse.Namespace
) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    steps = []
    seeded: dict[str, Any] = {"records": 0}
    if args.seed:
        async with httpx.AsyncClient(base_url=url, headers=headers) as client:
            seeded = await seed_store(client, corpus, args.seed, random.Random(0))
        print(f"seed: {seeded}", file=sys.stderr)
    async with clients(url, headers, args.client) as connect:
        warm = await run_step(connect, corpus, 4, 3.0, 200)  # fills scopes, loads the model
        print(f"warm-up: {warm.summary()['statuses']}", file=sys.stderr)
        for n in [s for s in STEPS if s <= args.max_clients]:
            step = await run_step(connect, corpus, n, args.step_seconds, args.max_requests)
            steps.append(step.summary())
            print_row(steps[-1])
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=CLIENT_TIMEOUT_S) as client:
        check = await verify(client, corpus.acknowledged)
    peak = max(s["goodput_rps"] for s in steps)
    return {
        "url": url,
        "step_seconds": args.step_seconds,
        "max_requests_per_step": args.max_requests,
        "client": args.client,
        "client_timeout_s": CLIENT_TIMEOUT_S,
        "mix": {"retrieve": 0.70, "capture": 0.25, "reinforce_or_penalize": 0.05},
        "seed": seeded,
        "steps": steps,
        "peak_goodput_rps": peak,
        "goodput_at_256_of_peak": round(steps[-1]["goodput_rps"] / peak, 3) if peak else 0.0,
        "answered_5xx_other_than_503": sum(
            n
            for s in steps
            for code, n in s["statuses"].items()
            if code.startswith("5") and code != "503"
        ),
        "slowest_ms": max(s["max_ms"] for s in steps),
        "timeouts": sum(s["timeouts"] for s in steps),
        "verify": check,
    }


def print_row(step: dict[str, Any]) -> None:
    statuses = " ".join(f"{k}:{v}" for k, v in step["statuses"].items())
    retry = step["503_with_retry_after"]
    statuses += f"  (503 with Retry-After: {retry})" if "503" in step["statuses"] else ""
    print(
        f"{step['clients']:>4} clients {step['throughput_rps']:>7.1f} req/s "
        f"({step['goodput_rps']:>6.1f} 2xx/s) "
        f"p50 {step['p50_ms']:>7.1f} p99 {step['p99_ms']:>7.1f} max {step['max_ms']:>7.1f} ms  "
        f"{statuses}",
        flush=True,
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    target = ap.add_mutually_exclusive_group(required=True)
    target.add_argument("--store", choices=["sqlite", "postgres"])
    target.add_argument("--url")
    ap.add_argument("--api-key")
    ap.add_argument(
        "--workers", type=int, help="API processes, --store only (default: PostgreSQL 2, SQLite 1)"
    )
    ap.add_argument(
        "--seed",
        type=int,
        default=5_000,
        help="records captured (and embedded) before the ramp; 0 starts from an empty store",
    )
    ap.add_argument("--step-seconds", type=float, default=10.0)
    ap.add_argument("--max-requests", type=int, default=20_000, help="per step")
    ap.add_argument("--max-clients", type=int, default=256, help="last step of the ramp")
    ap.add_argument(
        "--client",
        choices=["raw", "httpx"],
        default="raw",
        help="raw: one keep-alive connection per simulated client (bench/rawhttp.py); "
        "httpx: one shared httpx.AsyncClient, max_connections=300",
    )
    ap.add_argument("--data", type=Path, default=LOCOMO)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    corpus = load_corpus(args.data)
    if args.url:
        if not is_loopback(args.url):
            ap.error("the load ramp only targets loopback servers")
        result = asyncio.run(ramp(args.url, args.api_key, corpus, args))
    else:
        workers = args.workers or (2 if args.store == "postgres" else 1)
        with production_server(args.store, workers=workers) as server:
            result = asyncio.run(ramp(server.url, None, corpus, args))
            result["server"] = server.describe()
    result["store"] = args.store or "external"
    keys = (
        "peak_goodput_rps",
        "goodput_at_256_of_peak",
        "slowest_ms",
        "answered_5xx_other_than_503",
        "timeouts",
        "verify",
    )
    print(json.dumps({k: result[k] for k in keys}))
    out = args.out or REPO_ROOT / "bench" / "results" / f"load-{result['store']}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
