"""PostgreSQL: the stored vectors of small scopes' records, kept in the process by record
and version, so that a retrieve whose scopes hold no more records than its candidate pool
scores all of them without reading their vectors again (`cached_vectors`).

Those retrieves read every admitted record's header anyway (`header_repository.
every_admitted`); with it they read each record's version (`VECTOR_VERSION`: the
transaction that last wrote its records row), and only the records whose version the
cache does not hold have their vectors read, in one statement. Reading them all on every
retrieve had cost a scope of 200 records ~2.5 ms: a primary-key probe and `vector_send`
per row on the server, 300 kB through the socket, and a decode per row here.

A version names one vector because every write of a vector also updates its record's
row in the same transaction (`embedding.queue_repository.store_vectors`), and a vector is
removed only with its record or, with all others, by `drop_all_vectors`, which writes
the rows of every record that had one (those without text too). Any other update of a
record (salience, status) changes its version too: the next retrieve reads that vector
again, once. A version is a transaction id, which another database (a restore, a new
cluster at the same URL) numbers anew: the cache is kept per database identity
(app/engine_cache.py), and a 32-bit id coming round again to a cached record's own
version with another vector is the one case left."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from sqlalchemy.orm import Session

from app.engine_cache import PerEngine
from app.models.binary_vector import VectorBinary
from app.retrieve.pg_vector_repository import versioned_vectors

Vector = np.ndarray[Any, np.dtype[np.float32]]


class VectorCache:
    """record id → (version, vector or None: the record had none at that version); when
    full, the older half is dropped (entries in the order they were stored)."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[int, Vector | None]] = {}
        self._lock = threading.Lock()

    def vectors(
        self, session: Session, versions: Mapping[str, int], capacity: int
    ) -> dict[str, Vector]:
        """The vectors of the records of `versions` (record id → version) that have one:
        from the cache where it holds that version, the others read (and kept)."""
        found: dict[str, Vector] = {}
        missing: list[str] = []
        for rid, version in versions.items():
            entry = self._entries.get(rid)
            if entry is None or entry[0] != version:
                missing.append(rid)
            elif entry[1] is not None:
                found[rid] = entry[1]
        if missing:
            # Each row's version comes from the same snapshot as its vector: a record
            # re-embedded since the headers were read is kept under its new version.
            read = [(rid, v, _decoded(raw)) for rid, v, raw in versioned_vectors(session, missing)]
            self._keep(read, capacity)
            found.update((rid, vec) for rid, _, vec in read if vec is not None)
        return found

    def _keep(self, read: Iterable[tuple[str, int, Vector | None]], capacity: int) -> None:
        with self._lock:
            for rid, version, vec in read:
                self._entries.pop(rid, None)  # re-stored: among the newest again
                if len(self._entries) >= capacity:
                    if capacity <= 0:
                        return
                    for old in list(self._entries)[: max(1, len(self._entries) // 2)]:
                        del self._entries[old]
                self._entries[rid] = (version, vec)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


_CACHES: PerEngine[VectorCache] = PerEngine(VectorCache)


def cached_vectors(
    session: Session, versions: Mapping[str, int], capacity: int
) -> dict[str, Vector]:
    """`VectorCache.vectors` of the session's database."""
    return cache_of(session).vectors(session, versions, capacity)


def cache_of(session: Session) -> VectorCache:
    return _CACHES.of(session)


def _decoded(raw: bytes | None) -> Vector | None:
    """A stored vector read as `vector_send` writes it, as a float32 array."""
    return None if raw is None else VectorBinary.decoded(raw)
