"""`python -m app.serve` as a child process with the environment a test gives it: the
real start-up path (settings, logging configuration, TLS, uvicorn), its stderr kept in a
file the test reads."""

from __future__ import annotations

import os
import pty
import select
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.fault_support import ROOT, service_env
from tests.live_support import free_port

START_TIMEOUT_S = 60.0


@dataclass
class Served:
    proc: subprocess.Popen[bytes]
    url: str
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def run_serve(db_url: str, env: dict[str, str], timeout_s: float = 60) -> tuple[int, str]:
    """`python -m app.serve` expected to stop by itself (a start-up refusal): its exit
    status and stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "app.serve"],
        cwd=ROOT,
        env={**service_env(db_url), **env},
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
    return done.returncode, done.stderr


@contextmanager
def serve(
    db_url: str, env: dict[str, str], log_path: Path, verify: ssl.SSLContext | None = None
) -> Iterator[Served]:
    """The server until the block ends, then SIGTERM (a graceful stop); `verify`: serve
    HTTPS and trust this context's CAs."""
    port = free_port()
    scheme = "https" if verify is not None else "http"
    full_env = {**service_env(db_url), "MEMBRANE_PORT": str(port), **env}
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app.serve"],
            cwd=ROOT,
            env=full_env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    served = Served(proc, f"{scheme}://127.0.0.1:{port}", log_path)
    try:
        _wait_ready(served, verify)
        yield served
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


def _wait_ready(served: Served, verify: ssl.SSLContext | None) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        assert served.proc.poll() is None, f"the service exited:\n{served.log()[-4000:]}"
        try:
            answer = httpx.get(served.url + "/healthz", timeout=1, verify=verify or True)
            if answer.status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, f"the service did not start:\n{served.log()[-4000:]}"
        time.sleep(0.1)


def start_up_at_a_terminal(db_url: str, env: dict[str, str], port: int) -> list[str]:
    """`python -m app.serve` with its stderr on a pseudo-terminal, as in a person's shell:
    the lines it writes up to and including its "membrane ready" line, then SIGTERM."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.serve"],
        cwd=ROOT,
        env={**service_env(db_url), "MEMBRANE_PORT": str(port), **env},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=follower,
    )
    os.close(follower)
    seen = b""
    deadline = time.monotonic() + START_TIMEOUT_S
    try:
        while b"membrane ready" not in seen or not seen.endswith(b"\n"):
            assert time.monotonic() < deadline, f"no ready line:\n{seen.decode()}"
            assert proc.poll() is None, f"the service exited:\n{seen.decode()}"
            if select.select([leader], [], [], 0.5)[0]:
                seen += os.read(leader, 65536)
    finally:
        proc.terminate()
        proc.wait(30)
        os.close(leader)
    return seen.decode().replace("\r\n", "\n").splitlines()
