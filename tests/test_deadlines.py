"""Deadlines (app/deadline.py): a stuck or frozen database answers 503 with Retry-After
within the request deadline, and the service recovers by itself when the database does.

The frozen case is real: every process of a PostgreSQL of this test alone (pgserver in a
temporary directory, so that no other test's server is touched) gets SIGSTOP, as a hung
host or a stopped VM would; SIGCONT always follows (finally)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

from app import deadline, pool_health
from app.config import DatabaseSettings
from app.db import Database, normalize_url
from app.deadline import serving_request
from app.errors import PROBLEM_BASE, database_unavailable, timed_out
from app.migrate import upgrade
from tests.conftest import auth, fresh_pg_database
from tests.fault_support import Load, Op, Outcome, own_postgres_server, service

W = auth("writer")
DEADLINE_S = 2.0  # the service's request deadline in the frozen test
FREEZE_S = 6.0  # how long PostgreSQL stays frozen, clients sending all along
RECOVERY_S = 20.0
# A count no machine finishes within the deadlines below (seconds of work either way).
LONG_COUNT = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000000) "
    "SELECT count(*) FROM c"
)


def _cfg(**values: Any) -> DatabaseSettings:
    return DatabaseSettings(**values)


def test_sqlite_interrupts_a_requests_statement_past_the_deadline(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'd.db'}", _cfg(request_deadline_s=0.2))
    try:
        with (
            serving_request(),
            pytest.raises(OperationalError) as caught,
            db.read_transaction() as session,
        ):
            session.execute(text(LONG_COUNT)).all()
        assert timed_out(caught.value)
        with db.read_transaction() as session:  # outside a request: no deadline
            assert session.execute(text(LONG_COUNT.replace("20000000", "300000"))).scalar() == (
                300000
            )
        with serving_request(), db.read_transaction() as session:  # the connection still works
            assert session.execute(text("SELECT 1")).scalar() == 1
    finally:
        db.dispose()


def _failing_in_a_request(db: Database, sql: str) -> OperationalError:
    """The error `sql` raised, read in a request."""
    with (
        serving_request(),
        pytest.raises(OperationalError) as failed,
        db.read_transaction() as session,
    ):
        session.execute(text(sql))
    return failed.value


@pytest.mark.postgres
def test_postgres_times_out_a_requests_statement_and_lock_wait(pg_url: str) -> None:
    db = Database(pg_url, _cfg(statement_timeout_ms=300, lock_timeout_ms=200))
    try:
        assert timed_out(_failing_in_a_request(db, "SELECT pg_sleep(5)"))
        with db.transaction() as holder:
            holder.execute(text("LOCK TABLE records IN ACCESS EXCLUSIVE MODE"))
            assert timed_out(_failing_in_a_request(db, "SELECT count(*) FROM records"))
        with db.read_transaction() as session:  # outside a request the timeouts are lifted
            assert session.execute(text("SHOW statement_timeout")).scalar() == "0"
            session.execute(text("SELECT pg_sleep(0.5)"))
    finally:
        db.dispose()


@pytest.mark.postgres
def test_a_postgres_statement_cut_by_the_watchdog_is_an_unavailable_database(
    pg_url: str,
) -> None:
    """The server does not time the statement out (its timeout off); the process's
    watchdog cancels the statement and shuts the socket at the request deadline: the
    caller gets the driver's error as SQLAlchemy wraps it, which the service answers 503
    (not an AttributeError and a 500: the watchdog's handle_error listener once returned
    a bool)."""
    db = Database(pg_url, _cfg(request_deadline_s=0.5, statement_timeout_ms=0))
    try:
        # The shut socket or, when its answer wins the race, the cancel (57014): either
        # answers 503 (operational_response)
        cut = _failing_in_a_request(db, "SELECT pg_sleep(5)")
        assert database_unavailable(cut) or timed_out(cut)
        with serving_request(), db.read_transaction() as session:  # a new connection serves
            assert session.execute(text("SELECT 1")).scalar() == 1
    finally:
        db.dispose()


@pytest.mark.postgres
def test_a_ping_answered_as_the_watchdog_cuts_it_costs_a_new_connection_not_a_503(
    pg_url: str,
) -> None:
    """The process stalls right after the pool's ping got its answer (a long pause, a
    starved CPU) and the watchdog, running first, cuts the connection for its late ping:
    the pool must open a new connection, not hand out the cut one (whose first statement
    failed: a 503 "database unavailable" for a database that was up, seen on a busy CI
    machine). The service's ping (app/pool_health.py), here at every checkout."""
    engine = create_engine(normalize_url(pg_url), pool_size=1)
    pool_health.install(engine, 0.0)
    dialect: Any = engine.dialect
    ping = dialect.do_ping
    stalls: list[float] = []

    def answered_then_stalled(dbapi_conn: Any) -> bool:
        alive = ping(dbapi_conn)
        if stalls:
            time.sleep(stalls.pop())
        return bool(alive)

    dialect.do_ping = answered_then_stalled
    watchdog = deadline.install(engine, _cfg())
    try:
        with engine.connect() as conn:
            first = conn.execute(text("SELECT pg_backend_pid()")).scalar()
        stalls.append(deadline.PING_DEADLINE_S + 5 * deadline.TICK_S)
        with serving_request(), engine.connect() as conn:
            second = conn.execute(text("SELECT pg_backend_pid()")).scalar()
        assert watchdog.cuts == 1
        assert second != first  # the cut connection was replaced
        with serving_request(), engine.connect() as conn:  # and the pool serves on
            assert conn.execute(text("SELECT pg_backend_pid()")).scalar() == second
    finally:
        engine.dispose()


# -- a frozen PostgreSQL --------------------------------------------------------------------


@pytest.fixture
def own_postgres() -> Iterator[Any]:
    """A PostgreSQL + pgvector of this test alone, since the test freezes it."""
    with own_postgres_server("freeze") as server:
        yield server


def _cluster_pids(pgdata: Path) -> list[int]:
    """The postmaster (first) and every process it started."""
    postmaster = int((pgdata / "postmaster.pid").read_text().split()[0])
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == postmaster:
                children.append(int(entry.name))
    return [postmaster, *children]


@contextmanager
def frozen(server: Any) -> Iterator[None]:
    pids = _cluster_pids(Path(server.pgdata))
    try:
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        yield
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)


def _ops(record_id: str) -> list[tuple[str, Op]]:
    def capture(client: httpx.Client, i: int) -> httpx.Response:
        body = {"source": "t", "source_kind": "event", "summary": f"frozen {i}"}
        return client.post("/v1/capture", json=body)

    def read(client: httpx.Client, _i: int) -> httpx.Response:
        return client.get(f"/v1/records/{record_id}")

    def retrieve(client: httpx.Client, _i: int) -> httpx.Response:
        return client.post("/v1/retrieve", json={"query": "frozen", "limit": 5})

    def ready(client: httpx.Client, _i: int) -> httpx.Response:
        return client.get("/readyz")

    return [("capture", capture), ("read", read), ("retrieve", retrieve), ("readyz", ready)]


def _all_ok_since(since: float) -> Any:
    kinds = {"capture", "read", "retrieve", "readyz"}
    return lambda outcomes: {o.kind for o in outcomes if o.ok and o.started >= since} == kinds


def _assert_prompt_503(o: Outcome) -> None:
    assert o.status == 503, o
    if o.kind == "readyz":  # the probe's own body: {"status": "unavailable", ...}
        assert o.body["status"] == "unavailable", o
        return
    assert o.headers.get("content-type") == "application/problem+json", o
    assert int(o.headers.get("retry-after", "0")) >= 1, o
    assert o.body["type"].startswith(PROBLEM_BASE) and o.body["detail"], o


@pytest.mark.postgres
def test_a_frozen_postgres_answers_503_within_the_deadline_then_recovers(
    own_postgres: Any, tmp_path: Path
) -> None:
    url = fresh_pg_database(str(own_postgres.get_uri()), None)
    upgrade(url)
    env = {
        "MEMBRANE_DATABASE__REQUEST_DEADLINE_S": str(DEADLINE_S),
        "MEMBRANE_DATABASE__STATEMENT_TIMEOUT_MS": "1500",
        "MEMBRANE_DATABASE__PG_CONNECT_TIMEOUT_S": "2",
    }
    with service(url, tmp_path / "service.log", env) as svc:
        body = {"source": "t", "source_kind": "event", "summary": "before the freeze"}
        first = httpx.post(svc.url + "/v1/capture", json=body, headers=W)
        assert first.status_code == 201, first.text
        with Load(svc.url, _ops(first.json()["primary_record"]["id"]), W, stop_when_gone=False,
                  timeout_s=30, pace_s=0.05) as load:  # fmt: skip
            load.wait_until(_all_ok_since(0.0), 30)
            with frozen(own_postgres):
                stopped = time.monotonic()
                time.sleep(FREEZE_S)
                resumed = time.monotonic()
            recovered = load.wait_until(_all_ok_since(resumed), RECOVERY_S)
            time.sleep(0.5)
        log = svc.log_tail(20000)
    outcomes = load.snapshot()
    assert [o for o in outcomes if o.error] == [], load.summary()
    late = [o for o in outcomes if o.elapsed > DEADLINE_S + 1]
    assert late == [], ([(o.kind, round(o.elapsed, 2), o.status) for o in late], log[-6000:])
    during = [o for o in outcomes if o.started >= stopped and o.started + o.elapsed < resumed]
    # Each client's answers take at most the deadline, so each had one inside the freeze.
    assert {o.kind for o in during} == {"capture", "read", "retrieve", "readyz"}, load.summary()
    for o in during:
        _assert_prompt_503(o)
    assert [o for o in outcomes if o.started > recovered and not o.ok] == [], load.summary()
    assert "unhandled error" not in log, log
