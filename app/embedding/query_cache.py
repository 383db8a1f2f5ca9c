"""Recent query vectors, per process: agents repeat and rephrase the same task
descriptors, and embedding one query costs ~20 ms of CPU with the local model. Vectors
are kept as 4-byte floats (1.5 KB for 384 dimensions; a list of Python floats took
12 KB, which made a full cache ~50 MB of a process's memory)."""

from __future__ import annotations

import threading
from array import array
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from app.embedding.providers import Embedder

MAX_ENTRIES = 4096
# Query embedding runs beside the request's lexical SQL (both release the GIL: torch in its
# kernels, psycopg while it waits on the database), which takes it off the critical path.
_early = ThreadPoolExecutor(max_workers=4, thread_name_prefix="query-embedding")

_cache: OrderedDict[tuple[str, str], array[float]] = OrderedDict()
_pending: dict[tuple[str, str], Future[Sequence[float]]] = {}
_lock = threading.Lock()


def query_vector(embedder: Embedder, query: str) -> Sequence[float]:
    """The embedding of `query`, from the cache when it was asked recently (LRU)."""
    key = (embedder.name, query)
    with _lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    vector = array("f", embedder.embed([query])[0])
    with _lock:
        _cache[key] = vector
        while len(_cache) > MAX_ENTRIES:
            _cache.popitem(last=False)
    return vector


def query_vector_soon(embedder: Embedder, query: str) -> Future[Sequence[float]]:
    """`query_vector` started on a helper thread; the caller collects it with result().
    A query being embedded already is not embedded twice: its future is shared (the
    retrieve router starts the embedding before the request's database work, and the
    service asks again; concurrent requests for one query share it too)."""
    key = (embedder.name, query)
    with _lock:
        pending = _pending.get(key)
        if pending is not None:
            return pending
        future = _early.submit(_embedded_once, embedder, query, key)
        _pending[key] = future
    return future


def _embedded_once(embedder: Embedder, query: str, key: tuple[str, str]) -> Sequence[float]:
    try:
        return query_vector(embedder, query)
    finally:
        with _lock:  # from now on the LRU answers (or, after an error, a new attempt)
            _pending.pop(key, None)
