"""The collector and a long-running process's startup heap.

A service's heap after startup (FastAPI, pydantic and SQLAlchemy internals, ~200,000
objects) lives as long as the process, yet CPython's full collection walks all of it:
about 130 ms, once every few hundred requests, stalling every request the event loop or
the GIL holds at that moment (the "one slow batch in twelve" of the latency bench).
Freezing it (gc.freeze) moves those objects to a generation that is never scanned; what
requests allocate is still collected as before."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def startup_heap_frozen() -> Iterator[None]:
    """Freeze what exists now for the duration of the block; on leaving, hand it back to
    the collector (an application started and stopped inside a larger process, as the
    tests do, leaves no frozen garbage behind)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
