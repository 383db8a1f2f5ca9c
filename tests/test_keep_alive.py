"""Idle keep-alive connections of `python -m app.serve` stay open MEMBRANE_KEEP_ALIVE_S
(default 75 s, longer than a gateway's usual 60 s idle timeout), not uvicorn's 5 s: a
server that closes an idle connection first races the gateway reusing it (the client
sees a 502), and a client told to come back after a few seconds (Retry-After) would find
its connection gone."""

from __future__ import annotations

import socket
import time
from pathlib import Path

from tests.fault_support import START_TIMEOUT_S
from tests.test_migration_lock import serve_sqlite_copy

UVICORN_DEFAULT_KEEP_ALIVE_S = 5


def _get_healthz(sock: socket.socket, port: int) -> bytes:
    """One GET /healthz on an open connection; the whole raw answer (b"" if the server
    had closed the connection)."""
    sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = sock.recv(4096)
        if not chunk:
            return answer
        answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1])
        for line in head.lower().split(b"\r\n")
        if line.startswith(b"content-length")
    )
    while len(body) < length:
        body += sock.recv(4096)
    return head + b"\r\n\r\n" + body


def test_an_idle_connection_outlives_uvicorns_default(
    sqlite_template: Path, tmp_path: Path
) -> None:
    svc, _ = serve_sqlite_copy(sqlite_template, tmp_path)
    try:
        with socket.create_connection(("127.0.0.1", svc.port), timeout=START_TIMEOUT_S) as sock:
            assert _get_healthz(sock, svc.port).startswith(b"HTTP/1.1 200 ")
            time.sleep(UVICORN_DEFAULT_KEEP_ALIVE_S + 1.5)
            assert _get_healthz(sock, svc.port).startswith(b"HTTP/1.1 200 ")
    finally:
        svc.close()


def test_the_server_closes_a_connection_idle_longer_than_the_setting(
    sqlite_template: Path, tmp_path: Path
) -> None:
    svc, _ = serve_sqlite_copy(sqlite_template, tmp_path, MEMBRANE_KEEP_ALIVE_S="1")
    try:
        with socket.create_connection(("127.0.0.1", svc.port), timeout=START_TIMEOUT_S) as sock:
            assert _get_healthz(sock, svc.port).startswith(b"HTTP/1.1 200 ")
            time.sleep(2.5)
            # Closed by now (uvicorn's own 5 s would still hold it: recv would time out).
            sock.settimeout(1.0)
            assert sock.recv(1) == b""
    finally:
        svc.close()
