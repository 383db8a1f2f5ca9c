"""Real databases for every test: SQLite files and PostgreSQL 16 + pgvector from pgserver.

Each store is migrated once into a template; every test gets a fresh copy (a file copy on
SQLite, CREATE DATABASE … TEMPLATE on PostgreSQL), so tests never see each other's rows.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from psycopg.pq import TransactionStatus
from sqlalchemy.orm import Session

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from app.config import ApiPrincipal, Settings
from app.db import Database
from app.main import create_app
from app.migrate import upgrade
from app.security import hash_key
from app.state import AppState

pytest_plugins = ["tests.embedding_support"]  # the loopback OpenAI-compatible server

STORES = ["sqlite", "postgres"]
# Under CI (CI set and not "false"/"0") nothing may skip: a missing pgserver, embedder or
# plain PostgreSQL must fail the run instead of leaving the suites silently unrun.
STRICT = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")
PLAIN_PG_URL = os.environ.get(
    "MEMBRANE_TEST_PLAIN_PG", "postgresql://postgres@127.0.0.1:5432/postgres"
)
_counter = itertools.count()

# Test principals: the raw keys are only known here; settings hold their SHA-256.
KEYS = {
    "admin": ("admin-key", "admin", "hyper", [], ["read", "write", "admin"]),
    "writer": ("writer-key", "writer", "high", [], ["read", "write"]),
    "reader": ("reader-key", "reader", "low", [], ["read"]),
    "medium": ("medium-key", "medium-reader", "medium", [], ["read"]),
    "team_a": ("team-a-key", "team-a-agent", "high", ["team-a"], ["read", "write"]),
}


KeySpec = tuple[str, str, str, list[str], list[str]]  # key, actor, ceiling, scopes, roles


def principals(keys: dict[str, KeySpec] | None = None) -> list[ApiPrincipal]:
    """The settings' principals for `keys` (the test principals by default)."""
    return [
        ApiPrincipal(
            key_sha256=hash_key(key),
            actor_id=actor,
            max_sensitivity=ceiling,
            scopes=scopes,
            roles=roles,
        )
        for key, actor, ceiling, scopes, roles in (KEYS if keys is None else keys).values()
    ]


def app_state(client: TestClient) -> AppState:
    """The running service's state behind a test client."""
    app = client.app
    assert isinstance(app, FastAPI)
    state: AppState = app.state.membrane
    return state


def transaction_status(session: Session) -> TransactionStatus:
    """Whether the session's PostgreSQL connection is inside a transaction block now."""
    dbapi: Any = session.connection().connection.dbapi_connection
    return TransactionStatus(dbapi.info.transaction_status)


def auth(name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[name][0]}"}


@pytest.fixture(scope="session")
def workdir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="membrane-tests-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def sqlite_template(workdir: Path) -> Path:
    path = workdir / "template.db"
    upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def pg_server(workdir: Path) -> Iterator[Any]:
    pgserver = pytest.importorskip("pgserver", reason="pgserver is installed by `make test`")
    server = pgserver.get_server(str(workdir / "pg"), cleanup_mode="stop")
    yield server
    server.cleanup()


def _pg_admin_uri(server: Any) -> str:
    return str(server.get_uri())


def _db_uri(admin_uri: str, name: str) -> str:
    # pgserver URIs look like postgresql://postgres:@/postgres?host=/tmp/x
    base, _, query = admin_uri.partition("?")
    base = base.rsplit("/", 1)[0] + "/" + name
    return base + ("?" + query if query else "")


@pytest.fixture(scope="session")
def pg_template(pg_server: Any) -> str:
    admin = _pg_admin_uri(pg_server)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS membrane_template")
        conn.execute("CREATE DATABASE membrane_template")
    upgrade(_db_uri(admin, "membrane_template"))
    return "membrane_template"


def fresh_pg_database(admin_uri: str, template: str | None) -> str:
    name = f"t_{os.getpid()}_{next(_counter)}"
    with psycopg.connect(admin_uri, autocommit=True) as conn:
        if template:
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        else:
            conn.execute(f'CREATE DATABASE "{name}"')
    return _db_uri(admin_uri, name)


@pytest.fixture
def plain_pg_url() -> Iterator[str]:
    """A fresh, migrated database on the plain PostgreSQL (no pgvector): tier 2."""
    try:
        admin = psycopg.connect(PLAIN_PG_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        pytest.skip(f"plain PostgreSQL at {PLAIN_PG_URL} is not reachable: {exc}")
    name = f"membrane_tier2_{os.getpid()}_{next(_counter)}"
    with admin:
        if admin.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone():
            pytest.skip("this PostgreSQL has pgvector; the tier-2 tests need one without")
        admin.execute(f'CREATE DATABASE "{name}"')
    url = PLAIN_PG_URL.rsplit("/", 1)[0] + "/" + name
    upgrade(url)
    yield url
    with psycopg.connect(PLAIN_PG_URL, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def db_url(store: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, migrated, empty database of the parametrized store."""
    if store == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        target = tmp_path / "membrane.db"
        shutil.copyfile(template, target)
        return f"sqlite:///{target}"
    server = request.getfixturevalue("pg_server")
    request.getfixturevalue("pg_template")
    return fresh_pg_database(_pg_admin_uri(server), "membrane_template")


@pytest.fixture
def pg_url(pg_server: Any, pg_template: str) -> str:
    """A fresh, migrated PostgreSQL + pgvector database, for PostgreSQL-only tests."""
    return fresh_pg_database(_pg_admin_uri(pg_server), pg_template)


def make_settings(db_url: str, **overrides: Any) -> Settings:
    base: dict[str, Any] = {
        "database_url": db_url,
        "api_keys": principals(),
        "scheduler": {"enabled": False},
        "embedding": {"provider": "none", "worker_enabled": False},
        "rate_limit": {"enabled": False},
        # A request waits for its turn rather than being shed after the default second:
        # what concurrent tests assert (no lost update, one write per key) must not hang
        # on how busy the machine is. Tests of load shedding set their own capacity.
        "capacity": {"queue_timeout_s": 30.0},
        # Likewise the database deadlines: a busy CI machine once stalled a primary-key
        # read past the 5-s default, and the watchdog's 503 failed a trust property.
        # tests/test_deadlines.py sets its own deadlines to test them.
        "database": {
            "request_deadline_s": 60.0,
            "statement_timeout_ms": 60_000,
            "lock_timeout_ms": 30_000,
        },
    }
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            base[key] = {**base[key], **value}
        else:
            base[key] = value
    return Settings(_env_file=None, **base)


@pytest.fixture
def settings(db_url: str) -> Settings:
    return make_settings(db_url)


@pytest.fixture
def make_client() -> Iterator[Callable[..., TestClient]]:
    clients: list[TestClient] = []

    def build(settings: Settings) -> TestClient:
        client = TestClient(create_app(settings))
        client.__enter__()
        clients.append(client)
        return client

    yield build
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def client(settings: Settings, make_client: Callable[..., TestClient]) -> TestClient:
    return make_client(settings)


@pytest.fixture
def db(db_url: str) -> Iterator[Database]:
    database = Database(db_url)
    yield database
    database.dispose()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()  # type: ignore[attr-defined]
    if STRICT and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped under CI, which must run every suite: {reason}"
