"""A request's database work as one trip to the thread pool.

FastAPI runs a plain `def` endpoint, each plain `def` or generator dependency (entered
and closed apart) and a `def` endpoint's response validation on the thread pool: a
session dependency plus a `def` endpoint made four trips per request, each ~0.12 ms of
CPU and a wait for a thread and the interpreter lock (a GET of one record cost 2 ms of
CPU in all). An `async def` endpoint that hands its whole unit of work to `reading` or
`writing` makes one trip: the transaction opens, the work runs and the transaction
commits (or rolls back) on one thread, and the answer is validated on the event loop.

The trip is a plain executor's (the app state's `request_threads`), not anyio's
`run_in_threadpool`: its capacity limiter, cancel scope and backend look-ups cost a GET
~125k instructions (3.6 %) for nothing here: CapacityMiddleware bounds the requests
admitted, and the executor has a thread for each."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from typing import TypeVar

import anyio
from sqlalchemy.orm import Session
from starlette.requests import Request

from app.state import AppState

T = TypeVar("T")


async def reading(state: AppState, position: int | None, work: Callable[[Session], T]) -> T:
    """`work` in a read-only transaction (on a replica that has replayed past `position`,
    the request's consistency token, when there is one)."""

    def run() -> T:
        with state.db.read_transaction(position) as session:
            return work(session)

    return await on_request_thread(state, run)


async def writing(state: AppState, request: Request, work: Callable[[Session], T]) -> T:
    """`work` in a transaction that may write, committed before the answer is sent; with
    read replicas the answer carries the commit's consistency token (app/replicas.py)."""

    def run() -> T:
        with state.db.transaction() as session:
            result = work(session)
        _remember_consistency_token(state, request)
        return result

    return await on_request_thread(state, run)


async def on_request_thread(state: AppState, call: Callable[[], T]) -> T:
    """`call` on one of the request threads, in a copy of this context (the request's
    deadline and log id go with it). A cancelled request still ends only once its work
    has, as with anyio: its transaction committed or rolled back and its connection
    returned before the capacity it held is given back (work not started yet is not
    run at all)."""
    future = state.request_threads.submit(contextvars.copy_context().run, call)
    try:
        return await asyncio.wrap_future(future)
    except asyncio.CancelledError:
        if not future.cancelled():
            # Shielded: an anyio cancel scope around the request (a test client's, a
            # task group's) cancels every await in it again until it exits.
            waiter = asyncio.wrap_future(future)
            with anyio.CancelScope(shield=True):
                await asyncio.wait([waiter])
            if not waiter.cancelled():
                waiter.exception()  # read: asyncio would log it as never retrieved
        raise


def _remember_consistency_token(state: AppState, request: Request) -> None:
    """After a write's commit: the token RequestContextMiddleware puts on the answer."""
    if state.db.router is not None:
        request.state.consistency_token = state.db.consistency_token()
