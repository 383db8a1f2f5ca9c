"""PostgreSQL: which pooled connections are pinged before a unit of work uses them.

SQLAlchemy's pre-ping sends `SELECT 1` at every checkout: a round trip before every
request's first statement, about a fifth of a `GET /v1/records/{id}` (2.5 ms) in the API
process's own time. A connection checked out is pinged here only when

- its socket has something to read: an idle connection is sent nothing unless the server
  ended its session (a restart or shutdown, `pg_terminate_backend`, a failover), whose
  termination notice and end of stream are then waiting; or
- it lay in the pool longer than `pg_ping_after_idle_s`: a peer that vanished without a
  word (a NAT or firewall that forgot an idle connection) shows nothing on the socket.

A ping that fails raises DisconnectionError: the pool discards the connection and checks
out another, so a request after a restart runs on a new connection instead of failing; a
ping cut at its deadline (a silent peer) drops every pooled connection (InvalidatePoolError,
as SQLAlchemy's own pre-ping does). Read replicas ping at every checkout (app/replicas.py).
Linux and macOS (`select.poll`). What neither check sees (a connection
silenced less than `pg_ping_after_idle_s` ago) fails its request with a 503 once, which
invalidates the pool's older connections too."""

from __future__ import annotations

import select
import time
from typing import Any

import psycopg
from sqlalchemy import Engine, event
from sqlalchemy.exc import DisconnectionError, InvalidatePoolError

_IDLE_SINCE = "membrane_idle_since"  # key in a connection record's info: when checked in


def install(engine: Engine, ping_after_idle_s: float) -> None:
    """Ping `engine`'s connections at checkout when they need it (module docstring)."""
    dialect = engine.dialect

    def checkin(_dbapi_conn: Any, record: Any) -> None:
        record.info[_IDLE_SINCE] = time.monotonic()

    def checkout(dbapi_conn: Any, record: Any, _proxy: Any) -> None:
        idle_since = record.info.pop(_IDLE_SINCE, None)
        if idle_since is None:  # a new connection
            return
        idle = time.monotonic() - idle_since > ping_after_idle_s
        if not (idle or _told_something(dbapi_conn)):
            return
        try:
            # False where it answered past the deadline and was cut (app/deadline.py)
            alive = dialect.do_ping(dbapi_conn)
        except dialect.loaded_dbapi.Error as exc:
            raise DisconnectionError(f"a pooled connection failed its ping: {exc}") from exc
        if not alive:  # a silent peer: its other pooled connections are dropped too
            raise InvalidatePoolError("a pooled connection's ping was cut at its deadline")

    event.listen(engine, "checkin", checkin)
    event.listen(engine, "checkout", checkout)


def _told_something(dbapi_conn: Any) -> bool:
    """Whether the idle psycopg connection is closed or its socket is readable."""
    if dbapi_conn.closed:
        return True
    try:
        socket = dbapi_conn.pgconn.socket  # raises when psycopg knows the connection lost
    except psycopg.Error:
        return True
    poller = select.poll()
    poller.register(socket, select.POLLIN | select.POLLPRI)
    return bool(poller.poll(0))
