"""PostgreSQL: a pooled connection is pinged before use only when it needs it
(app/pool_health.py): when the server ended its session (its socket is readable) or it
lay idle past `pg_ping_after_idle_s`. A busy process sends no `SELECT 1` a request, and a
session the server ended still costs a new connection, not a 503."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from tests.conftest import app_state, auth, make_settings

pytestmark = pytest.mark.postgres
A = auth("admin")


def _service(
    pg_url: str, make_client: Callable[..., TestClient], idle_s: float = 10.0
) -> tuple[TestClient, str, list[bool]]:
    """A service on one pooled connection, a record to read, and its pings' outcomes."""
    database = {"pool_size": 1, "max_overflow": 0, "pg_ping_after_idle_s": idle_s}
    client = make_client(make_settings(pg_url, database=database))
    body = {"source_kind": "event", "source": "t", "summary": "the harbor", "scope": "s"}
    r = client.post("/v1/capture", json=body, headers=A)
    assert r.status_code == 201, r.text
    dialect: Any = app_state(client).db.engine.dialect
    ping, pings = dialect.do_ping, []

    def counted(dbapi_conn: Any) -> bool:
        try:
            alive = bool(ping(dbapi_conn))
        except Exception:
            pings.append(False)
            raise
        pings.append(alive)
        return alive

    dialect.do_ping = counted
    return client, str(r.json()["primary_record"]["id"]), pings


def _read(client: TestClient, record_id: str) -> None:
    r = client.get(f"/v1/records/{record_id}", headers=A)
    assert r.status_code == 200, r.text


def _backend_pid(client: TestClient) -> int:
    with app_state(client).db.read_transaction() as session:
        return int(session.execute(text("SELECT pg_backend_pid()")).scalar_one())


def test_a_busy_connection_is_not_pinged(
    pg_url: str, make_client: Callable[..., TestClient]
) -> None:
    client, record_id, pings = _service(pg_url, make_client)
    for _ in range(10):
        _read(client, record_id)
    assert pings == []


def test_a_connection_idle_past_the_setting_is_pinged_once(
    pg_url: str, make_client: Callable[..., TestClient]
) -> None:
    client, record_id, pings = _service(pg_url, make_client, idle_s=0.2)
    _read(client, record_id)
    _read(client, record_id)
    assert pings == []
    time.sleep(0.3)
    _read(client, record_id)
    assert pings == [True]


def test_a_session_the_server_ended_is_replaced_before_a_request_uses_it(
    pg_url: str, pg_server: Any, make_client: Callable[..., TestClient]
) -> None:
    """pg_terminate_backend (as a restart or a failover ends sessions) on the pool's only
    connection, used a moment ago: the next request pings it (its socket holds the
    notice), finds it dead and runs on a new connection: 200, not 503."""
    client, record_id, pings = _service(pg_url, make_client)
    _read(client, record_id)
    ended = _backend_pid(client)
    with psycopg.connect(str(pg_server.get_uri()), autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (ended,))
    time.sleep(0.2)  # the notice reaches the socket
    _read(client, record_id)
    assert pings == [False]
    assert _backend_pid(client) != ended
