"""Load ramp: concurrent clients 1 → 256 on mixed traffic, against a running server or one
this script starts as production starts it (`python -m app.serve` plus `python -m
app.worker`, MEMBRANE_BACKGROUND=worker).

Traffic: 70 % retrieve (LoCoMo questions, one scope or all), 25 % capture (LoCoMo turns),
5 % reinforce or penalize of a record this run captured. Each step runs for
--step-seconds (and at most --max-requests); every client issues requests back to back,
except that after a 503 it waits the Retry-After it was given, as a well-behaved client
or gateway does.
Per step: requests/s, p50/p99/max latency, counts per status, 503s that carried
Retry-After, and client timeouts (10 s). Each simulated client has its own keep-alive
connection (bench/rawhttp.py). Afterwards every acknowledged capture is read back.

    .venv/bin/python bench/load.py --store sqlite --out bench/results/load-sqlite.json
    .venv/bin/python bench/load.py --store postgres --out bench/results/load-postgres.json
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
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import REPO_ROOT, percentile, production_server
from rawhttp import RawConnection

DATA = REPO_ROOT.parent / "shared" / "bench" / "locomo" / "locomo-dev.json"
STEPS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
SCOPES = 50
CLIENT_TIMEOUT_S = 10.0


@dataclass
class Step:
    clients: int
    latencies: list[float] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
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
            "503_with_retry_after": self.retry_after_503,
        }


@dataclass
class Corpus:
    turns: list[str]
    questions: list[str]
    acknowledged: list[str] = field(default_factory=list)


def load_corpus(path: Path) -> Corpus:
    turns: list[str] = []
    questions: list[str] = []
    for conv in json.loads(path.read_text()):
        for key, value in conv["conversation"].items():
            if key.startswith("session_") and isinstance(value, list):
                turns += [f"{t['speaker']}: {t['text']}" for t in value if t.get("text")]
        questions += [qa["question"] for qa in conv["qa"] if qa.get("question")]
    return Corpus(turns=turns, questions=questions)


async def one_request(
    client: RawConnection, corpus: Corpus, rng: random.Random
) -> tuple[str, float]:
    """Issue one request of the mix; returns (status or 'timeout', Retry-After seconds)."""
    roll = rng.random()
    if roll < 0.05 and corpus.acknowledged:
        rid = rng.choice(corpus.acknowledged)
        if rng.random() < 0.5:
            response = await client.request("POST", f"/v1/records/{rid}/reinforce")
        else:
            path = f"/v1/records/{rid}/penalize"
            response = await client.request("POST", path, {"amount": 0.05})
    elif roll < 0.30:
        body = {
            "source": "load",
            "source_kind": "event",
            "summary": rng.choice(corpus.turns),
            "scope": f"load/{rng.randrange(SCOPES)}",
        }
        response = await client.request("POST", "/v1/capture", body)
        if response.status == 201:
            corpus.acknowledged.append(response.json()["primary_record"]["id"])
    else:
        query: dict[str, Any] = {"query": rng.choice(corpus.questions), "limit": 10}
        if rng.random() < 0.5:
            query["scopes"] = [f"load/{rng.randrange(SCOPES)}"]
        response = await client.request("POST", "/v1/retrieve", query)
    return str(response.status), float(response.headers.get("retry-after", 0))


async def run_step(
    url: str, headers: dict[str, str], corpus: Corpus, clients: int, seconds: float, cap: int
) -> Step:
    step = Step(clients)
    deadline = time.monotonic() + seconds
    rng = random.Random(clients)

    async def worker() -> None:
        client = RawConnection(url, headers)
        while time.monotonic() < deadline and len(step.latencies) < cap:
            t0 = time.monotonic()
            try:
                status, retry_after = await one_request(client, corpus, rng)
            except TimeoutError:
                status, retry_after = "timeout", 0.0
            except (OSError, asyncio.IncompleteReadError) as exc:
                status, retry_after = type(exc).__name__, 0.0
            step.latencies.append(time.monotonic() - t0)
            step.statuses[status] += 1
            if status == "503" and retry_after:
                step.retry_after_503 += 1
                # A well-behaved client (or gateway) waits as told before its next call.
                await asyncio.sleep(min(retry_after, max(0.0, deadline - time.monotonic())))
        await client.close()

    t0 = time.monotonic()
    await asyncio.gather(*(worker() for _ in range(clients)))
    step.elapsed = time.monotonic() - t0
    return step


async def verify(client: httpx.AsyncClient, ids: Sequence[str]) -> dict[str, int]:
    """Read back every acknowledged capture (a few at a time, retrying 503s)."""
    gate = asyncio.Semaphore(8)
    missing: list[str] = []

    async def check(rid: str) -> None:
        async with gate:
            for _ in range(20):
                response = await client.get(f"/v1/records/{rid}")
                if response.status_code != 503:
                    break
                await asyncio.sleep(0.2)
            if response.status_code != 200:
                missing.append(rid)

    await asyncio.gather(*(check(rid) for rid in ids))
    return {"acknowledged": len(ids), "readable": len(ids) - len(missing), "lost": len(missing)}


async def ramp(
    url: str, key: str | None, corpus: Corpus, args: argparse.Namespace
) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    warm = await run_step(url, headers, corpus, 4, 3.0, 200)  # fills scopes, loads the model
    print(f"warm-up: {warm.summary()['statuses']}", file=sys.stderr)
    steps = []
    for clients in STEPS:
        step = await run_step(url, headers, corpus, clients, args.step_seconds, args.max_requests)
        steps.append(step.summary())
        print_row(steps[-1])
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=CLIENT_TIMEOUT_S) as client:
        check = await verify(client, corpus.acknowledged)
    peak = max(s["goodput_rps"] for s in steps)
    return {
        "url": url,
        "step_seconds": args.step_seconds,
        "mix": {"retrieve": 0.70, "capture": 0.25, "reinforce_or_penalize": 0.05},
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
        "verify": check,
    }


def print_row(step: dict[str, Any]) -> None:
    statuses = " ".join(f"{k}:{v}" for k, v in step["statuses"].items())
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
    ap.add_argument("--workers", type=int, default=2, help="API processes (--store only)")
    ap.add_argument("--step-seconds", type=float, default=10.0)
    ap.add_argument("--max-requests", type=int, default=20_000, help="per step")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    corpus = load_corpus(args.data)
    if args.url:
        if urlparse(args.url).hostname not in ("127.0.0.1", "localhost", "::1"):
            ap.error("the load ramp only targets loopback servers")
        result = asyncio.run(ramp(args.url, args.api_key, corpus, args))
    else:
        workers = 1 if args.store == "sqlite" else args.workers
        with production_server(args.store, workers=workers) as server:
            result = asyncio.run(ramp(server.url, None, corpus, args))
            result["server"] = server.describe()
    result["store"] = args.store or "external"
    keys = (
        "peak_goodput_rps",
        "goodput_at_256_of_peak",
        "slowest_ms",
        "answered_5xx_other_than_503",
        "verify",
    )
    print(json.dumps({k: result[k] for k in keys}))
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
