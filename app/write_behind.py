"""PostgreSQL: rows sent to the server without waiting for it (write-behind).

A batch capture stages its rows and writes them with a few multi-row INSERTs. Waiting for
PostgreSQL to insert them (a batch of 100 events: ~7 ms of the server's work, most of it
the records' full-text and B-tree index entries) left the API process idle for a quarter
of the request. `send` runs INSERTs inside a psycopg pipeline left open: the rows go out
and the caller goes on (the batch's next items, building the answer) while the server
inserts them. Their results are read, and any error raised, before anything else touches
the connection: its next statement, commit or rollback (`install`'s engine events), so
the transaction sees its own rows and a failed INSERT fails the request as it did when
waited for. Statements sent this way must return no rows.

SQLite writes in process: `send` is the plain statement there."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from contextlib import AbstractContextManager, suppress
from typing import Any, cast

import psycopg
from sqlalchemy import Connection, Engine, event
from sqlalchemy.exc import DBAPIError

from app.deadline import Watchdog

_PIPELINE = "membrane.write_behind"  # the connection's open pipeline (its context manager)
_SENDING = "membrane.write_behind.sending"  # our own statement: no draining before it
# A local server's Unix socket buffers 208 kB by default: a batch's rows (3-4 kB a record)
# filled it and the sender waited for the server after all. TCP sizes its buffers itself
# (setting one would stop that); the kernel caps this at net.core.wmem_max.
UNIX_SEND_BUFFER = 2 * 1024 * 1024


def send(conn: Connection, execute: Callable[[], object]) -> None:
    """Run `execute` (statements returning no rows) on `conn` without waiting for the
    server, on PostgreSQL; at once elsewhere."""
    # Inside a savepoint a failed row must fail its own statement: ROLLBACK TO SAVEPOINT
    # would otherwise drain it and raise instead of undoing it.
    if conn.dialect.name != "postgresql" or conn.in_nested_transaction():
        execute()
        return
    info = conn.info
    if _PIPELINE not in info:
        driver = cast(psycopg.Connection[Any], conn.connection.driver_connection)
        pipeline: AbstractContextManager[Any] = driver.pipeline()
        pipeline.__enter__()
        info[_PIPELINE] = pipeline
    info[_SENDING] = True
    try:
        execute()
    finally:
        info.pop(_SENDING, None)


def drain(conn: Connection) -> None:
    """Wait for what `send` sent on `conn`; its first error is raised as SQLAlchemy
    raises a statement's (so that an outage is still told from a fault)."""
    pipeline = conn.info.pop(_PIPELINE, None)
    if pipeline is None:
        return
    try:
        pipeline.__exit__(None, None, None)
    except psycopg.Error as exc:
        # A cut connection is invalidated, as SQLAlchemy does for a statement's error, so
        # that the rollback which follows is not sent down it (a second error).
        cut = _is_cut(conn, exc)
        if cut:
            conn.invalidate(exc)
        raise DBAPIError.instance(
            "(rows sent without waiting)", None, exc, psycopg.Error,
            connection_invalidated=cut, dialect=conn.dialect,
        ) from exc  # fmt: skip


# The server's "this session is ending" states: administrator, crash, or not accepting.
_ENDING_STATES = ("57P01", "57P02", "57P03")


def _is_cut(conn: Connection, exc: BaseException) -> bool:
    """Whether `exc`, or an error it replaced, says that the connection is gone. When the
    server ends the session while rows are in flight, psycopg can read its error (57P01)
    before the socket's end; leaving the pipeline then fails with "cannot exit pipeline
    mode while busy", which replaces that error (its `__context__`) on a connection not
    yet known to be broken, which SQLAlchemy's check alone would call alive."""
    dbapi = conn.connection.dbapi_connection
    err: BaseException | None = exc
    while err is not None:
        if isinstance(err, psycopg.Error):
            state = err.sqlstate or ""
            if state.startswith("08") or state in _ENDING_STATES:
                return True
            if conn.dialect.is_disconnect(cast(Any, err), dbapi, None):
                return True
        err = err.__context__
    return False


def _abandon(info: dict[Any, Any]) -> None:
    """Close the pipeline of a transaction being rolled back: its errors no longer matter."""
    pipeline = info.pop(_PIPELINE, None)
    if pipeline is None:
        return
    with suppress(Exception):  # the rollback that follows undoes the rows anyway
        pipeline.__exit__(None, None, None)


def install(engine: Engine, watchdog: Watchdog) -> None:
    """Drain before every statement (savepoints too) and commit, under the request
    deadline as they are (`watchdog`, app/deadline.py; installed first, so a statement's
    is armed already); abandon on rollback and when the pool resets a connection (a
    request that failed half-way)."""

    def before_statement(conn: Connection, *_args: Any) -> None:
        if _PIPELINE in conn.info and _SENDING not in conn.info:
            drain(conn)

    def before_commit(conn: Connection) -> None:
        if _PIPELINE in conn.info:
            watchdog.arm(conn.connection.dbapi_connection)
            try:
                drain(conn)
            finally:
                watchdog.disarm()

    def abandon(dbapi_conn: Any, info: dict[Any, Any]) -> None:
        if _PIPELINE in info:  # the rollback's own deadline is armed only after this
            watchdog.arm(dbapi_conn)
            try:
                _abandon(info)
            finally:
                watchdog.disarm()

    def on_rollback(conn: Connection) -> None:
        # A connection the server cut is invalidated before this rollback and its info
        # may not be read then; its pipeline went with it (reconnecting clears the info).
        if not conn.invalidated:
            abandon(conn.connection.dbapi_connection, conn.info)

    event.listen(engine, "connect", _roomy_unix_socket)
    event.listen(engine, "before_cursor_execute", before_statement)
    event.listen(engine, "commit", before_commit)
    event.listen(engine, "rollback", on_rollback)
    event.listen(engine.pool, "reset", lambda dbapi, record, _state: abandon(dbapi, record.info))


def _roomy_unix_socket(dbapi_conn: Any, _record: Any) -> None:
    try:  # a connection the server cuts right away has no socket left: nothing to size
        sock = socket.socket(fileno=os.dup(dbapi_conn.pgconn.socket))  # family read off it
    except (OSError, psycopg.Error):
        return
    try:
        if sock.family == socket.AF_UNIX:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, UNIX_SEND_BUFFER)
    finally:
        sock.close()
