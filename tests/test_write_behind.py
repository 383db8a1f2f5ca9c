"""PostgreSQL write-behind (app/write_behind.py): rows sent without waiting are in the
transaction before its next statement and its commit; a failed INSERT fails that
statement or the commit as SQLAlchemy reports a statement's error, and the transaction
then stores nothing; a connection given back with rows in flight is whole for its next
user; a local server's Unix socket gets a send buffer a batch's rows fit in."""

from __future__ import annotations

import gc
import os
import socket
from collections.abc import Iterator
from typing import Any, cast

import psycopg
import pytest
from sqlalchemy import Connection, text
from sqlalchemy.exc import IntegrityError, OperationalError

from app import write_behind
from app.db import Database

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_db(pg_url: str) -> Iterator[Database]:
    database = Database(pg_url)
    with database.engine.begin() as conn:
        conn.execute(text("CREATE TABLE wb (id integer PRIMARY KEY, note text NOT NULL)"))
    yield database
    database.dispose()


def _send(conn: Connection, *ids: int) -> None:
    rows = [{"id": i, "note": "x" * 3000} for i in ids]
    write_behind.send(conn, lambda: conn.execute(text("INSERT INTO wb VALUES (:id, :note)"), rows))


def _count(database: Database) -> int:
    with database.engine.connect() as conn:
        return int(conn.execute(text("SELECT count(*) FROM wb")).scalar_one())


def test_sent_rows_are_seen_by_the_next_statement_and_committed(pg_db: Database) -> None:
    with pg_db.engine.begin() as conn:
        _send(conn, *range(200))
        _send(conn, *range(200, 300))  # a second round joins the open pipeline
        assert conn.execute(text("SELECT count(*) FROM wb")).scalar_one() == 300
        _send(conn, 300)
    assert _count(pg_db) == 301  # the commit waited for the last round


def test_a_failed_insert_fails_the_next_statement_and_stores_nothing(pg_db: Database) -> None:
    with pytest.raises(IntegrityError, match="wb_pkey"), pg_db.engine.begin() as conn:
        _send(conn, 1, 2)
        _send(conn, 2)  # a duplicate key: known only once the server answers
        conn.execute(text("SELECT 1"))
    assert _count(pg_db) == 0
    with pg_db.engine.begin() as conn:  # the pool's connection is whole again
        _send(conn, 2)
    assert _count(pg_db) == 1


def test_a_failed_insert_fails_the_commit(pg_db: Database) -> None:
    with pytest.raises(IntegrityError), pg_db.engine.begin() as conn:
        _send(conn, 7, 7)
    assert _count(pg_db) == 0


@pytest.mark.parametrize("given_back", ["closed", "dropped"])
def test_a_connection_given_back_with_rows_in_flight_is_whole_again(
    pg_db: Database, given_back: str
) -> None:
    conn = pg_db.engine.connect()
    conn.begin()
    _send(conn, 1)
    if given_back == "closed":
        conn.close()  # no commit: rolled back, and the rows with it
    else:
        del conn  # never closed: the pool takes it back and resets it
        gc.collect()
    assert _count(pg_db) == 0
    with pg_db.engine.begin() as again:
        _send(again, 1)
    assert _count(pg_db) == 1


def test_a_unix_socket_connection_gets_a_larger_send_buffer(pg_db: Database) -> None:
    with pg_db.engine.connect() as conn:
        driver = cast(psycopg.Connection[Any], conn.connection.driver_connection)
        fd = driver.pgconn.socket
        sock = socket.socket(fileno=os.dup(fd))
        try:
            assert sock.family == socket.AF_UNIX  # the test server listens on its socket
            size = sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
        finally:
            sock.close()
    with open("/proc/sys/net/core/wmem_max") as f:
        cap = int(f.read())
    # Linux keeps twice what was asked, at most twice its cap
    assert size >= 2 * min(write_behind.UNIX_SEND_BUFFER, cap)


def test_a_connection_the_server_cut_rolls_back_without_a_second_error(pg_db: Database) -> None:
    """The rollback after a cut connection (an outage: a 503 for the request) must not
    fail again on the connection's state: that turned a 503 into a 500."""
    conn = pg_db.engine.connect()
    conn.begin()
    pid = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
    with pg_db.engine.connect() as other:
        other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    with pytest.raises(OperationalError):
        conn.execute(text("SELECT 1"))
    conn.rollback()
    conn.close()
    with pg_db.engine.begin() as again:
        _send(again, 1, 2)
    assert _count(pg_db) == 2


def test_a_connection_cut_with_rows_in_flight_fails_once_and_is_replaced(
    pg_db: Database,
) -> None:
    """The server goes away while sent rows wait: the next statement fails as an outage
    (OperationalError, the connection invalidated), the rollback after it raises nothing
    more, and the pool's next connection works."""
    conn = pg_db.engine.connect()
    conn.begin()
    pid = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
    _send(conn, 1, 2)
    with pg_db.engine.connect() as other:
        other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    with pytest.raises(OperationalError) as raised:
        conn.execute(text("SELECT 1"))
    assert raised.value.connection_invalidated
    conn.rollback()
    conn.close()
    with pg_db.engine.begin() as again:
        _send(again, 3, 4)
    assert _count(pg_db) == 2


def test_rows_sent_inside_a_savepoint_are_written_at_once(pg_db: Database) -> None:
    """In a savepoint a failed row fails its own statement, and rolling back to the
    savepoint undoes it while the transaction goes on."""
    with pg_db.engine.begin() as conn:
        _send(conn, 1)
        nested = conn.begin_nested()
        with pytest.raises(IntegrityError):
            _send(conn, 1)  # the duplicate fails here, not at the next statement
        nested.rollback()
        _send(conn, 2)
    assert _count(pg_db) == 2


class _EndedWhileBusy:
    """A pipeline whose exit fails as psycopg's did once in the full suite: the server's
    57P01 read, then "cannot exit pipeline mode while busy" raised over it."""

    def __exit__(self, *_exc: Any) -> None:
        try:
            raise psycopg.errors.AdminShutdown("terminating connection")
        finally:
            raise psycopg.OperationalError("cannot exit pipeline mode while busy")


def test_a_session_ended_behind_the_pipelines_own_error_is_a_cut(pg_db: Database) -> None:
    """The drain looks behind the error psycopg raised last: the server's ending of the
    session makes the connection invalidated (an outage, and no rollback sent down it)."""
    conn = pg_db.engine.connect()
    conn.begin()
    conn.info["membrane.write_behind"] = _EndedWhileBusy()
    with pytest.raises(OperationalError) as raised:
        conn.execute(text("SELECT 1"))
    assert raised.value.connection_invalidated and conn.invalidated
    conn.rollback()
    conn.close()
    with pg_db.engine.begin() as again:
        _send(again, 1)
    assert _count(pg_db) == 1
