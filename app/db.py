"""Engine, sessions and the deployment tier the database offers."""

from __future__ import annotations

import enum
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

log = logging.getLogger("membrane.db")


class Tier(int, enum.Enum):
    sqlite = 1
    postgres = 2
    pgvector = 3


def normalize_url(url: str) -> str:
    """Accept plain postgresql:// URLs and use psycopg 3 for them."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def dialect_of(session: Session) -> str:
    """'sqlite' or 'postgresql': the SQL a repository must speak on this session."""
    return session.get_bind().dialect.name


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()


def make_engine(url: str, *, pool_size: int = 10) -> Engine:
    url = normalize_url(url)
    if make_url(url).get_backend_name() == "sqlite":
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": 30},
            pool_pre_ping=False,
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        # Python's sqlite3 opens transactions lazily and never for SELECT; take the write
        # lock up front (BEGIN IMMEDIATE) so concurrent writers queue instead of failing.
        event.listen(engine, "begin", lambda conn: conn.exec_driver_sql("BEGIN IMMEDIATE"))

        @event.listens_for(engine, "connect")
        def _no_autobegin(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None

        return engine
    return create_engine(url, pool_size=pool_size, max_overflow=20, pool_pre_ping=True)


def detect_tier(engine: Engine) -> Tier:
    if is_sqlite(engine):
        return Tier.sqlite
    with engine.connect() as conn:
        has_vector = conn.execute(
            text(
                "SELECT 1 FROM information_schema.columns "
                "WHERE table_name = 'record_embeddings' AND column_name = 'embedding'"
            )
        ).first()
    return Tier.pgvector if has_vector else Tier.postgres


class Database:
    """Owns the engine and session factory of one database."""

    def __init__(self, url: str) -> None:
        self.engine = make_engine(url)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False, autoflush=False)
        self._tier: Tier | None = None

    @property
    def tier(self) -> Tier:
        if self._tier is None:
            self._tier = detect_tier(self.engine)
        return self._tier

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """One unit of work: commit on success, roll back on any error."""
        session = self.sessions()
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()

    def ping(self) -> bool:
        try:
            with self.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
            return True
        except Exception:  # readiness must answer, not raise
            log.exception("database ping failed")
            return False

    def dispose(self) -> None:
        self.engine.dispose()
