"""Helpers of tests/test_faults.py: the service as a real child process that a test can
SIGKILL, PostgreSQL stopped and started under it, and client threads that keep every
answer they got."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import principals

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT_S = 60.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def service_env(db_url: str) -> dict[str, str]:
    """The environment of a service on `db_url` with the test principals, nothing in the
    background and no rate limit."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMBRANE_")}
    env.update(
        MEMBRANE_DATABASE_URL=db_url,
        MEMBRANE_API_KEYS=json.dumps([p.model_dump(mode="json") for p in principals()]),
        MEMBRANE_SCHEDULER__ENABLED="false",
        MEMBRANE_EMBEDDING__PROVIDER="none",
        MEMBRANE_RATE_LIMIT__ENABLED="false",
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
    )
    return env


class ServiceProcess:
    """`python -m uvicorn app.main:app` as a child process: the real service, which a
    test can kill like a crashing host would (no shutdown, no rollback, no flush)."""

    def __init__(self, db_url: str, log_path: Path, env: dict[str, str] | None = None) -> None:
        self.url = f"http://127.0.0.1:{_free_port()}"
        self.log_path = log_path
        port = self.url.rsplit(":", 1)[1]
        command = [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1"]
        command += ["--port", port, "--log-level", "warning", "--no-access-log"]
        with log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                command,
                cwd=ROOT,
                env={**service_env(db_url), **(env or {})},
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            assert self.proc.poll() is None, f"the service exited:\n{self.log_tail()}"
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, f"the service did not start:\n{self.log_tail()}"
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL, as a crash or the OOM killer would."""
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def log_tail(self, chars: int = 4000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:]


@contextmanager
def service(
    db_url: str, log_path: Path, env: dict[str, str] | None = None
) -> Iterator[ServiceProcess]:
    """The service on `db_url`; `env` adds or overrides settings (MEMBRANE_…)."""
    svc = ServiceProcess(db_url, log_path, env)
    try:
        svc.wait_ready()
        yield svc
    finally:
        svc.close()


# -- PostgreSQL stopped and started under the service ------------------------------------


def failpoint_env(point: str, marker: Path, nth: int = 1) -> dict[str, str]:
    """The environment that arms the fail point `point` (app/failpoints.py) in a process
    about to start, to hold still at its `nth` arrival; a marker of an earlier run is
    removed first (only this run may write it)."""
    marker.unlink(missing_ok=True)
    return {"MEMBRANE_FAILPOINT": f"{point}:{marker}:{nth}"}


def wait_until_held(marker: Path, still_running: Callable[[], None], timeout_s: float) -> None:
    """Wait until the process writes `marker`: it holds still at its fail point.
    `still_running` asserts meanwhile that the process (and whoever calls it) runs on."""
    deadline = time.monotonic() + timeout_s
    while not marker.exists():
        still_running()
        assert time.monotonic() < deadline, f"the fail point of {marker} was never reached"
        time.sleep(0.01)


def stop_postgres(server: Any) -> None:
    """`pg_ctl stop -m fast` on a pgserver instance: sessions are terminated and their
    transactions rolled back, new connections are refused until it starts again."""
    pg_ctl = Path(sys.modules["pgserver"].__file__ or "").parent / "pginstall" / "bin" / "pg_ctl"
    subprocess.run(
        [str(pg_ctl), "-D", str(server.pgdata), "-w", "-m", "fast", "stop"],
        check=True,
        user=server.system_user,  # pgserver runs PostgreSQL as its own user under root
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=30,
    )


def start_postgres(server: Any) -> None:
    """Start it again on the same data directory and socket (pgserver's own start-up)."""
    server.ensure_postgres_running()


# -- client load ------------------------------------------------------------------------

# One operation of a client thread: its i-th request, or None when it has nothing left.
Op = Callable[[httpx.Client, int], httpx.Response | None]


@dataclass
class Outcome:
    kind: str
    started: float  # time.monotonic()
    elapsed: float
    status: int | None = None  # None: no answer at all (`error` says why)
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    @property
    def interrupted(self) -> bool:
        """Sent, and the connection died before an answer came."""
        return self.error is not None and self.error != "ConnectError"


class Load:
    """One client thread per operation, each repeating its operation until stopped, until
    it has nothing left, or (with `stop_when_gone`) until the service stops answering.
    Every request's outcome is kept."""

    def __init__(
        self,
        url: str,
        ops: list[tuple[str, Op]],
        headers: dict[str, str],
        *,
        stop_when_gone: bool,
        timeout_s: float = 30.0,
        pace_s: float = 0.0,
    ) -> None:
        self.url, self.headers, self.timeout_s = url, headers, timeout_s
        self.pace_s = pace_s
        self.stop_when_gone = stop_when_gone
        self.outcomes: list[Outcome] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._run, args=(kind, op), daemon=True) for kind, op in ops
        ]

    def __enter__(self) -> Load:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(self.timeout_s + 10)
        assert not any(t.is_alive() for t in self._threads), "a client thread hangs"

    def snapshot(self) -> list[Outcome]:
        with self._lock:
            return list(self.outcomes)

    def wait_until(self, condition: Callable[[list[Outcome]], bool], timeout_s: float) -> float:
        """Wait for `condition` over the outcomes so far; return when it held."""
        deadline = time.monotonic() + timeout_s
        while not condition(self.snapshot()):
            assert time.monotonic() < deadline, f"not reached in {timeout_s} s: {self.summary()}"
            time.sleep(0.02)
        return time.monotonic()

    def summary(self) -> dict[str, Counter[str]]:
        out: dict[str, Counter[str]] = defaultdict(Counter)
        for o in self.snapshot():
            out[o.kind][str(o.status or o.error)] += 1
        return dict(out)

    def _run(self, kind: str, op: Op) -> None:
        with httpx.Client(base_url=self.url, headers=self.headers, timeout=self.timeout_s) as c:
            i = 0
            while not self._stop.is_set():
                outcome = _attempt(kind, op, c, i)
                if outcome is None:
                    return
                with self._lock:
                    self.outcomes.append(outcome)
                if outcome.status is None and self.stop_when_gone:
                    return
                i += 1
                self._stop.wait(self.pace_s)


def _attempt(kind: str, op: Op, client: httpx.Client, i: int) -> Outcome | None:
    t0 = time.monotonic()
    try:
        response = op(client, i)
    except httpx.TransportError as exc:
        return Outcome(kind, t0, time.monotonic() - t0, error=type(exc).__name__)
    if response is None:
        return None
    try:
        body = response.json()
    except ValueError:
        body = None
    return Outcome(
        kind, t0, time.monotonic() - t0, response.status_code, body, dict(response.headers)
    )


@contextmanager
def own_postgres_server(purpose: str) -> Iterator[Any]:
    """A PostgreSQL + pgvector of one test alone (pgserver), for a test that stops,
    freezes or restarts it; removed afterwards."""
    pgserver = pytest.importorskip("pgserver", reason="pgserver is installed by `make test`")
    root = Path(tempfile.mkdtemp(prefix=f"membrane-pg-{purpose}-"))
    server = pgserver.get_server(str(root / "pg"), cleanup_mode="stop")
    try:
        yield server
    finally:
        server.cleanup()
        shutil.rmtree(root, ignore_errors=True)
