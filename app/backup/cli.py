"""`membrane backup | restore | verify`: the backup commands of the console script
(app/cli.py registers them)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.backup.service import Report as BackupReport
    from app.config import Settings


def add_backup_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    pg_bin = "where pg_dump / pg_restore are (PostgreSQL; default: PATH)"
    backup = commands.add_parser(
        "backup",
        help="copy the configured store to PATH while it serves, then verify the copy",
        description="SQLite: one file, a consistent snapshot (SQLite's online backup API). "
        "PostgreSQL: a pg_dump custom-format archive. See docs/operations.md.",
    )
    backup.add_argument("path", help="the backup file to write (replaced once whole)")
    backup.add_argument("--pg-bin", help=pg_bin)
    backup.set_defaults(handler=_backup)
    restore = commands.add_parser(
        "restore",
        help="load a verified backup into the configured store (stop the service first)",
        description="SQLite: replaces the configured database file's contents. PostgreSQL: "
        "pg_restore into the configured database, which must be empty.",
    )
    restore.add_argument("path", help="a file written by `membrane backup`")
    restore.add_argument("--force", action="store_true", help="SQLite: replace a store's records")
    restore.add_argument("--pg-bin", help=pg_bin)
    restore.set_defaults(handler=_restore)
    verify = commands.add_parser(
        "verify",
        help="check a backup file or a database URL: integrity, schema revision, row counts",
    )
    verify.add_argument("target", help="a backup file, or a database URL")
    verify.add_argument("--pg-bin", help=pg_bin)
    verify.set_defaults(handler=_verify)


def _backup(args: argparse.Namespace, _rest: list[str]) -> None:
    from pathlib import Path

    from app.backup import service

    settings = _settings()
    with _backup_errors():
        report = service.backup(
            settings.database_url, settings.database, Path(args.path), args.pg_bin
        )
    _print_report(report)


def _restore(args: argparse.Namespace, _rest: list[str]) -> None:
    from pathlib import Path

    from app.backup import service

    settings = _settings()
    with _backup_errors():
        report = service.restore(
            Path(args.path), settings.database_url, settings.database, args.pg_bin, force=args.force
        )
    _print_report(report)


def _verify(args: argparse.Namespace, _rest: list[str]) -> None:
    from app.backup import service

    settings = _settings()
    _print_report(service.verify(args.target, settings.database, args.pg_bin))


def _settings() -> Settings:
    from app.startup import settings_or_exit

    return settings_or_exit()


@contextmanager
def _backup_errors() -> Iterator[None]:
    from app.backup.service import BackupError

    try:
        yield
    except (BackupError, OSError, ValueError) as exc:
        raise SystemExit(f"membrane: {exc}") from None


def _print_report(report: BackupReport) -> None:
    print(json.dumps(report.as_dict(), indent=2))
    if not report.ok:
        raise SystemExit(f"membrane: {report.target} fails verify")
