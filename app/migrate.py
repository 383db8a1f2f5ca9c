"""`python -m app.migrate [upgrade|downgrade] [REV]`: apply migrations to the configured DB.

Every migration holds the migration lock, so processes that start together (API replicas
migrating at start, the Kubernetes migration Job) never race: the first migrates, the
others wait and then find the schema at head and do nothing.
- PostgreSQL: a session-level advisory lock on MIGRATION_LOCK_KEY, taken on the connection
  alembic then runs on and held around the whole upgrade (a process that dies frees it).
- SQLite: an exclusive flock on `<database file>.migrate.lock` beside the database.

`python -m app.serve` calls prepare_schema at start: it migrates (MEMBRANE_MIGRATE_ON_START,
the default) or, when told not to, refuses to start on a schema that is not the code's.
An upgrade to head also moves a PostgreSQL database that has gained pgvector since its
first migration to the vector tier (app/vector_tier.py)."""

from __future__ import annotations

import fcntl
import logging
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, text

from app.config import DatabaseSettings, Settings, get_settings
from app.db import READ_ONLY, make_engine
from app.startup import exit_if_database_unopenable, settings_or_exit
from app.vector_tier import adopt_pgvector

ROOT = Path(__file__).resolve().parents[1]
log = logging.getLogger("membrane.migrate")

# The advisory-lock key of migrations: b"membrane" read as a big-endian signed 64-bit
# integer (0x6D656D6272616E65). Job locks use SHA-256-derived keys (app/jobs/repository.py).
MIGRATION_LOCK_KEY = 7882826992375131749
WAITING = "another process is migrating: waiting for the migration lock"


def alembic_config(url: str | None = None, connection: Connection | None = None) -> Config:
    """Alembic's config; migrations/env.py runs on `connection` when given, else on `url`."""
    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(ROOT / "migrations"))
    if url is not None:
        cfg.attributes["url"] = url
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


@lru_cache(maxsize=1)
def head_revision() -> str:
    """The revision this code's migrations end at."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None, "no migrations found"
    return head


def current_revision(conn: Connection) -> str | None:
    """The database's revision (None: never migrated); leaves no transaction open."""
    revision = MigrationContext.configure(conn).get_current_revision()
    conn.commit()
    return revision


@contextmanager
def migration_lock(engine: Engine) -> Iterator[Connection]:
    """A connection of `engine` that holds the migration lock until the block ends."""
    if engine.dialect.name != "postgresql":
        with _file_lock(engine.url.database), engine.connect() as conn:
            yield conn
        return
    key = {"key": MIGRATION_LOCK_KEY}
    with engine.connect() as conn:
        if not conn.execute(text("SELECT pg_try_advisory_lock(:key)"), key).scalar():
            log.info(WAITING)
            conn.execute(text("SELECT pg_advisory_lock(:key)"), key)
        conn.commit()  # session-level: the lock outlives this transaction and alembic's
        try:
            yield conn
        except BaseException:
            conn.invalidate()  # closing the session releases its advisory lock
            raise
        conn.execute(text("SELECT pg_advisory_unlock(:key)"), key)
        conn.commit()


@contextmanager
def _file_lock(database: str | None) -> Iterator[None]:
    """SQLite's stand-in for the advisory lock, across processes (as app/jobs/service.py
    does for its leader lock); released when the block ends or the process dies."""
    if not database or database == ":memory:":
        yield
        return
    fd = os.open(f"{database}.migrate.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log.info(WAITING)
            fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _locked(
    url: str | None, cfg: DatabaseSettings | None, run: Callable[[Connection], None]
) -> None:
    if url is None:
        settings = get_settings()
        url, cfg = settings.database_url, cfg or settings.database
    engine = make_engine(url, cfg)
    try:
        with migration_lock(engine) as conn:
            run(conn)
    finally:
        engine.dispose()


def upgrade(
    url: str | None = None, revision: str = "head", cfg: DatabaseSettings | None = None
) -> None:
    """Upgrade under the migration lock; a no-op (one log line) when already there."""

    def run(conn: Connection) -> None:
        current = current_revision(conn)
        target = head_revision() if revision == "head" else revision
        if current == target:
            log.info("schema up to date at %s", target)
        else:
            log.info("migrating from %s to %s", current or "base", target)
            command.upgrade(alembic_config(connection=conn), revision)
        if target == head_revision():
            adopt_pgvector(conn)  # a PostgreSQL server that gained pgvector since

    _locked(url, cfg, run)


def downgrade(url: str | None = None, revision: str = "base") -> None:
    def run(conn: Connection) -> None:
        log.info("migrating from %s down to %s", current_revision(conn) or "base", revision)
        command.downgrade(alembic_config(connection=conn), revision)

    _locked(url, None, run)


def schema_revision(url: str, cfg: DatabaseSettings | None = None) -> str | None:
    """The database's revision, read without the migration lock (and without creating a
    SQLite file that is not there)."""
    engine = make_engine(url, cfg)
    database = engine.url.database
    try:
        if engine.dialect.name == "sqlite" and database and not Path(database).exists():
            return None
        with engine.connect() as conn:
            return current_revision(conn.execution_options(**{READ_ONLY: True}))
    finally:
        engine.dispose()


def prepare_schema(settings: Settings) -> None:
    """At API start: migrate to head under the lock (MEMBRANE_MIGRATE_ON_START=true), or
    check the schema is at head and refuse to start with one line when it is not."""
    if settings.migrate_on_start:
        upgrade(settings.database_url, cfg=settings.database)
        return
    current, head = schema_revision(settings.database_url, settings.database), head_revision()
    if current != head:
        raise SystemExit(
            f"membrane: database schema at {current or 'base'}, code needs {head}: "
            "run `python -m app.migrate`"
        )
    log.info("schema up to date at %s", head)


def main(argv: list[str]) -> None:
    exit_if_database_unopenable(settings_or_exit())
    action = argv[0] if argv else "upgrade"
    if action == "upgrade":
        upgrade(revision=argv[1] if len(argv) > 1 else "head")
    elif action == "downgrade":
        downgrade(revision=argv[1] if len(argv) > 1 else "base")
    else:
        raise SystemExit(f"unknown action {action!r}: use upgrade or downgrade")


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)  # our one line says it all
    main(sys.argv[1:])
