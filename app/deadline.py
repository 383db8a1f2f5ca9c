"""Deadlines of the database work a request does, so that a stuck or frozen database
answers 503 (with Retry-After) within a bounded time instead of holding the request.

Inside a request (`serving_request`, entered by the outermost middleware for every HTTP
request):
- PostgreSQL stops each statement after `statement_timeout_ms` and each lock wait after
  `lock_timeout_ms` (server side: the connection's settings, given at connect);
- a statement, commit, rollback or ping the database has not answered within
  `request_deadline_s` is cut from this side: the statement is cancelled (psycopg's cancel
  request, which a frozen server reads when it resumes) and the connection's socket is shut,
  so the waiting thread gets an error at once, its transaction is rolled back, and the pool
  replaces the connection. This is what bounds a request when the server cannot even time
  itself out (SIGSTOP, a hung host);
- SQLite interrupts a statement running past `request_deadline_s` (a progress handler).

Work outside a request (the background worker, scheduled jobs, a job run from the API,
migrations, backups) has no deadline: PostgreSQL's timeouts are lifted for its transactions
(SET LOCAL), and nothing cuts it."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from psycopg import generators, waiting
from sqlalchemy import Connection, Engine, event

from app.config import DatabaseSettings

log = logging.getLogger("membrane.deadline")

_IN_REQUEST: ContextVar[bool] = ContextVar("membrane_in_request", default=False)
TICK_S = 0.05  # how often the watchdog looks for work past its deadline
PING_DEADLINE_S = 0.5  # a ping answers in a millisecond; a silent one means a dead peer
CANCEL_WAIT_S = 60.0  # how long a cancel request waits for a frozen server to read it
SQLITE_PROGRESS_STEPS = 10_000  # VM instructions between two looks at the deadline


@contextmanager
def serving_request() -> Iterator[None]:
    """Database work done inside this block (in this task or the threads it starts) is
    bounded by the deadlines."""
    token = _IN_REQUEST.set(True)
    try:
        yield
    finally:
        _IN_REQUEST.reset(token)


@contextmanager
def unbounded() -> Iterator[None]:
    """Work that a request waits for but that may take long (a job run on demand)."""
    token = _IN_REQUEST.set(False)
    try:
        yield
    finally:
        _IN_REQUEST.reset(token)


def in_request() -> bool:
    return _IN_REQUEST.get()


def pg_options(cfg: DatabaseSettings) -> str:
    """libpq `options` setting the server-side timeouts of every new session."""
    return f"-c statement_timeout={cfg.statement_timeout_ms} -c lock_timeout={cfg.lock_timeout_ms}"


class Watchdog:
    """Which connections are busy with a request's database call, and until when; a
    thread cuts the PostgreSQL ones that run past it (SQLite looks for itself)."""

    def __init__(self, deadline_s: float, cut: Callable[[Any], None] | None) -> None:
        self.deadline_s = deadline_s
        self._cut = cut
        self._busy: dict[int, tuple[float, Any]] = {}
        self._lock = threading.Lock()
        self._current = threading.local()  # the connection this thread is waiting on
        self._thread: threading.Thread | None = None
        self.cuts = 0

    def arm(self, dbapi_conn: Any, seconds: float | None = None) -> None:
        if not in_request():
            return
        until = time.monotonic() + (seconds if seconds is not None else self.deadline_s)
        self._current.key = id(dbapi_conn)
        with self._lock:
            self._busy[id(dbapi_conn)] = (until, dbapi_conn)
            if self._cut is not None and self._thread is None:
                self._thread = threading.Thread(
                    target=self._watch, name="membrane-deadline", daemon=True
                )
                self._thread.start()

    def disarm(self) -> bool:
        """This thread's call returned (or failed); whether the watchdog cut its connection
        meanwhile. A call can have its answer and still be cut: when the process stalls
        past the deadline (a long pause, a starved CPU), the watchdog may run before the
        caller does, and the connection is gone even though the call succeeded."""
        key = getattr(self._current, "key", None)
        if key is None:
            return False
        self._current.key = None
        with self._lock:
            return self._busy.pop(key, None) is None

    def past_deadline(self, dbapi_conn: Any) -> bool:
        entry = self._busy.get(id(dbapi_conn))
        return entry is not None and time.monotonic() > entry[0]

    def _watch(self) -> None:
        while True:
            time.sleep(TICK_S)
            now = time.monotonic()
            with self._lock:  # a disarm waits: the connection cannot be reused meanwhile
                late = [key for key, (until, _) in self._busy.items() if now > until]
                for key in late:
                    _, conn = self._busy.pop(key)
                    self.cuts += 1
                    try:
                        assert self._cut is not None
                        self._cut(conn)
                    except Exception:  # a connection already gone: nothing left to cut
                        log.exception("could not cut a connection past its deadline")


def cut_postgres(conn: Any) -> None:
    """Cancel the statement and shut the socket, which ends the waiting thread's call at
    once. The cancel request goes out on its own connection, non-blocking (libpq 17's
    cancel API), finished by a helper thread: a frozen server reads it when it resumes."""
    if conn.closed:
        return
    log.warning("a database call ran past the request deadline: cancelling it")
    pgconn = conn.pgconn
    cancel = pgconn.cancel_conn()  # its own copy of the key: outlives the connection
    cancel.start()
    threading.Thread(target=_finish_cancel, args=(cancel,), daemon=True).start()
    with socket.socket(fileno=os.dup(pgconn.socket)) as sock:
        sock.shutdown(socket.SHUT_RDWR)


def _finish_cancel(cancel: Any) -> None:
    try:
        waiting.wait_conn(generators.cancel(cancel), interval=0.1, timeout=CANCEL_WAIT_S)
    except Exception as exc:  # the server is gone or still frozen: the shut socket did it
        log.info("cancel request not confirmed: %s", exc)
    finally:
        cancel.finish()


def install(engine: Engine, cfg: DatabaseSettings) -> Watchdog:
    """Arm the watchdog around every statement, commit, rollback and ping of `engine`."""
    postgres = engine.dialect.name == "postgresql"
    watchdog = Watchdog(cfg.request_deadline_s, cut_postgres if postgres else None)
    dialect: Any = engine.dialect  # its DB-API calls, wrapped on this engine's instance
    dialect.do_ping = _watched_ping(dialect.do_ping, watchdog)
    dialect.do_commit = _watched(dialect.do_commit, watchdog)
    dialect.do_rollback = _watched(dialect.do_rollback, watchdog)

    def arm(conn: Connection, *_args: Any) -> None:
        watchdog.arm(conn.connection.dbapi_connection)

    event.listen(engine, "before_cursor_execute", arm)
    event.listen(engine, "after_cursor_execute", lambda *_args: watchdog.disarm())
    event.listen(engine, "handle_error", _disarmed_on_error(watchdog))
    if postgres:
        event.listen(engine, "begin", _lift_outside_requests)
    else:
        event.listen(engine, "connect", _sqlite_interrupts(watchdog))
    return watchdog


def _disarmed_on_error(watchdog: Watchdog) -> Callable[[Any], None]:
    """The handle_error listener. It returns None: SQLAlchemy raises whatever such a
    listener returns instead of the error, and `disarm`'s True (the watchdog cut this
    call) had turned a statement cut at its deadline into an AttributeError, a 500."""

    def disarm(_context: Any) -> None:
        watchdog.disarm()

    return disarm


def _watched(call: Callable[[Any], Any], watchdog: Watchdog) -> Any:
    def watched(dbapi_conn: Any) -> Any:
        # SQLAlchemy passes the pool's proxy of the connection to commit and rollback.
        watchdog.arm(getattr(dbapi_conn, "dbapi_connection", dbapi_conn))
        try:
            return call(dbapi_conn)
        finally:
            watchdog.disarm()

    return watched


def _watched_ping(ping: Callable[[Any], bool], watchdog: Watchdog) -> Any:
    """The pool's ping (app/pool_health.py) under the ping deadline. A ping that answered but whose
    connection was cut all the same reports a dead connection: the pool then opens a new
    one instead of handing out one whose socket is shut (the request's first statement
    would fail, a 503 for a database that is up)."""
    seconds = min(PING_DEADLINE_S, watchdog.deadline_s)

    def watched(dbapi_conn: Any) -> bool:
        watchdog.arm(getattr(dbapi_conn, "dbapi_connection", dbapi_conn), seconds)
        try:
            alive = ping(dbapi_conn)
        finally:
            cut = watchdog.disarm()
        return alive and not cut

    return watched


def _lift_outside_requests(conn: Connection) -> None:
    if not in_request():
        conn.exec_driver_sql(
            "SELECT set_config('statement_timeout', '0', true), "
            "set_config('lock_timeout', '0', true)"
        )


def _sqlite_interrupts(watchdog: Watchdog) -> Callable[[Any, Any], None]:
    def on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.set_progress_handler(
            lambda: 1 if watchdog.past_deadline(dbapi_conn) else 0, SQLITE_PROGRESS_STEPS
        )

    return on_connect
