"""Connection rebalancing (app/middleware.py, CapacityMiddleware `rebalance`): an answer to
a request that found the process saturated closes its keep-alive connection, so that the
client's next connection can land on another process; an answer given without waiting
keeps it open. Over a real uvicorn server, since the connection is the server's."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.types import ASGIApp

from app.middleware import CapacityMiddleware
from tests.live_support import free_port


class Gate:
    """Holds /v1/slow requests until opened (from the test's thread)."""

    def __init__(self) -> None:
        self.opened = threading.Event()

    async def slow(self, _request: Request) -> PlainTextResponse:
        while not self.opened.is_set():
            await asyncio.sleep(0.01)
        return PlainTextResponse("slow done")


async def fast(_request: Request) -> PlainTextResponse:
    return PlainTextResponse("fast done")


def _app(gate: Gate, *, rebalance: bool) -> ASGIApp:
    inner = Starlette(routes=[Route("/v1/slow", gate.slow), Route("/v1/fast", fast)])
    return CapacityMiddleware(
        inner,
        max_in_flight=1,
        max_queued=1,
        queue_timeout_s=10.0,
        retry_after_s=1,
        max_retry_after_s=10,
        rebalance=rebalance,
    )


@contextmanager
def serving(app: ASGIApp) -> Iterator[int]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


def _send(sock: socket.socket, path: str) -> None:
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: t\r\n\r\n".encode())


def _answer(sock: socket.socket) -> tuple[str, bool]:
    """The response head (lower-cased) and whether the server closed the connection after
    the body (read to the end of the response, then probed)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        assert chunk, f"connection closed before an answer: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length")
    )
    while len(body) < length:
        body += sock.recv(4096)
    sock.settimeout(0.5)
    try:
        closed = sock.recv(1) == b""
    except TimeoutError:
        closed = False
    sock.settimeout(10)
    return head.decode().lower(), closed


def _queued_behind_a_slow_request(rebalance: bool) -> tuple[str, bool, str, bool]:
    gate = Gate()
    with (
        serving(_app(gate, rebalance=rebalance)) as port,
        socket.create_connection(("127.0.0.1", port), timeout=10) as first,
        socket.create_connection(("127.0.0.1", port), timeout=10) as second,
    ):
        _send(first, "/v1/slow")
        time.sleep(0.2)  # the first holds the only slot
        _send(second, "/v1/fast")  # finds the process saturated: queues
        time.sleep(0.2)
        gate.opened.set()
        first_head, first_closed = _answer(first)
        second_head, second_closed = _answer(second)
        if not first_closed:  # the unqueued connection still serves
            _send(first, "/v1/fast")
            assert "200 ok" in _answer(first)[0]
    return first_head, first_closed, second_head, second_closed


def test_a_request_that_queued_closes_its_connection_the_others_keep_theirs() -> None:
    first_head, first_closed, second_head, second_closed = _queued_behind_a_slow_request(True)
    assert "200 ok" in first_head and "connection: close" not in first_head
    assert not first_closed
    assert "200 ok" in second_head and "connection: close" in second_head
    assert second_closed


def test_without_rebalancing_every_connection_is_kept() -> None:
    _, first_closed, second_head, second_closed = _queued_behind_a_slow_request(False)
    assert "200 ok" in second_head and "connection: close" not in second_head
    assert not first_closed and not second_closed


def test_a_shed_request_closes_its_connection() -> None:
    gate = Gate()
    with serving(_app(gate, rebalance=True)) as port:
        socks = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(3)]
        try:
            _send(socks[0], "/v1/slow")
            time.sleep(0.2)
            _send(socks[1], "/v1/slow")  # queued: the queue (1) is now full
            time.sleep(0.2)
            _send(socks[2], "/v1/fast")  # shed at once
            head, closed = _answer(socks[2])
            gate.opened.set()
            for sock in socks[:2]:
                _answer(sock)
        finally:
            for sock in socks:
                sock.close()
    assert head.startswith("http/1.1 503") and "retry-after: " in head
    assert "connection: close" in head and closed
