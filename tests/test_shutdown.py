"""SIGTERM drains `python -m app.serve` (the server is the process itself, as in the image):
the request in flight finishes with its normal answer, new connections are refused, and
the process exits 0 within the grace period (MEMBRANE_SHUTDOWN_GRACE_S); a request that
outlasts the grace period does not hold the process up.

The request is held in flight without any test-only code in the service: the client sends
its head with `Expect: 100-continue` and keeps the body back. The server answers
`100 Continue` only when the endpoint starts reading the body, so from then on the request
is inside the app, waiting, for as long as the test likes."""

from __future__ import annotations

import json
import signal
import socket
import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any

from tests.conftest import KEYS
from tests.fault_support import START_TIMEOUT_S
from tests.test_migration_lock import serve_sqlite_copy

DEFAULT_GRACE_S = 20  # MEMBRANE_SHUTDOWN_GRACE_S's default
# After the grace period the process still shuts the app down and leaves the interpreter.
TEARDOWN_S = 15
CAPTURE = {
    "source": "agent-1",
    "source_kind": "observation",
    "scope": "team-a",
    "content": {"subject": "Alice", "predicate": "works_at", "object": "Acme"},
}


def _open_request(port: int, body: bytes) -> socket.socket:
    """A capture whose head is sent and whose body is not: returns once the endpoint is
    reading the body (`100 Continue` came)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=START_TIMEOUT_S)
    head = (
        "POST /v1/capture HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{port}\r\n"
        f"Authorization: Bearer {KEYS['writer'][0]}\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Expect: 100-continue\r\n\r\n"
    )
    sock.sendall(head.encode())
    interim = b""
    while b"\r\n\r\n" not in interim:
        chunk = sock.recv(4096)
        assert chunk, f"closed before 100 Continue: {interim!r}"
        interim += chunk
    assert interim.startswith(b"HTTP/1.1 100 "), interim
    return sock


def _read_to_close(sock: socket.socket) -> bytes:
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except ConnectionResetError:
        pass
    return data


def _response(raw: bytes) -> tuple[int, dict[str, str], Any]:
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in header_lines)
    return int(status_line.split()[1]), {k.lower(): v for k, v in headers.items()}, json.loads(body)


def _refuses_connections(port: int, deadline: float) -> bool:
    """Whether connecting to `port` is refused before `deadline`."""
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except ConnectionRefusedError:
            return True
        time.sleep(0.05)
    return False


def test_sigterm_lets_the_request_in_flight_finish_and_exits_0(
    sqlite_template: Path, tmp_path: Path
) -> None:
    svc, database = serve_sqlite_copy(sqlite_template, tmp_path)
    body = json.dumps(CAPTURE).encode()
    try:
        with _open_request(svc.port, body) as sock:
            svc.proc.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + DEFAULT_GRACE_S
            assert _refuses_connections(svc.port, deadline), "still accepting connections"
            assert svc.proc.poll() is None, "exited with a request in flight"
            sock.sendall(body)  # the request in flight goes on
            raw = _read_to_close(sock)  # no keep-alive while draining: the server closes
        code = svc.proc.wait(max(0.0, deadline - time.monotonic()))
    finally:
        svc.close()
    status, headers, answer = _response(raw)
    assert status == 201, raw
    assert headers["connection"] == "close"
    assert code == 0, svc.log_tail()
    record_id = answer["primary_record"]["id"]
    with closing(sqlite3.connect(database)) as conn:  # and what it answered is stored
        stored = conn.execute("SELECT count(*) FROM records WHERE id = ?", (record_id,))
        assert stored.fetchone() == (1,)


def test_sigterm_does_not_wait_beyond_the_grace_period(
    sqlite_template: Path, tmp_path: Path
) -> None:
    grace_s = 2
    svc, _ = serve_sqlite_copy(sqlite_template, tmp_path, MEMBRANE_SHUTDOWN_GRACE_S=str(grace_s))
    body = json.dumps(CAPTURE).encode()
    try:
        with _open_request(svc.port, body):  # whose body never comes
            svc.proc.send_signal(signal.SIGTERM)
            code = svc.proc.wait(grace_s + TEARDOWN_S)
    finally:
        svc.close()
    assert code == 0
    assert "timeout graceful shutdown exceeded" in svc.log()
