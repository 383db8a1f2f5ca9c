"""The app under a real uvicorn server on loopback, for tests that need real HTTP (load
shedding, concurrency, fuzzing from another process)."""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn

from app.config import Settings
from app.main import create_app
from app.serve import forwarded_allow_ips

# Loggers whose records a server log file takes (uvicorn's own and the app's).
SERVER_LOGGERS = ("uvicorn", "uvicorn.error", "membrane")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def log_to_file(path: Path) -> Iterator[None]:
    """Send the server's log records (warnings and up, tracebacks included) to `path`
    only, not to the console or pytest's log capture, for as long as the block runs."""
    handler = logging.FileHandler(path, mode="w", encoding="utf-8")
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    saved = []
    for name in SERVER_LOGGERS:
        logger = logging.getLogger(name)
        saved.append((logger, logger.handlers[:], logger.propagate))
        logger.handlers = [handler]
        logger.propagate = False
    try:
        yield
    finally:
        for logger, handlers, propagate in saved:
            logger.handlers = handlers
            logger.propagate = propagate
        handler.close()


@contextmanager
def live_server(settings: Settings, log_file: Path | None = None) -> Iterator[str]:
    """The app under a real uvicorn server on loopback, in a thread; yields its base URL.
    With `log_file`, the server's warnings and tracebacks go to that file instead of stderr."""
    port = free_port()
    config = uvicorn.Config(
        create_app(settings),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        log_config=None if log_file else uvicorn.config.LOGGING_CONFIG,
        proxy_headers=bool(settings.trusted_proxies),
        forwarded_allow_ips=forwarded_allow_ips(settings),
    )
    server = uvicorn.Server(config)
    with log_to_file(log_file) if log_file else _nothing():
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started:
            assert thread.is_alive(), "server thread died before it started"
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.02)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.should_exit = True
            thread.join(30)


@contextmanager
def _nothing() -> Iterator[None]:
    yield
