"""Faults: the service process SIGKILLed in the middle of writes and of a consolidation
run loses no acknowledged write and leaves nothing half-written; PostgreSQL restarted
under load turns into clear 503s and the service recovers by itself."""

from __future__ import annotations

import random
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from sqlalchemy import select
from sqlalchemy.exc import OperationalError

from app import clock, failpoints
from app.db import Database
from app.enums import Sensitivity
from app.errors import PROBLEM_BASE, database_unavailable
from app.jobs.service import run_now
from app.migrate import upgrade
from app.models import AuditRow, JobRunRow, RecordRow
from tests.conftest import auth, fresh_pg_database, make_settings
from tests.fault_support import (
    Load,
    Op,
    Outcome,
    failpoint_env,
    own_postgres_server,
    service,
    start_postgres,
    stop_postgres,
    wait_until_held,
)
from tests.lifecycle_support import semantic
from tests.store_consistency import COMPRESSED_TAG, Snapshot, store_problems

W, A = auth("writer"), auth("admin")
KILL_ROUNDS = 2
BATCH_SIZE = 8  # valid items per batch, plus one invalid item
SEEDS = 80  # semantic records per round that the revision client supersedes


# -- request bodies -----------------------------------------------------------------------


def observation(name: str, **extra: Any) -> dict[str, Any]:
    """An observation naming a fact and an entity: an episodic primary record, two
    entities, a derived semantic fact and their paired edges."""
    content = {"subject": f"{name}-s", "predicate": "knows", "object": "x", "entities": [name]}
    return {"source": "faults", "source_kind": "observation", "content": content, **extra}


def _capture_op(tag: str) -> Op:
    def op(client: httpx.Client, i: int) -> httpx.Response:
        return client.post("/v1/capture", json=observation(f"{tag}-{i}", tags=[tag]))

    return op


def _batch_op(prefix: str) -> Op:
    def op(client: httpx.Client, i: int) -> httpx.Response:
        tag = f"{prefix}-{i}"
        items = [observation(f"{tag}-{k}", tags=[tag]) for k in range(BATCH_SIZE)]
        items.insert(3, {"source": "faults", "source_kind": "nonsense"})  # refused alone
        return client.post("/v1/capture/batch", json={"items": items})

    return op


def _supersede_op(seeds: list[str]) -> Op:
    def op(client: httpx.Client, i: int) -> httpx.Response | None:
        if i >= len(seeds):
            return None
        body = {"new_record": {"payload": semantic(obj=f"v{i}")}, "rationale": "fault test"}
        return client.post(f"/v1/records/{seeds[i]}/supersede", json=body)

    return op


def _seed_semantic(url: str, prefix: str) -> list[str]:
    items = [
        {**observation(f"{prefix}-{i}"), "proposed_type": "semantic", "content": semantic()}
        for i in range(SEEDS)
    ]
    r = httpx.post(url + "/v1/capture/batch", json={"items": items}, headers=W, timeout=60)
    assert r.status_code == 200 and r.json()["failed"] == 0, r.text
    return [x["result"]["primary_record"]["id"] for x in r.json()["results"]]


# -- what an acknowledged answer promises --------------------------------------------------


def _capture_missing(snap: Snapshot, body: dict[str, Any]) -> list[str]:
    ids = [body["primary_record"]["id"], *(r["id"] for r in body["created_records"])]
    out = [f"acknowledged record {rid} is missing" for rid in ids if rid not in snap.records]
    for e in body["edges"]:
        if (e["source_id"], e["predicate"], e["target_id"]) not in snap.edges:
            out.append(f"acknowledged edge {e['source_id']} {e['predicate']} is missing")
    return out


def acknowledged_problems(snap: Snapshot, outcomes: list[Outcome]) -> list[str]:
    out = []
    for o in (o for o in outcomes if o.ok):
        if o.kind == "capture":
            out += _capture_missing(snap, o.body)
        elif o.kind == "batch":
            for item in o.body["results"]:
                out += _capture_missing(snap, item["result"]) if item["status"] == 201 else []
        elif o.kind == "supersede":
            old, new = o.body["old_record"]["id"], o.body["new_record"]["id"]
            if new not in snap.records or snap.records[old].status != "superseded":
                out.append(f"acknowledged supersede of {old} by {new} is not stored")
    return out


def batch_problems(snap: Snapshot, prefix: str, sent: int) -> list[str]:
    """Each batch is stored whole (all its accepted items) or not at all."""
    out = []
    for i in range(sent):
        stored = len(snap.tagged(f"{prefix}-{i}", "episodic"))
        if stored not in (0, BATCH_SIZE):
            out.append(f"batch {prefix}-{i}: {stored} of its {BATCH_SIZE} accepted items stored")
    return out


# -- (a) kill -9 during writes ------------------------------------------------------------


def _enough_traffic(outcomes: list[Outcome]) -> bool:
    acked = {o.kind for o in outcomes if o.ok}
    return acked == {"capture", "batch", "supersede"} and sum(o.ok for o in outcomes) >= 12


def _kill_mid_stream(db_url: str, log: Path, tag: str) -> list[Outcome]:
    """Concurrent captures, batches and revisions; the service is SIGKILLed while they
    run. Returns every client's outcomes."""
    with service(db_url, log) as svc:
        seeds = _seed_semantic(svc.url, f"{tag}-seed")
        ops = [
            ("capture", _capture_op(f"{tag}-cap-a")),
            ("capture", _capture_op(f"{tag}-cap-b")),
            ("batch", _batch_op(f"{tag}-batch")),
            ("supersede", _supersede_op(seeds)),
        ]
        with Load(svc.url, ops, W, stop_when_gone=True) as load:
            load.wait_until(_enough_traffic, 60)
            time.sleep(random.uniform(0.0, 0.25))
            svc.kill()
        return load.snapshot()


def test_kill_9_during_writes_keeps_acknowledged_writes_whole(
    db_url: str, db: Database, tmp_path: Path
) -> None:
    """Twice over the same database (the second process starts on what the first crash
    left): SIGKILL mid-stream; every 2xx answer is stored whole, nothing in part."""
    for round_no in range(KILL_ROUNDS):
        tag = f"r{round_no}"
        outcomes = _kill_mid_stream(db_url, tmp_path / "service.log", tag)
        assert {o.status for o in outcomes} <= {200, 201, 503, None}, outcomes
        assert any(o.interrupted for o in outcomes), "the kill interrupted no request"
        snap = Snapshot.load(db)
        assert store_problems(snap) == []
        assert acknowledged_problems(snap, outcomes) == []
        batches_sent = sum(o.kind == "batch" for o in outcomes)
        assert batch_problems(snap, f"{tag}-batch", batches_sent) == []


# -- (a) kill -9 during a consolidation run --------------------------------------------------

EPISODES = 2400  # old episodes in 6 threads: 12 compressed records of 200 sources each
THREADS = 6
GROUPS = 12


def _old_episode(n: int, t: float) -> RecordRow:
    summary = f"step {n} of a long task"
    return RecordRow(
        id=str(uuid.uuid4()),
        type="episodic",
        status="active",
        sensitivity=Sensitivity.low.rank,
        confidence=0.8,
        tags=[],
        created_at=t,
        updated_at=t,
        salience_base=1.0,
        salience_t0=t,
        salience_swept=1.0,
        decay_curve="exponential",
        half_life_s=3600.0,
        min_salience=0.0,
        reinforcement_gain=0.1,
        pinned=False,
        deletion_policy="auto_prune",
        created_by="seed",
        provenance={},
        interpretation={},
        payload={
            "kind": "episodic",
            "summary": summary,
            "environment": {"thread_id": f"t{n % THREADS}"},
        },
        search_text=summary,
    )


def _seed_old_episodes(db: Database) -> set[str]:
    """EPISODES episodic records in THREADS threads, two hours old (past the compression
    age), each with its `create` audit entry; written in bulk, which is quicker than
    capturing them and all that consolidation reads."""
    t = clock.now() - 7200
    rows = [_old_episode(n, t + n / 1000) for n in range(EPISODES)]
    with db.transaction() as session:
        session.add_all(rows)
        session.flush()
        session.add_all(
            AuditRow(record_id=r.id, action="create", actor="seed", timestamp=t) for r in rows
        )
    return {r.id for r in rows}


def _runs(db: Database) -> list[JobRunRow]:
    with db.read_transaction() as session:
        return list(session.scalars(select(JobRunRow).where(JobRunRow.job == "consolidation")))


def _run_consolidation(url: str, answers: list[httpx.Response | Exception]) -> None:
    try:
        answers.append(httpx.post(url + "/v1/jobs/consolidation/run", headers=A, timeout=120))
    except httpx.TransportError as exc:
        answers.append(exc)


def _kill_during_consolidation(db_url: str, log: Path, point: str) -> None:
    """Start a consolidation run, let it reach the fail point `point` (where it holds
    still, its transaction as it is) and SIGKILL the service there."""
    answers: list[httpx.Response | Exception] = []
    marker = log.with_suffix(".failpoint")
    with service(db_url, log, failpoint_env(point, marker)) as svc:
        caller = threading.Thread(target=_run_consolidation, args=(svc.url, answers))
        caller.start()

        def still_running() -> None:
            assert caller.is_alive(), answers

        wait_until_held(marker, still_running, 60)
        svc.kill()
        caller.join(30)
    assert len(answers) == 1 and isinstance(answers[0], httpx.TransportError), answers


@pytest.mark.parametrize(
    ("point", "compressed_by_killed_run"),
    [(failpoints.COMPRESSION_UNCOMMITTED, 0), (failpoints.COMPRESSION_COMMITTED, GROUPS)],
    ids=["inside-the-compression-transaction", "after-it-committed"],
)
def test_kill_9_during_consolidation_leaves_episodes_compressed_or_untouched(
    db_url: str, db: Database, tmp_path: Path, point: str, compressed_by_killed_run: int
) -> None:
    """A run killed inside its compression transaction (every row written, not yet
    committed) leaves every episode untouched; killed after that commit, every episode
    compressed (the compressed record with its edges and audit entry). Either way the
    next run, in a new process, marks the dead run abandoned and compresses each episode
    exactly once."""
    episodes = _seed_old_episodes(db)
    _kill_during_consolidation(db_url, tmp_path / "service.log", point)
    snap = Snapshot.load(db)
    assert store_problems(snap) == []
    assert len(snap.tagged(COMPRESSED_TAG, "episodic")) == compressed_by_killed_run
    assert [r.status for r in _runs(db)] == ["running"]  # killed before it finished
    # The dead process's lock went with it: the next run takes it and finishes the work.
    again = run_now(db, make_settings(db_url), "consolidation")
    assert again.status == "succeeded", again.error
    assert again.counts["compressed_records"] == GROUPS - compressed_by_killed_run
    killed = [r for r in _runs(db) if r.id != again.id]
    assert [(r.status, r.error) for r in killed] == [("failed", "abandoned: its runner stopped")]
    snap = Snapshot.load(db)
    assert store_problems(snap) == []
    compressed = snap.tagged(COMPRESSED_TAG, "episodic")
    assert len(compressed) == GROUPS
    sources = [s for c in compressed for s in snap.targets(c.id, "derived_from")]
    assert sorted(sources) == sorted(episodes)  # each episode exactly once
    for c in compressed:
        create = [a for a in snap.audit[c.id] if a.action == "create"]
        assert create and create[0].actor == "system:consolidation"


# -- (b) PostgreSQL restarted under load ---------------------------------------------------

OUTAGE_S = 2.0  # PostgreSQL stays down this long, clients sending all along
RECOVERY_S = 10.0  # every kind of request answers 2xx again within this, without a restart
MAX_ANSWER_S = 5.0  # no request waits longer for its answer, outage or not


@pytest.fixture
def own_postgres() -> Iterator[Any]:
    """A PostgreSQL + pgvector of this test alone, since the test stops and starts it."""
    with own_postgres_server("restart") as server:
        yield server


def _restart_ops(record_id: str) -> list[tuple[str, Op]]:
    def capture(client: httpx.Client, i: int) -> httpx.Response:
        return client.post("/v1/capture", json=observation(f"restart-{i}", tags=["restart"]))

    def read(client: httpx.Client, _i: int) -> httpx.Response:
        return client.get(f"/v1/records/{record_id}")

    def retrieve(client: httpx.Client, _i: int) -> httpx.Response:
        return client.post("/v1/retrieve", json={"query": "knows", "limit": 5})

    def listing(client: httpx.Client, _i: int) -> httpx.Response:
        return client.get("/v1/records", params={"limit": 5})

    return [("capture", capture), ("read", read), ("retrieve", retrieve), ("list", listing)]


def _kinds_ok_since(since: float) -> Callable[[list[Outcome]], bool]:
    """Every kind of request got a 2xx among those sent since `since`."""
    kinds = {"capture", "read", "retrieve", "list"}
    return lambda outcomes: {o.kind for o in outcomes if o.ok and o.started >= since} == kinds


@pytest.mark.parametrize(
    ("error", "unavailable"),
    [
        (psycopg.OperationalError("connection failed: No such file or directory"), True),
        (psycopg.errors.AdminShutdown("terminating connection"), True),  # 57P01
        (psycopg.errors.CannotConnectNow("the database system is starting up"), True),
        (psycopg.errors.SerializationFailure("could not serialize"), False),  # 40001
        (sqlite3.OperationalError("no such table: records"), False),  # a fault, not an outage
    ],
)
def test_only_an_unreachable_database_answers_503(error: Exception, unavailable: bool) -> None:
    assert database_unavailable(OperationalError("SELECT 1", {}, error)) is unavailable


def _assert_clear_503(o: Outcome) -> None:
    assert o.headers.get("content-type") == "application/problem+json", o
    assert int(o.headers.get("retry-after", "0")) >= 1, o
    assert o.body["status"] == 503 and o.body["type"].startswith(PROBLEM_BASE), o
    assert o.body["detail"], o


@pytest.mark.postgres
def test_postgres_restart_under_load_answers_503_then_recovers(
    own_postgres: Any, tmp_path: Path
) -> None:
    """While PostgreSQL is down every request answers a prompt 503 problem+json with
    Retry-After (never a 500, never a hang); once it is back, the same process answers
    2xx again by itself, and every acknowledged capture survived the restart."""
    url = fresh_pg_database(str(own_postgres.get_uri()), None)
    upgrade(url)
    with service(url, tmp_path / "service.log") as svc:
        first = httpx.post(svc.url + "/v1/capture", json=observation("first"), headers=W)
        assert first.status_code == 201, first.text
        ops = _restart_ops(first.json()["primary_record"]["id"])
        with Load(svc.url, ops, W, stop_when_gone=False, timeout_s=20, pace_s=0.02) as load:
            load.wait_until(_kinds_ok_since(0.0), 30)
            stop_postgres(own_postgres)
            stopped = time.monotonic()
            time.sleep(OUTAGE_S)
            ready_down = httpx.get(svc.url + "/readyz", timeout=20)
            restarting = time.monotonic()
            start_postgres(own_postgres)
            back = time.monotonic()
            recovered = load.wait_until(_kinds_ok_since(back), RECOVERY_S)
            time.sleep(0.5)
        ready_up = httpx.get(svc.url + "/readyz", timeout=20)
    outcomes = load.snapshot()
    assert [o for o in outcomes if o.error or o.elapsed > MAX_ANSWER_S] == []
    assert {o.status for o in outcomes} <= {200, 201, 503}, load.summary()
    for o in outcomes:
        if o.status == 503:
            _assert_clear_503(o)
    during = [o for o in outcomes if o.started >= stopped and o.started + o.elapsed < restarting]
    assert len(during) >= 20 and {o.status for o in during} == {503}, load.summary()
    assert [o for o in outcomes if o.started > recovered and not o.ok] == []
    assert ready_down.status_code == 503 and ready_up.status_code == 200
    db = Database(url)
    try:
        snap = Snapshot.load(db)
    finally:
        db.dispose()
    assert store_problems(snap) == []
    assert acknowledged_problems(snap, outcomes) == []
