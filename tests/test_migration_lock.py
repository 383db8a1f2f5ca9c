"""Migrations hold a lock (app/migrate.py): API processes, or `python -m app.migrate` runs,
that start together against an empty database migrate it once and without error, on both
stores; told not to migrate (MEMBRANE_MIGRATE_ON_START=false), the API refuses to start on
a schema behind the code, in one line, and starts on one at head."""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from sqlalchemy import inspect, text

from app.db import make_engine
from app.migrate import MIGRATION_LOCK_KEY, WAITING, head_revision, schema_revision, upgrade
from tests.conftest import fresh_pg_database
from tests.fault_support import ROOT, START_TIMEOUT_S, ServiceProcess, service_env
from tests.live_support import free_port

HEAD = head_revision()
MIGRATING = f"migrating from base to {HEAD}"
UP_TO_DATE = f"schema up to date at {HEAD}"
TABLES = {"records", "relations", "audit_log", "job_runs", "idempotency_keys", "alembic_version"}


class ServeProcess(ServiceProcess):
    """`python -m app.serve`, the command the image and the Kubernetes Deployment run, on
    a free loopback port; stdout and stderr into `log_path`; `env` overrides settings."""

    def __init__(self, db_url: str, log_path: Path, **env: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        environment = service_env(db_url) | {"MEMBRANE_PORT": str(self.port)} | env
        with log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "app.serve"],
                cwd=ROOT,
                env=environment,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def serve_sqlite_copy(
    sqlite_template: Path, tmp_path: Path, **env: str
) -> tuple[ServeProcess, Path]:
    """`python -m app.serve`, ready, on a copy of the migrated SQLite template in
    `tmp_path`; returns the process and the database file."""
    database = tmp_path / "membrane.db"
    shutil.copyfile(sqlite_template, database)
    svc = ServeProcess(f"sqlite:///{database}", tmp_path / "serve.log", **env)
    svc.wait_ready()
    return svc, database


def wait_for_log(proc: subprocess.Popen[bytes], log_path: Path, line: str) -> None:
    """Until `line` is in the log of `proc`, which must still run."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while line not in (log := log_path.read_text(errors="replace")):
        assert proc.poll() is None, f"the process exited:\n{log[-4000:]}"
        assert time.monotonic() < deadline, f"{line!r} never logged:\n{log[-4000:]}"
        time.sleep(0.05)


def error_lines(log: str) -> list[str]:
    """The lines of a log (JSON or text lines) that report an error or a traceback."""
    marks = ("Traceback", "ERROR", "CRITICAL", '"level": "error"', '"level": "critical"')
    return [line for line in log.splitlines() if any(mark in line for mark in marks)]


@pytest.fixture
def empty_url(store: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database of the parametrized store that was never migrated (SQLite: no file)."""
    if store == "sqlite":
        return f"sqlite:///{tmp_path / 'membrane.db'}"
    server: Any = request.getfixturevalue("pg_server")
    return fresh_pg_database(str(server.get_uri()), None)


@contextmanager
def migration_lock_held(url: str) -> Iterator[None]:
    """Hold the migration lock from outside, so that every process started meanwhile queues
    on it and all are let go at the same instant."""
    if url.startswith("sqlite:///"):
        fd = os.open(url.removeprefix("sqlite:///") + ".migrate.lock", os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)
        return
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK_KEY,))
        yield  # closing the session releases it


def _migrate_process(url: str, log_path: Path) -> subprocess.Popen[bytes]:
    with log_path.open("ab") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "app.migrate"],
            cwd=ROOT,
            env=service_env(url),
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def _versions(url: str) -> list[str]:
    """alembic_version's rows; the tables are there too."""
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            versions = list(conn.execute(text("SELECT version_num FROM alembic_version")).scalars())
        assert set(inspect(engine).get_table_names()) >= TABLES
        return versions
    finally:
        engine.dispose()


@pytest.mark.parametrize("command", ["serve", "migrate"])
def test_processes_starting_together_migrate_an_empty_database_once(
    command: str, empty_url: str, tmp_path: Path
) -> None:
    logs = [tmp_path / f"{command}-{i}.log" for i in (1, 2)]
    services: list[ServeProcess] = []
    with migration_lock_held(empty_url):
        if command == "serve":
            services = [ServeProcess(empty_url, log) for log in logs]
            procs = [svc.proc for svc in services]
        else:
            procs = [_migrate_process(empty_url, log) for log in logs]
        for proc, log in zip(procs, logs, strict=True):
            wait_for_log(proc, log, WAITING)  # both queue on the lock
    # Let go at once: one migrates while the other waits, then finds nothing to do.
    try:
        for svc in services:
            svc.wait_ready()
            svc.proc.send_signal(signal.SIGTERM)
        codes = [proc.wait(START_TIMEOUT_S) for proc in procs]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    texts = [log.read_text(errors="replace") for log in logs]
    assert codes == [0, 0], texts
    assert sum(t.count(MIGRATING) for t in texts) == 1, texts
    assert sum(t.count(UP_TO_DATE) for t in texts) == 1, texts
    assert [error_lines(t) for t in texts] == [[], []]
    assert _versions(empty_url) == [HEAD]


@pytest.mark.parametrize("revision", [None, "0004"])
def test_told_not_to_migrate_the_api_refuses_a_schema_behind_the_code(
    revision: str | None, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'membrane.db'}"
    if revision is not None:
        upgrade(url, revision)
    svc = ServeProcess(url, tmp_path / "serve.log", MEMBRANE_MIGRATE_ON_START="false")
    try:
        assert svc.proc.wait(START_TIMEOUT_S) == 1
    finally:
        svc.close()
    line = (
        f"membrane: database schema at {revision or 'base'}, code needs {HEAD}: "
        "run `python -m app.migrate`"
    )
    assert svc.log().splitlines()[-1] == line  # one clear line, not a traceback
    assert error_lines(svc.log()) == []
    assert schema_revision(url) == revision  # nothing migrated
    assert (tmp_path / "membrane.db").exists() == (revision is not None)  # nor created


def test_told_not_to_migrate_the_api_starts_on_a_database_at_head(
    sqlite_template: Path, tmp_path: Path
) -> None:
    shutil.copyfile(sqlite_template, tmp_path / "membrane.db")
    url = f"sqlite:///{tmp_path / 'membrane.db'}"
    svc = ServeProcess(url, tmp_path / "serve.log", MEMBRANE_MIGRATE_ON_START="false")
    try:
        svc.wait_ready()
        assert httpx.get(svc.url + "/readyz", timeout=10).status_code == 200
    finally:
        svc.close()
    assert UP_TO_DATE in svc.log()
    assert "migrating" not in svc.log()
