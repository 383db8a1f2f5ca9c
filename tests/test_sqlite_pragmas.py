"""Every SQLite connection is set up as the service needs it: WAL, foreign keys, and the
database file read through a memory map of MEMBRANE_DATABASE__SQLITE_MMAP_MB (0: none)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sqlalchemy import text

from app.config import DatabaseSettings
from app.db import Database


@pytest.mark.parametrize(
    ("mmap_mb", "expected"), [(None, 1024 * 1024 * 1024), (0, 0), (64, 64 << 20)]
)
def test_each_connection_maps_the_file_as_configured(
    sqlite_template: Path, tmp_path: Path, mmap_mb: int | None, expected: int
) -> None:
    shutil.copyfile(sqlite_template, tmp_path / "m.db")
    cfg = DatabaseSettings() if mmap_mb is None else DatabaseSettings(sqlite_mmap_mb=mmap_mb)
    db = Database(f"sqlite:///{tmp_path / 'm.db'}", cfg)
    try:
        with db.transaction() as session:
            assert session.scalar(text("PRAGMA mmap_size")) == expected
            assert session.scalar(text("PRAGMA journal_mode")) == "wal"
            assert session.scalar(text("PRAGMA foreign_keys")) == 1
            assert session.scalar(text("SELECT count(*) FROM records")) == 0
    finally:
        db.dispose()


def test_a_map_larger_than_sqlite_allows_is_refused() -> None:
    with pytest.raises(ValueError, match="sqlite_mmap_mb"):
        DatabaseSettings(sqlite_mmap_mb=4096)
