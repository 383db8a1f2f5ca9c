"""A request's database work on the request threads (app/request_work.py): it sees the
request's context, and a cancelled request ends only once its work on a thread has."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any, cast

import anyio

from app import deadline
from app.request_work import on_request_thread
from app.state import AppState


def threads(n: int) -> AppState:
    return cast(AppState, SimpleNamespace(request_threads=ThreadPoolExecutor(n)))


def test_the_work_runs_in_the_requests_context() -> None:
    async def request() -> bool:
        with deadline.serving_request():
            return await on_request_thread(threads(1), deadline.in_request)

    assert asyncio.run(request()) is True
    assert deadline.in_request() is False


def test_a_cancelled_request_ends_only_once_its_running_work_has() -> None:
    """An anyio cancel scope (a test client's, a task group's) cancels every await in it
    again: the wait for the work must be shielded, or the request ends while its thread
    still holds a connection."""
    done = threading.Event()

    def work() -> None:
        time.sleep(0.3)
        done.set()

    async def request() -> float:
        started = time.monotonic()
        with anyio.move_on_after(0.05):
            await on_request_thread(threads(1), work)
        return time.monotonic() - started

    waited = asyncio.run(request())
    assert done.is_set()
    assert waited >= 0.25


def test_work_not_started_when_its_request_is_cancelled_never_runs() -> None:
    ran: list[str] = []
    gate = threading.Event()
    state = threads(1)

    async def request() -> None:
        busy = state.request_threads.submit(gate.wait, 5)  # the only thread, held
        with anyio.move_on_after(0.05):
            await on_request_thread(state, lambda: ran.append("queued work"))
        gate.set()
        busy.result()

    asyncio.run(request())
    state.request_threads.shutdown(wait=True)
    assert ran == []


def test_an_error_after_the_cancel_is_read_not_left_to_the_loop(caplog: Any) -> None:
    def failing() -> None:
        time.sleep(0.2)
        raise RuntimeError("the work failed after its request was cancelled")

    async def request() -> None:
        with anyio.move_on_after(0.05):
            await on_request_thread(threads(1), failing)

    asyncio.run(request())
    assert "never retrieved" not in caplog.text
