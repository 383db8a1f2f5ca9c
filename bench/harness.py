"""What the benchmarks share: the LoCoMo text, a store (SQLite file or PostgreSQL +
pgvector from pgserver), a server started as production starts it — `python -m
app.serve` with MEMBRANE_WORKERS API processes and, when `app.worker` exists,
MEMBRANE_BACKGROUND=worker plus one `python -m app.worker` that embeds records and runs
the jobs — open mode, rate limit off; percentiles and a tiny progress printer."""

from __future__ import annotations

import importlib.util
import ipaddress
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import NullPool

REPO_ROOT = Path(__file__).resolve().parents[1]
LOCOMO = REPO_ROOT.parent / "shared" / "bench" / "locomo" / "locomo-dev.json"


# --------------------------------------------------------------------------- text


@dataclass(frozen=True)
class LocomoText:
    """LoCoMo's turns as (speaker, text) and every question, in file order."""

    turns: list[tuple[str, str]]
    questions: list[str]

    @property
    def speakers(self) -> list[str]:
        return sorted({speaker for speaker, _ in self.turns})

    def lines(self) -> list[str]:
        return [f"{speaker}: {text}" for speaker, text in self.turns]


def load_locomo(path: Path = LOCOMO) -> LocomoText:
    turns: list[tuple[str, str]] = []
    questions: list[str] = []
    for conv in json.loads(path.read_text()):
        sessions = sorted(
            (int(m.group(1)), key)
            for key in conv["conversation"]
            if (m := re.fullmatch(r"session_(\d+)", key))
        )
        for _, key in sessions:
            turns += [(t["speaker"], t["text"]) for t in conv["conversation"][key] if t.get("text")]
        questions += [str(qa["question"]) for qa in conv["qa"] if qa.get("question")]
    return LocomoText(turns, questions)


# ------------------------------------------------------------------------ numbers


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile of sorted or unsorted values (0 for none)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[rank]


def latency_ms(samples: Sequence[float], ps: Sequence[int] = (50, 95, 99)) -> dict[str, float]:
    """Percentiles of latencies in seconds, as milliseconds (`p50_ms`, ...)."""
    return {f"p{p}_ms": round(percentile(samples, p) * 1000, 1) for p in ps}


def retry_after_s(value: str | None) -> float | None:
    """Seconds of a Retry-After header (delta-seconds or HTTP date); None when absent."""
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return 0.0


class Progress:
    """A one-line stderr progress bar: `phase [#####.....] done/total rate eta`."""

    def __init__(self, phase: str, total: int, unit: str = "") -> None:
        self.phase, self.total, self.unit = phase, max(total, 1), unit
        self.done = 0
        self.started = time.monotonic()
        self._shown = 0.0
        self.update(0)

    def update(self, done: int) -> None:
        self.done = done
        now = time.monotonic()
        last = done >= self.total
        if not last and now - self._shown < 0.25:
            return
        self._shown = now
        elapsed = now - self.started
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - done) / rate if rate > 0 else 0.0
        filled = int(30 * min(done, self.total) / self.total)
        tail = f"{elapsed:.0f}s" if last else f"eta {eta:.0f}s"
        print(
            f"\r  {self.phase:<26} [{'#' * filled}{'.' * (30 - filled)}] "
            f"{done:,}/{self.total:,} {rate:,.0f}{self.unit}/s {tail}   ",
            end="\n" if last else "",
            file=sys.stderr,
            flush=True,
        )

    def advance(self, n: int = 1) -> None:
        self.update(self.done + n)


@contextmanager
def phase(name: str) -> Iterator[None]:
    """Announce a phase that has no countable progress, then its duration."""
    print(f"  {name} ...", end="", file=sys.stderr, flush=True)
    t0 = time.monotonic()
    yield
    print(f" {time.monotonic() - t0:.1f}s", file=sys.stderr, flush=True)


def is_loopback(url: str) -> bool:
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# -------------------------------------------------------------------------- store


def postmaster_running(pgdata: Path) -> bool:
    """Whether a PostgreSQL server (of this or another process) runs on `pgdata`."""
    pidfile = pgdata / "postmaster.pid"
    try:
        pid = int(pidfile.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return False
    return Path(f"/proc/{pid}").exists()


def wipe(datadir: Path) -> None:
    """Remove a kept store; refuses while a PostgreSQL server still runs on it."""
    if postmaster_running(datadir / "pg"):
        raise RuntimeError(f"a PostgreSQL server still runs on {datadir / 'pg'}; stop it first")
    shutil.rmtree(datadir, ignore_errors=True)


@contextmanager
def store_url(store: str, datadir: Path | None = None) -> Iterator[str]:
    """A database URL for `store`, kept in `datadir` when given, else in a temp dir."""
    with tempfile.TemporaryDirectory(prefix="membrane-bench-") as tmp:
        base = datadir or Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        if store == "sqlite":
            yield f"sqlite:///{base / 'membrane.db'}"
            return
        from pgserver.postgres_server import get_server

        server = get_server(base / "pg", cleanup_mode="stop")
        if _tune_postgres(server.get_uri()):  # the settings apply from the next start
            server.cleanup()
            server = get_server(base / "pg", cleanup_mode="stop")
        try:
            yield re.sub(r"^postgres(ql)?://", "postgresql+psycopg://", server.get_uri())
        finally:
            server.cleanup()


# A benchmark's PostgreSQL is sized as a production server of this machine would be
# (pgserver starts with the defaults: 128 MB of shared buffers). JIT is off as OLTP
# services run it: compiling a retrieval query costs more than running it. Connections for
# 16 API processes and their workers (bench/scaling.py), beyond the default 100.
PG_SETTINGS = {"shared_buffers": "6GB", "jit": "off", "max_connections": "400"}


def _tune_postgres(uri: str) -> bool:
    """Write PG_SETTINGS into the server's configuration; whether a restart is needed."""
    import psycopg

    changed = False
    with psycopg.connect(uri, autocommit=True) as conn:
        for name, value in PG_SETTINGS.items():
            current = conn.execute(f"SHOW {name}").fetchone()
            if current is not None and current[0] == value:
                continue
            conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")
            changed = True
    return changed


def pg_admin(admin_url: str, *statements: str) -> None:
    """Run statements outside a transaction (CREATE/DROP DATABASE, ANALYZE); retried while
    the template is briefly in use (autovacuum)."""
    engine = create_engine(admin_url, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    try:
        for attempt in range(30):
            try:
                with engine.connect() as conn:
                    for statement in statements:
                        conn.execute(text(statement))
                return
            except OperationalError as exc:
                if "being accessed by other users" not in str(exc) or attempt == 29:
                    raise
                time.sleep(1)
    finally:
        engine.dispose()


# ------------------------------------------------------------------------- server


def worker_available() -> bool:
    """Whether this checkout has `python -m app.worker` (MEMBRANE_BACKGROUND=worker)."""
    return importlib.util.find_spec("app.worker") is not None


@dataclass
class Server:
    url: str
    db_url: str
    workers: int
    background: str
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def rss_mb(self) -> dict[str, float]:
        """Resident memory of the started processes and all their descendants, per
        started process (`api`, `worker`) and in total."""
        out: dict[str, float] = {}
        for name, proc in zip(("api", "worker"), self.processes, strict=False):
            kib = sum(_rss_kib(pid) for pid in descendants(proc.pid))
            out[name] = round(kib / 1024, 1)
        out["total"] = round(sum(out.values()), 1)
        return out

    def describe(self) -> dict[str, Any]:
        from app.config import CapacitySettings

        default = CapacitySettings().max_in_flight  # the servers inherit this process's env
        return {
            "api_workers": self.workers,
            "background": self.background,
            "max_in_flight": int(os.environ.get("MEMBRANE_CAPACITY__MAX_IN_FLIGHT", default)),
            "rss_mb": self.rss_mb(),
        }


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds of process `pid` so far (all its threads); OSError when
    it is gone."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def descendants(root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            ppid = re.search(r"^PPid:\s+(\d+)", status.read_text(), re.M)
        except OSError:
            continue
        if ppid:
            children.setdefault(int(ppid.group(1)), []).append(int(status.parent.name))
    found, todo = {root}, [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def server_env(db_url: str, workers: int, background: str, **extra: str) -> dict[str, str]:
    env = dict(os.environ)  # MEMBRANE_* of the caller (capacity, pools) pass through
    env.update(
        MEMBRANE_DATABASE_URL=db_url,
        MEMBRANE_WORKERS=str(workers),
        MEMBRANE_BACKGROUND=background,
        MEMBRANE_EMBEDDING__PROVIDER="local",
        MEMBRANE_RATE_LIMIT__ENABLED="false",
        MEMBRANE_LOG_LEVEL="warning",
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        **extra,
    )
    env.pop("MEMBRANE_API_KEYS", None)  # open mode: the benches send no key
    env.pop("MEMBRANE_HOST", None)
    return env


@contextmanager
def production_server(
    store: str,
    *,
    workers: int = 1,
    db_url: str | None = None,
    datadir: Path | None = None,
    migrate: bool = True,
    background: str | None = None,
    **extra_env: str,
) -> Iterator[Server]:
    """Migrate the store, start `python -m app.serve` (and `python -m app.worker` when
    background is `worker`, the default when the module exists); stop them at the end."""
    background = background or ("worker" if worker_available() else "in_process")
    with _maybe_store(store, db_url, datadir) as url:
        port = free_port()
        env = server_env(url, workers, background, MEMBRANE_PORT=str(port), **extra_env)
        if migrate:
            subprocess.run(
                [sys.executable, "-m", "app.migrate"], cwd=REPO_ROOT, env=env, check=True
            )
        server = Server(f"http://127.0.0.1:{port}", url, workers, background)
        logs = Path(tempfile.mkdtemp(prefix="membrane-bench-logs-"))
        modules = [("api", "app.serve")]
        if background == "worker":
            modules.append(("worker", "app.worker"))
        try:
            for name, module in modules:
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
            _wait_ready(server, logs)
            yield server
        finally:
            stop(*server.processes)


def stop(*processes: subprocess.Popen[bytes], timeout_s: float = 30) -> None:
    """SIGTERM to every process, then wait for each; kill one that outlives `timeout_s`."""
    for proc in processes:
        proc.terminate()
    for proc in processes:
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def _maybe_store(store: str, db_url: str | None, datadir: Path | None) -> Iterator[str]:
    if db_url is not None:
        yield db_url
        return
    with store_url(store, datadir) as url:
        yield url


def _wait_ready(server: Server, logs: Path) -> None:
    def tails() -> str:
        return str({p.name: p.read_text()[-3000:] for p in logs.glob("*.log")})

    wait_until_answering(f"{server.url}/readyz", server.processes, 180, tails)


def wait_until_answering(
    url: str,
    processes: Sequence[subprocess.Popen[bytes]],
    limit_s: float,
    logs: Callable[[], str],
) -> None:
    """Poll `url` until it answers 200; raise with `logs()` if one of `processes` exits
    first or `limit_s` passes."""
    deadline = time.monotonic() + limit_s
    while True:
        if any(proc.poll() is not None for proc in processes):
            raise RuntimeError(f"a server process exited: {logs()}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"no answer from {url} after {limit_s:.0f} s: {logs()}")
        time.sleep(0.5)
