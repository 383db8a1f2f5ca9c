"""`membrane backup`, `restore` and `verify` (app/backup), run as the real command.

A backup taken while clients capture restores to a store that holds every capture
acknowledged before the backup started, and passes verify; verify refuses a damaged copy;
restore refuses a damaged backup and a store that holds records. PostgreSQL's path is
pg_dump / pg_restore of the pgserver package."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app.db import Database
from app.models import RecordRow
from tests.conftest import _pg_admin_uri, auth, fresh_pg_database, make_settings
from tests.fault_support import ROOT, service_env
from tests.live_support import live_server

# `python -m app.cli` is the `membrane` console script, run from this checkout.
MEMBRANE = [sys.executable, "-m", "app.cli"]
W = auth("writer")


def membrane(db_url: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*MEMBRANE, *argv],
        cwd=ROOT,
        env=service_env(db_url),
        capture_output=True,
        text=True,
        timeout=300,
    )


def pg_bin() -> list[str]:
    pgserver = pytest.importorskip("pgserver", reason="pgserver is installed by `make test`")
    return ["--pg-bin", str(Path(pgserver.__file__).parent / "pginstall" / "bin")]


class Capturing:
    """Client threads capturing until stopped; each acknowledged capture with the time its
    answer arrived."""

    def __init__(self, url: str, threads: int = 3) -> None:
        self.url = url
        self.acked: list[tuple[float, str]] = []
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._run, args=(n,)) for n in range(threads)]

    def _run(self, n: int) -> None:
        with httpx.Client(base_url=self.url, headers=W, timeout=30) as client:
            i = 0
            while not self._stop.is_set():
                body = {"source": "t", "source_kind": "event", "summary": f"note {n}-{i}"}
                r = client.post("/v1/capture", json=body)
                i += 1
                with self._lock:
                    if r.status_code == 201:
                        self.acked.append((time.monotonic(), r.json()["primary_record"]["id"]))
                    else:
                        self.failures.append(f"{r.status_code} {r.text[:200]}")

    def count(self) -> int:
        with self._lock:
            return len(self.acked)

    def acked_before(self, moment: float) -> set[str]:
        with self._lock:
            return {record_id for at, record_id in self.acked if at < moment}

    @contextmanager
    def running(self) -> Iterator[Capturing]:
        for thread in self._threads:
            thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            for thread in self._threads:
                thread.join(60)


def _wait_for(load: Capturing, count: int) -> None:
    deadline = time.monotonic() + 120
    while load.count() < count:
        assert time.monotonic() < deadline and not load.failures, load.failures[:3]
        time.sleep(0.05)


def _record_ids(url: str) -> set[str]:
    db = Database(url)
    try:
        with db.read_transaction() as session:
            return set(session.scalars(select(RecordRow.id)))
    finally:
        db.dispose()


def _backup_under_load(db_url: str, path: Path, *extra: str) -> tuple[set[str], Any]:
    """Back up while three clients capture: (ids acknowledged before it began, report)."""
    with (
        live_server(make_settings(db_url)) as url,
        Capturing(url).running() as load,
    ):
        _wait_for(load, 30)
        started = time.monotonic()
        done = membrane(db_url, "backup", str(path), *extra)
        _wait_for(load, load.count() + 10)  # captures went on during and after it
    assert done.returncode == 0, done.stderr
    assert not load.failures, load.failures[:3]
    return load.acked_before(started), json.loads(done.stdout)


def test_sqlite_backup_during_captures_restores_every_acknowledged_capture(
    tmp_path: Path, sqlite_template: Path
) -> None:
    source = tmp_path / "live.db"
    source.write_bytes(sqlite_template.read_bytes())
    source_url = f"sqlite:///{source}"
    backup = tmp_path / "backup.db"
    before, report = _backup_under_load(source_url, backup)
    assert report["ok"] and report["kind"] == "sqlite", report
    assert report["schema_revision"] == report["head_revision"]
    assert report["counts"]["records"] >= len(before) >= 30
    assert not (tmp_path / "backup.db.partial").exists()

    verified = membrane(source_url, "verify", str(backup))
    assert verified.returncode == 0 and json.loads(verified.stdout)["problems"] == []
    target_url = f"sqlite:///{tmp_path / 'restored.db'}"
    restored = membrane(target_url, "restore", str(backup))
    assert restored.returncode == 0, restored.stderr
    assert json.loads(restored.stdout)["ok"]
    ids = _record_ids(target_url)
    assert before <= ids and len(ids) == report["counts"]["records"]
    assert ids < _record_ids(source_url)  # the live store went on after the backup

    again = membrane(target_url, "restore", str(backup))
    assert again.returncode == 1 and "holds records; --force" in again.stderr
    forced = membrane(target_url, "restore", str(backup), "--force")
    assert forced.returncode == 0, forced.stderr


def test_verify_and_restore_refuse_a_damaged_or_foreign_backup(
    tmp_path: Path, sqlite_template: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    (tmp_path / "store.db").write_bytes(sqlite_template.read_bytes())
    good = tmp_path / "good.db"
    assert membrane(url, "backup", str(good)).returncode == 0
    data = good.read_bytes()
    cut = tmp_path / "cut.db"
    cut.write_bytes(data[: len(data) // 2])
    scribbled = tmp_path / "scribbled.db"
    middle = len(data) // 2
    scribbled.write_bytes(data[:middle] + b"\xff" * 4096 + data[middle + 4096 :])
    foreign = tmp_path / "foreign.db"
    foreign.write_text("not a database\n")
    for bad in (cut, scribbled, foreign, tmp_path / "absent.db"):
        done = membrane(url, "verify", str(bad))
        assert done.returncode == 1, (bad, done.stdout)
        assert json.loads(done.stdout)["problems"], bad
    target = f"sqlite:///{tmp_path / 'target.db'}"
    refused = membrane(target, "restore", str(scribbled))
    assert refused.returncode == 1 and "fails verify" in refused.stderr
    assert not (tmp_path / "target.db").exists()  # nothing written


@pytest.mark.postgres
def test_postgres_backup_during_captures_restores_with_pg_restore(
    tmp_path: Path, pg_url: str, pg_server: Any
) -> None:
    archive = tmp_path / "store.pgdump"
    before, report = _backup_under_load(pg_url, archive, *pg_bin())
    assert report["ok"] and report["kind"] == "pg_dump", report
    empty = fresh_pg_database(_pg_admin_uri(pg_server), None)
    restored = membrane(empty, "restore", str(archive), *pg_bin())
    assert restored.returncode == 0, restored.stderr
    checked = json.loads(restored.stdout)
    assert checked["ok"] and checked["kind"] == "postgresql", checked
    assert checked["schema_revision"] == checked["head_revision"]
    ids = _record_ids(empty)
    assert before <= ids and checked["counts"]["records"] == len(ids)
    into_full = membrane(empty, "restore", str(archive), *pg_bin())
    assert into_full.returncode == 1 and "empty database" in into_full.stderr
    assert _record_ids(empty) == ids
