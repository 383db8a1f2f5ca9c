"""What the benchmarks share: a store (SQLite file or PostgreSQL + pgvector from pgserver)
and a server started as production starts it — `python -m app.serve` with
MEMBRANE_WORKERS API processes and MEMBRANE_BACKGROUND=worker, plus one `python -m
app.worker` that embeds records and runs the jobs — open mode, rate limit off."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

REPO_ROOT = Path(__file__).resolve().parents[1]


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile of sorted or unsorted values (0 for none)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[rank]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def store_url(store: str, datadir: Path | None = None) -> Iterator[str]:
    """A database URL for `store` (kept in `datadir` when given, else a temp dir)."""
    with tempfile.TemporaryDirectory(prefix="membrane-bench-") as tmp:
        base = datadir or Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        if store == "sqlite":
            yield f"sqlite:///{base / 'membrane.db'}"
            return
        from pgserver.postgres_server import get_server

        server = get_server(base / "pg", cleanup_mode="stop")
        try:
            yield re.sub(r"^postgres(ql)?://", "postgresql+psycopg://", server.get_uri())
        finally:
            server.cleanup()


@dataclass
class Server:
    url: str
    db_url: str
    workers: int
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def rss_mb(self) -> float:
        """Resident memory of the API and worker processes and their children."""
        total = 0
        for pid in _tree([p.pid for p in self.processes]):
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
            except OSError:
                continue
        return round(total / 1024, 1)

    def describe(self) -> dict[str, Any]:
        return {"api_workers": self.workers, "background": "worker", "rss_mb": self.rss_mb()}


def _tree(roots: list[int]) -> set[int]:
    pids = set(roots)
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        ppid = re.search(r"^PPid:\s+(\d+)", text, re.M)
        if ppid and int(ppid.group(1)) in roots:
            pids.add(int(status.parent.name))
    return pids


def server_env(db_url: str, workers: int, **extra: str) -> dict[str, str]:
    env = dict(os.environ)  # MEMBRANE_* of the caller (capacity, pools) pass through
    env.update(
        MEMBRANE_DATABASE_URL=db_url,
        MEMBRANE_WORKERS=str(workers),
        MEMBRANE_BACKGROUND="worker",
        MEMBRANE_EMBEDDING__PROVIDER="local",
        MEMBRANE_RATE_LIMIT__ENABLED="false",
        MEMBRANE_LOG_LEVEL="warning",
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        **extra,
    )
    return env


@contextmanager
def production_server(
    store: str,
    *,
    workers: int = 1,
    db_url: str | None = None,
    datadir: Path | None = None,
    migrate: bool = True,
) -> Iterator[Server]:
    """Migrate the store, start the API processes and one worker; stop them at the end."""
    with _maybe_store(store, db_url, datadir) as url:
        port = free_port()
        env = server_env(url, workers, MEMBRANE_PORT=str(port))
        if migrate:
            subprocess.run(
                [sys.executable, "-m", "app.migrate"], cwd=REPO_ROOT, env=env, check=True
            )
        server = Server(url=f"http://127.0.0.1:{port}", db_url=url, workers=workers)
        logs = Path(tempfile.mkdtemp(prefix="membrane-bench-logs-"))
        try:
            for name, module in (("api", "app.serve"), ("worker", "app.worker")):
                with (logs / f"{name}.log").open("wb") as log:
                    server.processes.append(
                        subprocess.Popen(
                            [sys.executable, "-m", module],
                            cwd=REPO_ROOT,
                            env=env,
                            stdout=log,
                            stderr=subprocess.STDOUT,
                        )
                    )
            _wait_healthy(server, logs)
            yield server
        finally:
            for proc in server.processes:
                proc.terminate()
            for proc in server.processes:
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()


@contextmanager
def _maybe_store(store: str, db_url: str | None, datadir: Path | None) -> Iterator[str]:
    if db_url is not None:
        yield db_url
        return
    with store_url(store, datadir) as url:
        yield url


def _wait_healthy(server: Server, logs: Path) -> None:
    deadline = time.monotonic() + 180
    while True:
        for proc in server.processes:
            if proc.poll() is not None:
                tails = {p.name: p.read_text()[-3000:] for p in logs.glob("*.log")}
                raise RuntimeError(f"a server process exited: {tails}")
        try:
            if httpx.get(f"{server.url}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"server not ready; logs in {logs}")
        time.sleep(0.5)
