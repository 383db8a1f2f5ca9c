"""Concurrency that degrades gracefully: load shedding with 503 + Retry-After, readers
that never wait for writers on SQLite, no lost or duplicated writes under concurrent
capture, background work in `python -m app.worker`, and the jobs' leader lock across
processes."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
from fastapi.testclient import TestClient
from sqlalchemy import func, select, text
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from app.config import Settings
from app.db import Database
from app.jobs.service import leader_lock
from app.main import create_app
from app.middleware import CapacityMiddleware
from app.models import RecordRow
from tests.conftest import app_state, auth, make_settings
from tests.embedding_support import FakeOpenAI, openai_settings
from tests.live_support import live_server

ROOT = Path(__file__).resolve().parents[1]
W = auth("writer")


def test_capacity_sheds_with_503_and_retry_after() -> None:
    """One request in flight, none queued: the second is refused at once, the first
    finishes, and paths outside /v1 are never shed."""
    release = asyncio.Event()

    async def slow(_request: Request) -> PlainTextResponse:
        await release.wait()
        return PlainTextResponse("done")

    async def health(_request: Request) -> PlainTextResponse:
        return PlainTextResponse("ok")

    inner = Starlette(routes=[Route("/v1/slow", slow), Route("/healthz", health)])
    app = CapacityMiddleware(
        inner,
        max_in_flight=1,
        max_queued=0,
        queue_timeout_s=5.0,
        retry_after_s=2,
        max_retry_after_s=10,
    )

    async def scenario() -> tuple[httpx.Response, httpx.Response, httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            first = asyncio.create_task(client.get("/v1/slow"))
            await asyncio.sleep(0.05)
            shed = await client.get("/v1/slow")
            health_answer = await client.get("/healthz")
            release.set()
            return await first, shed, health_answer

    first, shed, health_answer = asyncio.run(scenario())
    assert first.status_code == 200 and first.text == "done"
    assert shed.status_code == 503 and shed.headers["retry-after"] == "2"
    assert shed.headers["content-type"] == "application/problem+json"
    assert shed.json()["type"].endswith("/overloaded")
    assert health_answer.status_code == 200


def test_a_queued_request_waits_for_a_turn_then_runs() -> None:
    release = asyncio.Event()

    async def slow(_request: Request) -> PlainTextResponse:
        await release.wait()
        return PlainTextResponse("done")

    app = CapacityMiddleware(
        Starlette(routes=[Route("/v1/slow", slow)]),
        max_in_flight=1,
        max_queued=1,
        queue_timeout_s=5.0,
        retry_after_s=1,
        max_retry_after_s=10,
    )

    async def scenario() -> list[int]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            running = asyncio.create_task(client.get("/v1/slow"))
            await asyncio.sleep(0.05)
            queued = asyncio.create_task(client.get("/v1/slow"))
            await asyncio.sleep(0.05)
            refused = await client.get("/v1/slow")  # the queue (1) is full
            release.set()
            return [(await running).status_code, (await queued).status_code, refused.status_code]

    assert asyncio.run(scenario()) == [200, 200, 503]


def test_retry_after_is_the_time_the_backlog_takes_to_drain() -> None:
    """One slot; a request that took ~0.7 s sets the service time. With two requests
    waiting, a refused third is told to come back when they will have run:
    ceil(3 × 0.7 s / 1 slot) = 3 s (for any measured time up to 1 s), not the 1 s floor."""
    release = asyncio.Event()

    async def slow(_request: Request) -> PlainTextResponse:
        await asyncio.sleep(0.7)
        return PlainTextResponse("slow")

    async def hold(_request: Request) -> PlainTextResponse:
        await release.wait()
        return PlainTextResponse("held")

    app = CapacityMiddleware(
        Starlette(routes=[Route("/v1/slow", slow), Route("/v1/hold", hold)]),
        max_in_flight=1,
        max_queued=2,
        queue_timeout_s=5.0,
        retry_after_s=1,
        max_retry_after_s=10,
    )

    async def scenario() -> tuple[list[int], httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            measured = await client.get("/v1/slow")
            running = [asyncio.create_task(client.get("/v1/hold")) for _ in range(3)]
            for _ in range(500):  # until one holds the slot and two wait for it
                if app.queued == 2:
                    break
                await asyncio.sleep(0.01)
            refused = await client.get("/v1/hold")
            release.set()
            statuses = [measured.status_code] + [(await r).status_code for r in running]
            return statuses, refused

    statuses, refused = asyncio.run(scenario())
    assert statuses == [200, 200, 200, 200]
    assert refused.status_code == 503
    assert refused.headers["retry-after"] == "3"


def test_concurrent_captures_lose_nothing_and_never_fail(db_url: str, db: Database) -> None:
    """64 clients at once against tight capacity: every answer is 201 or 503 with
    Retry-After, every acknowledged record is readable, and nothing is stored twice."""
    settings = make_settings(
        db_url, capacity={"max_in_flight": 4, "max_queued": 8, "queue_timeout_s": 0.5}
    )
    with live_server(settings) as url, httpx.Client(base_url=url, timeout=30) as client:
        # One client per thread: 64 threads sharing one httpx pool once failed on the
        # client side (a socket another thread had closed: EBADF), not in the service.
        local = threading.local()
        clients: list[httpx.Client] = []

        def capture(i: int) -> httpx.Response:
            if not hasattr(local, "client"):
                local.client = httpx.Client(base_url=url, timeout=30)
                clients.append(local.client)
            body = {"source": "load", "source_kind": "event", "summary": f"turn {i}"}
            response: httpx.Response = local.client.post("/v1/capture", json=body, headers=W)
            return response

        with ThreadPoolExecutor(max_workers=64) as pool:
            answers = list(pool.map(capture, range(256)))
        for each in clients:
            each.close()
        statuses = {r.status_code for r in answers}
        assert statuses <= {201, 503}, statuses
        assert all("retry-after" in r.headers for r in answers if r.status_code == 503)
        acknowledged = [r.json()["primary_record"]["id"] for r in answers if r.status_code == 201]
        assert acknowledged
        for rid in acknowledged:
            assert client.get(f"/v1/records/{rid}", headers=W).status_code == 200
    with db.transaction() as session:
        stored = session.scalar(select(func.count()).select_from(RecordRow))
    assert stored == len(acknowledged) == len(set(acknowledged))


def test_sqlite_readers_never_wait_for_a_writer_and_writers_get_503(
    sqlite_template: Path, tmp_path: Path
) -> None:
    shutil.copyfile(sqlite_template, tmp_path / "m.db")
    url = f"sqlite:///{tmp_path / 'm.db'}"
    settings = make_settings(
        url, database={"sqlite_busy_timeout_ms": 200, "sqlite_write_wait_s": 0.5}
    )
    with live_server(settings) as base, httpx.Client(base_url=base, timeout=30) as client:
        body = {"source": "a", "source_kind": "event", "summary": "before the lock"}
        rid = client.post("/v1/capture", json=body, headers=W).json()["primary_record"]["id"]
        other_process = Database(url)  # another writer holds SQLite's write lock
        try:
            with other_process.transaction() as session:
                session.execute(text("SELECT 1"))  # BEGIN IMMEDIATE: the write lock is held
                read = client.get(f"/v1/records/{rid}", headers=W)
                listed = client.post("/v1/retrieve", json={"query": "lock"}, headers=W)
                write = client.post("/v1/capture", json=body, headers=W)
        finally:
            other_process.dispose()
    assert read.status_code == 200 and listed.status_code == 200
    assert write.status_code == 503 and write.headers["retry-after"] == "1"


def _worker_env(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMBRANE_")}
    env.update(
        MEMBRANE_DATABASE_URL=settings.database_url,
        MEMBRANE_SCHEDULER__ENABLED="false",
        MEMBRANE_EMBEDDING__PROVIDER=settings.embedding.provider,
        MEMBRANE_EMBEDDING__BASE_URL=settings.embedding.base_url,
        MEMBRANE_EMBEDDING__MODEL=settings.embedding.model,
        MEMBRANE_EMBEDDING__DIMENSION=str(settings.embedding.dimension),
        MEMBRANE_EMBEDDING__API_KEY=settings.embedding.api_key,
        MEMBRANE_EMBEDDING__WORKER_INTERVAL_S="0.05",
    )
    return env


def test_records_are_embedded_by_the_worker_process(
    db_url: str, db: Database, fake_openai: FakeOpenAI
) -> None:
    settings = openai_settings(db_url, fake_openai, worker_enabled=True)
    settings = settings.model_copy(update={"background": "worker"})
    with live_server(settings) as url, httpx.Client(base_url=url, timeout=30) as client:
        body = {"source": "a", "source_kind": "event", "summary": "whales sing at night"}
        rid = client.post("/v1/capture", json=body, headers=W).json()["primary_record"]["id"]
        assert client.get("/readyz").json()["embedding"]["pending"] == 1
        calls_by_api = len(fake_openai.requests)
        worker = subprocess.Popen(
            [sys.executable, "-m", "app.worker"], cwd=ROOT, env=_worker_env(settings)
        )
        try:
            deadline = time.monotonic() + 60
            while client.get("/readyz").json()["embedding"]["pending"]:
                assert worker.poll() is None, "the worker process died"
                assert time.monotonic() < deadline, "the worker never embedded the record"
                time.sleep(0.1)
        finally:
            worker.send_signal(signal.SIGTERM)
            code = worker.wait(30)
    assert code == 0
    assert calls_by_api == 0  # the API process embedded nothing itself
    with db.transaction() as session:
        assert session.get(RecordRow, rid).embedding_status == "done"  # type: ignore[union-attr]


def test_api_process_in_worker_mode_starts_no_background(db_url: str) -> None:
    settings = make_settings(
        db_url, background="worker", scheduler={"enabled": True}, embedding={"worker_enabled": True}
    )
    with TestClient(create_app(settings)) as client:
        state = app_state(client)
        assert state.scheduler is None
        assert state.embedding is not None and state.embedding.worker is None


def test_leader_lock_holds_across_processes(db_url: str, db: Database) -> None:
    script = (
        "import sys\n"
        "from app.db import Database\n"
        "from app.jobs.service import leader_lock\n"
        "db = Database(sys.argv[1])\n"
        "with leader_lock(db, 'decay') as got:\n"
        "    print('leader' if got else 'locked')\n"
    )
    command = [sys.executable, "-c", script, db_url]
    with leader_lock(db, "decay") as got:
        assert got
        held = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    free = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    assert held.stdout.strip() == "locked"
    assert free.stdout.strip() == "leader"
