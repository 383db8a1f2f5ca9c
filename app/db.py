"""Engine, sessions and the deployment tier the database offers."""

from __future__ import annotations

import enum
import hashlib
import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypedDict, TypeVar

from sqlalchemy import Connection, CursorResult, Engine, Executable, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from app import deadline, engine_cache, json_codec, pg_statement_cache, pool_health, write_behind
from app.compiled_cache import find_compiled_by_identity
from app.config import DatabaseSettings
from app.errors import Overloaded
from app.replicas import POSITION_SQL, ReadRouter
from app.sqlcipher import EncryptionError, apply_key, plain_file_problem, sqlcipher_dbapi

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


def column_rows(
    session: Session, stmt: Executable, params: Mapping[str, Any] | None = None
) -> CursorResult[*tuple[Any, ...]]:
    """Run `stmt`, a statement that reads columns and no mapped entity, on the session's
    connection: without the ORM's result layer (200 headers: 1.3-1.5 ms through the
    session, 0.8-1.2 on its connection). Hot callers take `.all()`: iterating fetches row
    by row, which psycopg does in Python (~0.5-1 µs a row more than one fetchall)."""
    return session.connection().execute(stmt, params or {})


def lock_texts(session: Session, space: int, keys: Iterable[Sequence[str]]) -> None:
    """PostgreSQL transaction-level advisory locks, one per key (its parts joined by NUL
    and hashed into the second half of a two-key lock in `space`), until the transaction
    ends; taken in sorted order so that two writers never wait for each other in a cycle.
    No-op on SQLite, which runs one write transaction at a time."""
    if dialect_of(session) != "postgresql":
        return
    hashed = {hashlib.sha256("\x00".join(parts).encode()).digest()[:4] for parts in keys}
    ordered = sorted(int.from_bytes(h, "big", signed=True) for h in hashed)
    if ordered:  # one round trip for all (a batch names dozens): taken in the array's order
        session.execute(_ADVISORY_LOCKS, {"space": space, "keys": ordered})


_ADVISORY_LOCKS = text(
    "SELECT pg_advisory_xact_lock(:space, key) FROM unnest(CAST(:keys AS integer[])) AS key"
)


ExecutableT = TypeVar("ExecutableT", bound=Executable)
READ_ONLY = "membrane_read_only"  # execution option of the read-only session factory
# Execution option of a writer that deletes every dependent row itself (forget's pages):
# SQLite then skips the ON DELETE CASCADE actions, run row by row, for that transaction.
NO_CASCADES = "membrane_no_cascades"


def _sqlite_begin(conn: Connection) -> None:
    """Python's sqlite3 opens transactions lazily and never for SELECT. A writer takes the
    write lock up front (BEGIN IMMEDIATE), so concurrent writers queue instead of failing
    on a lock upgrade; a reader begins deferred and, in WAL mode, never waits for one."""
    options = conn.get_execution_options()
    read_only = options.get(READ_ONLY, False)
    # foreign_keys can only change between transactions: set here, before BEGIN, and
    # put back before the next transaction of any other writer or reader.
    if options.get(NO_CASCADES, False):
        conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
        conn.info[NO_CASCADES] = True
    elif conn.info.pop(NO_CASCADES, False):
        conn.exec_driver_sql("PRAGMA foreign_keys=ON")
    if read_only:
        # Straight to the driver: a deferred BEGIN takes no lock, so it cannot wait and
        # needs no deadline, and SQLAlchemy's statement path around it cost a read as
        # many instructions as its own look-up by primary key (~90k a transaction).
        conn.connection.dbapi_connection.execute("BEGIN")  # type: ignore[union-attr]
        return
    conn.exec_driver_sql("BEGIN IMMEDIATE")


# Execution option: prepare this statement on its PostgreSQL connection (psycopg names
# it at its first run) so that PostgreSQL, after five custom plans, may keep one generic
# plan and plan it no more. Only for statements whose best plan does not depend on their
# values (a look-up by primary key, one index walk, a small scope's rows): a generic
# plan for retrieval's data-dependent statements made all-scope BM25 822 ms at p95
# (DESIGN.md §9), so nothing else is prepared.
PREPARED = "membrane_prepared"
# psycopg prepares nothing by itself below this many runs of a statement: never.
_NEVER_BY_ITSELF = 2**31


def prepared(stmt: ExecutableT) -> ExecutableT:
    """`stmt`, marked to be prepared on PostgreSQL (see PREPARED)."""
    return stmt.execution_options(**{PREPARED: True})


# Execution option: PostgreSQL sends this statement's rows in binary form. For the rows
# that carry stored vectors (`vector_send`, bytea): as text each 1.5-KB vector travels as
# 3 KB of hex, which the server encodes and the driver decodes (a small scope's 200
# admitted records: 1.8-2.5 ms to read, 0.9-1.0 in binary). Only for statements whose
# columns psycopg loads alike in both forms (numbers, text, booleans, bytes; not JSON,
# which SQLAlchemy decodes from text itself).
BINARY_ROWS = "membrane_binary_rows"


def binary_rows(stmt: ExecutableT) -> ExecutableT:
    """`stmt`, its rows asked for in binary form on PostgreSQL (see BINARY_ROWS)."""
    return stmt.execution_options(**{BINARY_ROWS: True})


def _marked_execution(prepare_marked: bool) -> Callable[[Any, str, Any, Any], bool | None]:
    """The do_execute hook of PREPARED (when `prepare_marked`) and BINARY_ROWS."""

    def execute(cursor: Any, statement: str, params: Any, context: Any) -> bool | None:
        options = context.execution_options
        prepare = prepare_marked and bool(options.get(PREPARED))
        binary = bool(options.get(BINARY_ROWS))
        if not (prepare or binary):
            return None
        cursor.execute(statement, params, prepare=prepare or None, binary=binary or None)
        return True  # executed: SQLAlchemy's own execute is skipped

    return execute


class PoolOptions(TypedDict):
    """create_engine's connection pool arguments."""

    pool_size: int
    max_overflow: int
    pool_timeout: float


# JSON columns written and read with orjson (app/json_codec.py).
_JSON_CODEC = {"json_serializer": json_codec.dumps, "json_deserializer": json_codec.loads}


def make_engine(
    url: str, cfg: DatabaseSettings | None = None, *, application_name: str = "membrane"
) -> Engine:
    cfg = cfg or DatabaseSettings()
    url = normalize_url(url)
    pool: PoolOptions = {
        "pool_size": cfg.pool_size,
        "max_overflow": cfg.max_overflow,
        "pool_timeout": cfg.pool_timeout_s,
    }
    if make_url(url).get_backend_name() != "sqlite":
        if cfg.encryption_key.get_secret_value():
            raise EncryptionError(
                "MEMBRANE_ENCRYPTION_KEY applies to SQLite only; encrypt PostgreSQL at rest "
                "on the server or its volume"
            )
        connect_args = {
            "connect_timeout": cfg.pg_connect_timeout_s,
            "keepalives": 1,
            "keepalives_idle": 30,
            "keepalives_interval": 10,
            "keepalives_count": 3,
            # Only the statements marked PREPARED are prepared (psycopg would prepare any
            # after five runs); none where the settings say so (an old PgBouncer).
            "prepare_threshold": _NEVER_BY_ITSELF if cfg.pg_prepared_statements else None,
            "options": deadline.pg_options(cfg),
            "application_name": application_name,  # pg_stat_activity tells reads apart
        }
        engine = create_engine(url, connect_args=connect_args, **_JSON_CODEC, **pool)
        pool_health.install(engine, cfg.pg_ping_after_idle_s)  # instead of pre-ping
        pg_statement_cache.widen()
        event.listen(engine, "do_execute", _marked_execution(cfg.pg_prepared_statements))
    else:
        engine = _sqlite_engine(url, cfg, pool)
    find_compiled_by_identity(engine)  # before any engine derived from it shares its cache
    watchdog = deadline.install(engine, cfg)
    if engine.dialect.name == "postgresql":
        write_behind.install(engine, watchdog)  # after the deadline's events: see there
        engine_cache.remember_identity(engine, watchdog)  # caches start over on another
    return engine


def _sqlite_engine(url: str, cfg: DatabaseSettings, pool: PoolOptions) -> Engine:
    busy_s = cfg.sqlite_busy_timeout_ms / 1000
    key = cfg.encryption_key.get_secret_value()
    # With a key, SQLCipher's driver opens every connection (EncryptionError if missing).
    driver = {"module": sqlcipher_dbapi()} if key else {}
    engine = create_engine(
        url,
        connect_args={"check_same_thread": False, "timeout": busy_s},
        **driver,
        **_JSON_CODEC,
        **pool,
    )

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # transactions are begun by _sqlite_begin
        if key:
            apply_key(dbapi_conn, key)  # before any other statement touches the file
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute(f"PRAGMA busy_timeout={int(cfg.sqlite_busy_timeout_ms)}")
        cur.execute(f"PRAGMA mmap_size={int(cfg.sqlite_mmap_mb) * 1024 * 1024}")
        cur.close()

    event.listen(engine, "begin", _sqlite_begin)
    return engine


def open_problem(url: str, cfg: DatabaseSettings) -> str | None:
    """Why the configured SQLite database cannot be opened (SQLCipher missing, a wrong key,
    an encrypted file without a key), or None. Checked at start-up so that the process
    stops with one line; a file that does not exist yet is created later, keyed."""
    parsed = make_url(normalize_url(url))
    if parsed.get_backend_name() != "sqlite":
        return None
    try:
        engine = make_engine(url, cfg)
    except EncryptionError as exc:
        return str(exc)
    try:
        if not parsed.database or not Path(parsed.database).exists():
            return None
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT count(*) FROM sqlite_master").all()
        return None
    except EncryptionError as exc:
        return str(exc)
    except DBAPIError as exc:
        return plain_file_problem(exc.orig or exc)
    finally:
        engine.dispose()


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
    """Owns the engine and the session factories of one database.

    Writes on SQLite take this process's write turn first (one writer path): writers
    queue on a lock instead of polling SQLite's busy handler, and a writer that cannot get
    its turn within `sqlite_write_wait_s` answers 503 (Overloaded) instead of stalling."""

    def __init__(self, url: str, cfg: DatabaseSettings | None = None) -> None:
        self.cfg = cfg or DatabaseSettings()
        self.engine = make_engine(url, self.cfg)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False, autoflush=False)
        reader = self.engine.execution_options(**{READ_ONLY: True})
        self.read_sessions = sessionmaker(reader, expire_on_commit=False, autoflush=False)
        # PostgreSQL: a request's reads run outside a transaction block: at READ COMMITTED each
        # statement takes its own snapshot anyway, and the block cost BEGIN and COMMIT, two round
        # trips and SQLAlchemy's work around them (~0.1 ms of a 1.5-ms GET). Reads outside
        # requests (jobs, the worker) keep their transaction, which lifts the request timeouts.
        autocommit = reader.execution_options(isolation_level="AUTOCOMMIT")
        self._request_reads = (
            self.read_sessions
            if is_sqlite(self.engine)
            else sessionmaker(autocommit, expire_on_commit=False, autoflush=False)
        )
        bare = self.engine.execution_options(**{NO_CASCADES: True})
        self.bare_sessions = sessionmaker(bare, expire_on_commit=False, autoflush=False)
        self._write_turn = threading.Lock() if is_sqlite(self.engine) else None
        self._tier: Tier | None = None
        self.router: ReadRouter | None = None
        if self.cfg.read_urls and not is_sqlite(self.engine):
            self.router = ReadRouter(self.cfg.read_urls, self.cfg, make_engine)
            self.router.start()

    @property
    def tier(self) -> Tier:
        if self._tier is None:
            self._tier = detect_tier(self.engine)
        return self._tier

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @contextmanager
    def transaction(self, *, cascades: bool = True) -> Iterator[Session]:
        """One unit of work that may write: commit on success, roll back on any error.
        `cascades=False`: the caller deletes every row that refers to a deleted record
        itself, and SQLite runs no ON DELETE CASCADE for it (PostgreSQL always does)."""
        with self._write_slot():
            yield from _unit_of_work(self.sessions() if cascades else self.bare_sessions())

    @contextmanager
    def read_transaction(self, token: int | None = None) -> Iterator[Session]:
        """A unit of work that only reads (SQLite: a deferred transaction that never
        waits for writers). With read replicas: on one of them that has replayed past
        `token` (a WAL position, app/replicas.py) when there is one, else the primary."""
        yield from _unit_of_work(self._read_session(token))

    def _read_session(self, token: int | None) -> Session:
        in_request = deadline.in_request()
        if self.router is not None:
            for replica in self.router.candidates():
                session = self.router.open_session(replica, token, in_request=in_request)
                if session is not None:
                    return session
            self.router.primary_reads += 1
        return self._request_reads() if in_request else self.read_sessions()

    def consistency_token(self) -> str | None:
        """The primary's WAL position now (after a write's commit), which a read sends
        back to be served by a replica only once it has replayed that far; None without
        replicas, where every read sees every committed write."""
        if self.router is None:
            return None
        with self.engine.connect() as conn:
            conn = conn.execution_options(isolation_level="AUTOCOMMIT")
            position: str = conn.exec_driver_sql(POSITION_SQL).scalar_one()
        return position

    @contextmanager
    def _write_slot(self) -> Iterator[None]:
        if self._write_turn is None:
            yield
            return
        if not self._write_turn.acquire(timeout=self.cfg.sqlite_write_wait_s):
            raise Overloaded("Too many concurrent writes; retry shortly.")
        try:
            yield
        finally:
            self._write_turn.release()

    def ping(self) -> bool:
        try:
            with self.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
            return True
        except Exception:  # readiness must answer, not raise
            log.exception("database ping failed")
            return False

    def refresh_planner_stats(self) -> None:
        """SQLite has no autoanalyze: without statistics its planner scans instead of using the
        (scope, created_at) and primary-key indexes (a retrieve at 200,000 records: 60 ms, not
        22). Bounded, cheap: at start-up, after decay sweeps, as planner_stats_repository asks."""
        if not is_sqlite(self.engine):
            return
        with self.transaction() as session:
            session.execute(text("PRAGMA analysis_limit=1000"))
            session.execute(text("ANALYZE"))

    def dispose(self) -> None:
        if self.router is not None:
            self.router.dispose()
        self.engine.dispose()


def _unit_of_work(session: Session) -> Iterator[Session]:
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()
