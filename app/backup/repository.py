"""The SQL of a backup's checks, on a DB-API connection of either store: integrity, the
schema revision and the rows of every table."""

from __future__ import annotations

from typing import Any

from app.models import Base

# Tables counted by verify: every table of the models plus alembic's.
TABLES = tuple(table.name for table in Base.metadata.sorted_tables)


def _rows(conn: Any, sql: str) -> list[tuple[Any, ...]]:
    cur = conn.cursor()
    try:
        cur.execute(sql)
        return list(cur.fetchall())
    finally:
        cur.close()


def existing_tables(conn: Any, dialect: str) -> set[str]:
    if dialect == "sqlite":
        sql = "SELECT name FROM sqlite_master WHERE type = 'table'"
    else:
        sql = "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
    return {str(row[0]) for row in _rows(conn, sql)}


def schema_revision(conn: Any, tables: set[str]) -> str | None:
    if "alembic_version" not in tables:
        return None
    rows = _rows(conn, "SELECT version_num FROM alembic_version")
    return str(rows[0][0]) if rows else None


def counts(conn: Any, tables: set[str]) -> dict[str, int]:
    """Rows per table of the models that the database has (reading each table whole)."""
    return {
        name: int(_rows(conn, f'SELECT count(*) FROM "{name}"')[0][0])
        for name in TABLES
        if name in tables
    }


def sqlite_integrity(conn: Any) -> list[str]:
    """SQLite's own checks: every page and index (integrity_check) and every foreign key
    (foreign_key_check); empty when the file is sound."""
    problems = [str(row[0]) for row in _rows(conn, "PRAGMA integrity_check")]
    problems = [p for p in problems if p != "ok"]
    for table, rowid, parent, _fk in _rows(conn, "PRAGMA foreign_key_check"):
        problems.append(f"{table} row {rowid}: no {parent} row it refers to")
    return problems
