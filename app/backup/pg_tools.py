"""PostgreSQL backups are PostgreSQL's own: pg_dump's custom-format archive (a consistent
snapshot taken in one repeatable-read transaction while the service writes) and pg_restore.
The client tools must be of the server's major version or newer; --pg-bin (or PATH) says
where they are."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from app.db import normalize_url

PG_DUMP_MAGIC = b"PGDMP"
# Rows of `pg_restore --list` that a Membrane archive must hold.
REQUIRED_DATA = ("alembic_version", "records", "audit_log")


class ToolError(RuntimeError):
    """A PostgreSQL client tool is missing or failed; the message is for the operator."""


def libpq_url(url: str) -> str:
    """The URL as libpq reads it (no SQLAlchemy driver suffix)."""
    return normalize_url(url).replace("postgresql+psycopg://", "postgresql://", 1)


def tool(name: str, pg_bin: str | None) -> str:
    found = shutil.which(name, path=pg_bin) if pg_bin else shutil.which(name)
    if found is None:
        where = f"in {pg_bin}" if pg_bin else "on PATH (or give --pg-bin)"
        raise ToolError(f"{name} not found {where}")
    return found


def _run(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ToolError(f"{Path(command[0]).name} failed: {done.stderr.strip()[-2000:]}")
    return done.stdout


def dump(url: str, dest: Path, pg_bin: str | None) -> None:
    partial = dest.with_name(dest.name + ".partial")
    partial.unlink(missing_ok=True)
    _run([tool("pg_dump", pg_bin), "--format=custom", f"--file={partial}", libpq_url(url)])
    partial.replace(dest)


def restore(archive: Path, url: str, pg_bin: str | None) -> None:
    """Into an empty database (create it first): one transaction, so a failed restore
    leaves it empty; objects are owned by the connecting role."""
    command = [tool("pg_restore", pg_bin), "--no-owner", "--single-transaction", "--exit-on-error"]
    _run([*command, f"--dbname={libpq_url(url)}", str(archive)])


def archive_problems(archive: Path, pg_bin: str | None) -> list[str]:
    """What pg_restore finds wrong with an archive's table of contents (it reads the whole
    list, so a cut-short or foreign file fails), or a Membrane table missing from it."""
    try:
        listing = _run([tool("pg_restore", pg_bin), "--list", str(archive)])
    except ToolError as exc:
        return [str(exc)]
    data = {line.split()[-2] for line in listing.splitlines() if " TABLE DATA " in line}
    return [f"no data of table {name}" for name in REQUIRED_DATA if name not in data]


def is_archive(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(len(PG_DUMP_MAGIC)) == PG_DUMP_MAGIC
