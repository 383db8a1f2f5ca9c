"""SQLite encrypted at rest (issue 12, item 8): with MEMBRANE_ENCRYPTION_KEY the service
started as production starts it (`python -m app.serve`) writes a SQLCipher file that holds
no plaintext and that neither plain SQLite nor a wrong key can read; the same key opens it
again; a wrong key, a missing key, a missing SQLCipher or a key for PostgreSQL stop the
process with one line before anything is written."""

from __future__ import annotations

import hashlib
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from sqlcipher3 import dbapi2 as sqlcipher  # the dev extra installs it: never skipped

from tests.conftest import auth
from tests.fault_support import ROOT, START_TIMEOUT_S, service_env
from tests.test_migration_lock import ServeProcess, wait_for_log

KEY = "correct horse 'battery' staple"
RAW_KEY = "raw:" + "ab" * 32
SECRET_TEXT = "the vault combination is 4711-OCTOBER"
HEADER_OF_PLAIN_SQLITE = b"SQLite format 3\x00"


@contextmanager
def serving(database: Path, log: Path, key: str) -> Iterator[str]:
    svc = ServeProcess(f"sqlite:///{database}", log, MEMBRANE_ENCRYPTION_KEY=key)
    try:
        wait_for_log(svc.proc, log, "Application startup complete")
        yield svc.url
    finally:
        svc.proc.send_signal(signal.SIGTERM)
        assert svc.proc.wait(START_TIMEOUT_S) == 0, svc.log()[-3000:]


def serve_once(db_url: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`python -m app.serve` on `db_url`, run to its end (a refusal ends it at once)."""
    return subprocess.run(
        [sys.executable, "-m", "app.serve"],
        cwd=ROOT,
        env=service_env(db_url) | env,
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT_S,
    )


def refused(database: Path, **env: str) -> str:
    """Start `python -m app.serve`, which must refuse: its one line on stderr."""
    done = serve_once(f"sqlite:///{database}", **env)
    assert done.returncode == 1, done.stderr[-3000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr[-3000:]
    return lines[0]


def capture_secret(url: str) -> str:
    body = {"source": "agent", "source_kind": "observation", "content": SECRET_TEXT}
    response = httpx.post(f"{url}/v1/capture", json=body, headers=auth("writer"), timeout=30)
    assert response.status_code == 201, response.text
    return str(response.json()["primary_record"]["id"])


def files_of(database: Path) -> list[Path]:
    return [p for p in (database, Path(f"{database}-wal"), Path(f"{database}-shm")) if p.exists()]


def digest(database: Path) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in files_of(database))).hexdigest()


@pytest.fixture(scope="module")
def encrypted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A database the service created with KEY, holding one captured record."""
    workdir = tmp_path_factory.mktemp("encrypted")
    database = workdir / "membrane.db"
    with serving(database, workdir / "first.log", KEY) as url:
        record_id = capture_secret(url)
    return database, record_id


def test_the_file_holds_no_plaintext_and_plain_sqlite_cannot_read_it(
    encrypted: tuple[Path, str],
) -> None:
    database, _ = encrypted
    assert database.read_bytes()[:16] != HEADER_OF_PLAIN_SQLITE
    for path in files_of(database):
        content = path.read_bytes()
        assert b"vault combination" not in content, path
        assert b"CREATE TABLE" not in content, path
    with pytest.raises(sqlite3.DatabaseError, match="file is not a database"):
        sqlite3.connect(database).execute("SELECT count(*) FROM records").fetchall()


def test_sqlcipher_with_the_key_reads_the_record_and_a_wrong_key_reads_nothing(
    encrypted: tuple[Path, str],
) -> None:
    database, record_id = encrypted
    keyed = sqlcipher.connect(str(database))
    keyed.execute("PRAGMA key = '" + KEY.replace("'", "''") + "'")
    rows = keyed.execute("SELECT id FROM records WHERE id = ?", (record_id,)).fetchall()
    keyed.close()
    assert rows == [(record_id,)]
    wrong = sqlcipher.connect(str(database))
    wrong.execute("PRAGMA cipher_log_level = NONE")
    wrong.execute("PRAGMA key = 'not the key'")
    with pytest.raises(sqlcipher.DatabaseError, match="file is not a database"):
        wrong.execute("SELECT count(*) FROM sqlite_master").fetchall()
    wrong.close()


def test_the_same_key_opens_it_again_and_retrieve_finds_the_record(
    encrypted: tuple[Path, str], tmp_path: Path
) -> None:
    database, record_id = encrypted
    with serving(database, tmp_path / "again.log", KEY) as url:
        record = httpx.get(f"{url}/v1/records/{record_id}", headers=auth("writer"), timeout=30)
        found = httpx.post(
            f"{url}/v1/retrieve",
            json={"query": "vault combination", "limit": 5},
            headers=auth("writer"),
            timeout=30,
        )
    assert record.status_code == 200, record.text
    assert SECRET_TEXT in record.text
    assert found.status_code == 200, found.text
    assert [item["record"]["id"] for item in found.json()["items"]][:1] == [record_id]


def test_a_wrong_key_stops_start_up_with_one_line_and_changes_nothing(
    encrypted: tuple[Path, str],
) -> None:
    database, _ = encrypted
    before = digest(database)
    line = refused(database, MEMBRANE_ENCRYPTION_KEY="not the key")
    assert line == (
        "membrane: the SQLite database cannot be opened with MEMBRANE_ENCRYPTION_KEY: the key "
        "is wrong, or the file is not an encrypted Membrane database (file is not a database)"
    )
    assert digest(database) == before


def test_an_encrypted_file_without_a_key_stops_start_up(encrypted: tuple[Path, str]) -> None:
    database, _ = encrypted
    line = refused(database)
    assert line.startswith("membrane: the SQLite database cannot be read without a key")
    assert "set MEMBRANE_ENCRYPTION_KEY" in line


def test_without_a_usable_sqlcipher_a_key_refuses_to_start_and_writes_nothing(
    tmp_path: Path,
) -> None:
    """A broken install: a `sqlcipher3` package without its compiled driver shadows the
    real one. The service must not fall back to a plain file."""
    broken = tmp_path / "broken-site"
    (broken / "sqlcipher3").mkdir(parents=True)
    (broken / "sqlcipher3" / "__init__.py").write_text("")
    database = tmp_path / "membrane.db"
    line = refused(database, MEMBRANE_ENCRYPTION_KEY=KEY, PYTHONPATH=str(broken))
    assert line.startswith("membrane: MEMBRANE_ENCRYPTION_KEY is set but SQLCipher is not usable")
    assert "refusing to write an unencrypted database" in line
    assert not database.exists()


def test_a_key_with_postgresql_is_an_invalid_setting(tmp_path: Path) -> None:
    done = serve_once("postgresql://127.0.0.1:5432/test", MEMBRANE_ENCRYPTION_KEY=KEY)
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "membrane: invalid settings: MEMBRANE_ENCRYPTION_KEY applies to SQLite only; "
        "encrypt PostgreSQL at rest on the server or its volume"
    )


def test_a_raw_256_bit_key_encrypts_too(tmp_path: Path) -> None:
    database = tmp_path / "raw.db"
    with serving(database, tmp_path / "raw.log", RAW_KEY) as url:
        record_id = capture_secret(url)
    assert database.read_bytes()[:16] != HEADER_OF_PLAIN_SQLITE
    keyed = sqlcipher.connect(str(database))
    keyed.execute("PRAGMA key = \"x'" + "ab" * 32 + "'\"")
    rows = keyed.execute("SELECT id FROM records").fetchall()
    keyed.close()
    assert rows == [(record_id,)]
