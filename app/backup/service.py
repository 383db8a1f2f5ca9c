"""backup, restore and verify of a store (app/cli.py's `membrane backup|restore|verify`).

SQLite: a backup is one SQLite file, a consistent snapshot taken with the online backup
API while the service runs; restore writes it back into the configured database (stop the
service first); verify opens it and runs SQLite's integrity and foreign-key checks.
PostgreSQL: a backup is a pg_dump custom-format archive; restore loads it into an empty
database with pg_restore; verify reads the archive's table of contents, and opens a
database (a URL) for the full check: schema revision and the rows of every table."""

from __future__ import annotations

from contextlib import closing
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from alembic.script import ScriptDirectory

from app.backup import pg_tools, repository, sqlite_copy
from app.config import DatabaseSettings
from app.db import make_engine
from app.migrate import alembic_config, head_revision


class BackupError(RuntimeError):
    """The command cannot do what was asked; the message is for the operator."""


@dataclass
class Report:
    """What verify found: `ok` when `problems` is empty."""

    target: str
    kind: str  # sqlite | pg_dump | postgresql
    schema_revision: str | None = None
    head_revision: str = field(default_factory=head_revision)
    counts: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}


def backup(url: str, cfg: DatabaseSettings, dest: Path, pg_bin: str | None) -> Report:
    """Take a backup of the store at `url`, then verify it."""
    if dest.is_dir():
        raise BackupError(f"{dest} is a directory; name the backup file")
    if sqlite_copy.database_path(url) is not None:
        sqlite_copy.backup(url, cfg, dest)
    else:
        _tools(lambda: pg_tools.dump(url, dest, pg_bin))
    return verify(str(dest), cfg, pg_bin)


def restore(
    source: Path, url: str, cfg: DatabaseSettings, pg_bin: str | None, *, force: bool
) -> Report:
    """Load a verified backup into the store at `url`; refuses a store that holds records
    (SQLite: unless force) and a backup that fails verify."""
    checked = verify(str(source), cfg, pg_bin)
    if not checked.ok:
        raise BackupError(f"{source} fails verify: {'; '.join(checked.problems)}")
    target = sqlite_copy.database_path(url)
    if target is not None:
        if checked.kind != "sqlite":
            raise BackupError(f"{source} is not a SQLite backup; this store is SQLite")
        if target.exists() and not force and _records(target, cfg):
            raise BackupError(f"{target} holds records; --force replaces them")
        sqlite_copy.restore(source, url, cfg)
    else:
        if checked.kind != "pg_dump":
            raise BackupError(f"{source} is not a pg_dump archive; this store is PostgreSQL")
        if _database_tables(url, cfg):
            raise BackupError("restore a pg_dump archive into an empty database (create one)")
        _tools(lambda: pg_tools.restore(source, url, pg_bin))
    return verify(url if target is None else str(target), cfg, pg_bin)


def verify(target: str, cfg: DatabaseSettings, pg_bin: str | None) -> Report:
    """Check a backup file or a database URL (see the module docstring)."""
    if "://" in target:
        return _verify_database(target, cfg)
    path = Path(target)
    if not path.is_file():
        return Report(target, "missing", problems=[f"no file at {target}"])
    if pg_tools.is_archive(path):
        report = Report(target, "pg_dump", problems=pg_tools.archive_problems(path, pg_bin))
        report.notes.append("an archive's rows are counted once restored: verify its URL")
        return report
    report = Report(target, "sqlite")
    try:
        with closing(sqlite_copy.open_file(path, cfg)) as conn:
            report.problems += repository.sqlite_integrity(conn)
            _check_contents(report, conn, "sqlite")
    except Exception as exc:  # not a database, a wrong key: the file fails verify
        report.problems.append(f"cannot read {target} as a SQLite database: {exc}")
    return report


def _verify_database(url: str, cfg: DatabaseSettings) -> Report:
    shown = sqlite_copy.shown_url(url)
    report = Report(shown, "sqlite" if sqlite_copy.database_path(url) else "postgresql")
    engine = make_engine(url, cfg)
    try:
        raw = engine.raw_connection()
        try:
            if report.kind == "sqlite":
                report.problems += repository.sqlite_integrity(raw.driver_connection)
            _check_contents(report, raw.driver_connection, engine.dialect.name)
        finally:
            raw.close()
    except Exception as exc:  # unreachable, no such database
        report.problems.append(f"cannot open {shown}: {exc}")
    finally:
        engine.dispose()
    return report


def _check_contents(report: Report, conn: Any, dialect: str) -> None:
    tables = repository.existing_tables(conn, dialect)
    report.schema_revision = repository.schema_revision(conn, tables)
    report.counts = repository.counts(conn, tables)
    known = {rev.revision for rev in ScriptDirectory.from_config(alembic_config()).walk_revisions()}
    if report.schema_revision is None:
        report.problems.append("no schema revision: not a Membrane store")
    elif report.schema_revision not in known:
        report.problems.append(f"schema revision {report.schema_revision} is not one of ours")
    elif report.schema_revision != report.head_revision:
        report.notes.append("an older schema: `membrane migrate` brings it to head")
    missing = [name for name in repository.TABLES if name not in tables]
    if report.schema_revision == report.head_revision and missing:
        report.problems.append(f"tables missing: {', '.join(missing)}")


def _records(path: Path, cfg: DatabaseSettings) -> int:
    with closing(sqlite_copy.open_file(path, cfg)) as conn:
        tables = repository.existing_tables(conn, "sqlite")
        return repository.counts(conn, tables).get("records", 0)


def _database_tables(url: str, cfg: DatabaseSettings) -> set[str]:
    engine = make_engine(url, cfg)
    try:
        raw = engine.raw_connection()
        try:
            return repository.existing_tables(raw.driver_connection, engine.dialect.name)
        finally:
            raw.close()
    finally:
        engine.dispose()


def _tools(action: Any) -> None:
    try:
        action()
    except pg_tools.ToolError as exc:
        raise BackupError(str(exc)) from None
