"""Process-local caches that belong to one database: a value per database, created on
first use, dropped with the engine (tests and tools open many databases in one process),
and created anew when the connections reach another database at the same URL.

A value is kept per connection pool, which an engine shares with the engines derived from
it by `execution_options` (the read-only sessions' and the writers'), so they share one
value. On PostgreSQL every new connection notes the identity of the database it reached
(`remember_identity`: the cluster's system identifier and the database's oid): a cluster
rebuilt or a database restored at the same URL starts every value over. The values may
hold what is only true of one database, as pg_vector_cache's row versions (`xmin`) are:
a restored database numbers its rows' versions anew."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

import psycopg
from sqlalchemy import Engine, event
from sqlalchemy.orm import Session
from sqlalchemy.pool import Pool

from app.deadline import PING_DEADLINE_S, Watchdog

T = TypeVar("T")

DATABASE_IDENTITY = "membrane_database_identity"  # key in a connection's info
_IDENTITY_SQL = (
    "SELECT (SELECT system_identifier FROM pg_control_system()), oid"
    " FROM pg_database WHERE datname = current_database()"
)


def remember_identity(engine: Engine, watchdog: Watchdog) -> None:
    """PostgreSQL: each new connection of `engine` keeps its database's identity in its
    info (one statement a connection, under the ping deadline in a request: a server that
    accepted the connection and then froze must not hold the request past it)."""

    def note(dbapi_conn: Any, record: Any) -> None:
        watchdog.arm(dbapi_conn, PING_DEADLINE_S)
        try:
            record.info[DATABASE_IDENTITY] = _identity(dbapi_conn)
        except psycopg.Error:
            dbapi_conn.close()  # cut, or its rollback failed: the connect fails with it
            raise
        finally:
            watchdog.disarm()

    event.listen(engine, "connect", note)


def _identity(dbapi_conn: Any) -> tuple[Any, ...] | None:
    try:
        row = dbapi_conn.execute(_IDENTITY_SQL).fetchone()
    except psycopg.Error:
        if dbapi_conn.broken or dbapi_conn.closed:
            raise
        row = None  # pg_control_system() revoked: the identity stays unknown
    dbapi_conn.rollback()
    return tuple(row) if row is not None else None


def database_identity(session: Session) -> Hashable:
    """The identity of the database the session's connection reached; None on SQLite (a
    file's values are not kept apart from a file replaced) or where it is unknown."""
    if session.get_bind().dialect.name != "postgresql":
        return None
    identity: Hashable = session.connection().info.get(DATABASE_IDENTITY)
    return identity


class PerEngine(Generic[T]):
    def __init__(self, factory: Callable[[], T]) -> None:
        self._factory = factory
        self._values: weakref.WeakKeyDictionary[Pool, tuple[Hashable, T]] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()

    def of(self, session: Session) -> T:
        pool = session.get_bind().engine.pool
        identity = database_identity(session)
        with self._lock:
            kept = self._values.get(pool)
            if kept is None or kept[0] != identity:
                kept = self._values[pool] = (identity, self._factory())
            return kept[1]
