"""A PostgreSQL primary with a streaming standby, both from the pgserver package: the
primary is a pgserver server of its own; the standby is `pg_basebackup -R` of it, run by
the same binaries on its own socket directory. For the read-replica tests."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest


@dataclass
class Standby:
    datadir: Path
    socket_dir: Path
    user: str | None  # the system user pgserver runs PostgreSQL as (when we are root)

    def uri(self, database: str = "postgres") -> str:
        return f"postgresql://postgres:@/{database}?host={self.socket_dir}"

    def _pg_ctl(self, *args: str) -> None:
        from pgserver._commands import create_command_function

        pg_ctl = create_command_function("pg_ctl")
        pg_ctl(list(args), pgdata=self.datadir, user=self.user, timeout=60)

    def start(self) -> None:
        log = str(self.datadir.parent / "standby.log")
        self._pg_ctl("-w", "-o", '-h ""', "-o", f"-k {self.socket_dir}", "-l", log, "start")

    def stop(self) -> None:
        self._pg_ctl("-w", "-m", "fast", "stop")

    def sql(self, statement: str) -> Any:
        with psycopg.connect(self.uri(), autocommit=True) as conn:
            row = conn.execute(statement).fetchone()
        return row[0] if row else None

    def running(self) -> bool:
        try:
            self.sql("SELECT 1")
        except psycopg.OperationalError:
            return False
        return True

    def pause_replay(self) -> None:
        self.sql("SELECT pg_wal_replay_pause()")

    def resume_replay(self) -> None:
        self.sql("SELECT pg_wal_replay_resume()")

    def wait_until_replayed(self, primary_uri: str, timeout_s: float = 30) -> None:
        """Until the standby has replayed everything the primary had written now."""
        with psycopg.connect(primary_uri, autocommit=True) as conn:
            row = conn.execute("SELECT pg_current_wal_lsn()").fetchone()
        assert row is not None
        target = row[0]
        deadline = time.monotonic() + timeout_s
        while True:
            caught_up = self.sql(f"SELECT pg_last_wal_replay_lsn() >= '{target}'::pg_lsn")
            if caught_up:
                return
            assert time.monotonic() < deadline, "the standby did not catch up"
            time.sleep(0.05)


def _owned_dir(path: Path, user: str | None, mode: int) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(path, entry.pw_uid, entry.pw_gid)
    path.chmod(mode)
    return path


@contextmanager
def primary_with_standby(
    settings: dict[str, str] | None = None,
) -> Iterator[tuple[Any, Standby]]:
    """(the primary's pgserver server, its standby), both stopped and removed after.
    `settings`: ALTER SYSTEM on the primary before the standby is made (bench/scaling.py
    sizes it as its other benchmarks do); the standby copies them."""
    pgserver = pytest.importorskip("pgserver", reason="pgserver is installed by `make test`")
    from pgserver._commands import create_command_function

    root = Path(tempfile.mkdtemp(prefix="membrane-pg-replica-"))
    root.chmod(0o755)
    primary = pgserver.get_server(str(root / "primary"), cleanup_mode="stop")
    if settings:
        with psycopg.connect(primary.get_uri(), autocommit=True) as conn:
            for name, value in settings.items():
                conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")
        primary.cleanup()
        primary = pgserver.get_server(str(root / "primary"), cleanup_mode="stop")
    user = primary.system_user
    standby = Standby(
        datadir=_owned_dir(root / "standby-parent", user, 0o755) / "data",
        socket_dir=_owned_dir(root / "standby-socket", user, 0o777),
        user=user,
    )
    primary_socket = primary.get_postmaster_info().socket_dir
    try:
        create_command_function("pg_basebackup")(
            [
                *("-D", str(standby.datadir), "-R", "-X", "stream", "-c", "fast"),
                *("-h", str(primary_socket), "-U", "postgres"),
            ],
            user=user,
            timeout=120,
        )
        standby.start()
        yield primary, standby
    finally:
        with contextlib.suppress(Exception):  # already stopped by the test, or never started
            standby.stop()
        primary.cleanup()
        shutil.rmtree(root, ignore_errors=True)
