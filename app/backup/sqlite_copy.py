"""SQLite backups through SQLite's online backup API: the copy is one consistent snapshot
of the database (a read transaction over every page, which in WAL mode never blocks the
service's writers), written beside its destination and renamed into place when whole, so a
backup file is either complete or absent. An encrypted store's backup is encrypted with the
same key (SQLCipher copies ciphertext pages)."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from app.config import DatabaseSettings
from app.db import make_engine, normalize_url
from app.sqlcipher import apply_key, sqlcipher_dbapi

SQLITE_MAGIC = b"SQLite format 3\x00"


def database_path(url: str) -> Path | None:
    """The file of a SQLite URL, None for PostgreSQL."""
    parsed = make_url(normalize_url(url))
    if parsed.get_backend_name() != "sqlite":
        return None
    if not parsed.database or parsed.database == ":memory:":
        raise ValueError("an in-memory SQLite database has nothing to back up")
    return Path(parsed.database)


def shown_url(url: str) -> str:
    """The URL as a report may show it (no password)."""
    return make_url(normalize_url(url)).render_as_string(hide_password=True)


def open_file(path: Path, cfg: DatabaseSettings) -> Any:
    """A DB-API connection to a SQLite file (SQLCipher's, keyed, when a key is set)."""
    key = cfg.encryption_key.get_secret_value()
    if not key:
        conn = sqlite3.connect(path, isolation_level=None)
        return conn
    conn = sqlcipher_dbapi().connect(str(path), isolation_level=None)
    apply_key(conn, key)
    return conn


def backup(url: str, cfg: DatabaseSettings, dest: Path) -> None:
    """Copy the live database of `url` to `dest` (replacing it once the copy is whole)."""
    source = database_path(url)
    assert source is not None
    if not source.exists():
        raise FileNotFoundError(f"no SQLite database at {source}")
    partial = dest.with_name(dest.name + ".partial")
    partial.unlink(missing_ok=True)
    engine = make_engine(url, cfg)
    try:
        raw = engine.raw_connection()  # the service's own pragmas and key
        try:
            with closing(open_file(partial, cfg)) as target:
                raw.driver_connection.backup(target)  # type: ignore[union-attr]
                # One self-contained file: no WAL or shared-memory file beside the backup.
                target.execute("PRAGMA journal_mode=DELETE")
        finally:
            raw.close()
    finally:
        engine.dispose()
    _fsync(partial)
    os.replace(partial, dest)
    _fsync(dest.parent)


def restore(backup_file: Path, url: str, cfg: DatabaseSettings) -> None:
    """Replace the database of `url` with the backup, page by page, inside SQLite (the
    target's WAL and journal stay consistent; its own connection settings apply)."""
    engine = make_engine(url, cfg)
    try:
        raw = engine.raw_connection()
        try:
            with closing(open_file(backup_file, cfg)) as source:
                source.backup(raw.driver_connection)
        finally:
            raw.close()
    finally:
        engine.dispose()


def is_sqlite_file(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
