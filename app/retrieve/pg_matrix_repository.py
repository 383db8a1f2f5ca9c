"""PostgreSQL + pgvector: every stored vector of a store of at most `vector_matrix_size`
records, kept in the API process as one matrix (vector_cache's), so that an exact search
of the whole store, or of scopes larger than the candidate pool, is a matrix product here
and a look-up of the best rows by key there, instead of a scan that computes every
distance on the server (`view`).

The matrix is brought up to date by each search, in one statement that reads only the
vectors written since it last looked. Migration 0018 has every write of a vector note its
transaction (`written`, xid8, set by a trigger); the matrix keeps the snapshot it was last
brought up to (`pg_current_snapshot()`, read in the same statement as the vectors). The
vectors a newer snapshot sees and that one did not are exactly those whose transaction
that one did not see as committed: `written` at or above its xmin, and not visible in it
(`pg_visible_in_snapshot`), through the index on `written`. Commit order does not matter:
a transaction that took its id early and committed late is invisible to every snapshot
taken before its commit, so the first look after the commit reads its vectors. A vector
rewritten in place (a record embedded again) is read again and overwrites its row.

Vectors removed with their records stay in the matrix until it is loaded again: the
search checks its best rows against the filters, which a deleted record fails, and the
matrix is loaded again once the table's deleted-rows counter (`pg_stat`, up to a second
late) has grown by a tenth of the matrix. Dropping every vector (a new model pinned,
`embedding.service.repin`) rewrites the pinned model's `system_meta` row, whose version
the statement reads: the matrix starts over at once. A written transaction id beyond the
current snapshot's (a store restored from another cluster) is not looked for after the
load that read it."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from sqlalchemy import TextClause, text
from sqlalchemy.orm import Session

from app.db import binary_rows, column_rows
from app.engine_cache import PerEngine
from app.models.binary_vector import VectorBinary
from app.retrieve.vector_cache import Matrix, MatrixView

MODEL_KEY = "embedding.model"  # embedding.service.MODEL_KEY: a repin rewrites its row
# Deleted vector rows (pg_stat) past which the matrix is loaded again: a tenth of it, and
# at least this many (a store's first hundred deletions cost nothing to keep).
RELOAD_AFTER_DELETED = 100


@dataclass
class _Store:
    """One database's matrix and what it was brought up to."""

    matrix: Matrix = field(default_factory=Matrix)
    since: str | None = None  # the snapshot (pg_snapshot as text) it holds every vector of
    generation: str | None = None  # the pinned model's system_meta row version then
    deleted: int = 0  # record_embeddings' deleted-rows counter at the last full load
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reset(self) -> None:
        self.matrix.reset()
        self.since, self.generation, self.deleted = None, None, 0


_STORES: PerEngine[_Store] = PerEngine(_Store)


def view(session: Session) -> MatrixView:
    """The session's database's matrix, brought up to date (one statement; the whole
    store's vectors on the first call, after a repin, and once many were deleted)."""
    store = _STORES.of(session)
    with store.lock:
        header, vectors = _read(session, store.since)
        if store.since is not None and _stale(store, header):
            store.reset()
            header, vectors = _read(session, None)
        if store.since is None:
            store.generation, store.deleted = header[4], int(header[5] or 0)
        for rid, raw, scope in vectors:
            store.matrix.put(rid, VectorBinary.decoded(raw), scope)
        store.since = header[3]
        return store.matrix.snapshot()


def forget(session: Session) -> None:
    """Drop the database's matrix (its store grew past the size kept)."""
    store = _STORES.of(session)
    with store.lock:
        if store.since is not None:
            store.reset()


def _stale(store: _Store, header: Any) -> bool:
    """Whether the matrix must be loaded again: a model pinned since, or many deleted."""
    if header[4] != store.generation:
        return True
    deleted = int(header[5] or 0)
    if deleted < store.deleted:  # the statistics were reset: count from here
        store.deleted = deleted
    grown = deleted - store.deleted
    return grown > max(RELOAD_AFTER_DELETED, len(store.matrix.ids) // 10)


def _read(session: Session, since: str | None) -> tuple[Any, list[Any]]:
    """The header row (its fourth to sixth values: the snapshot, the pinned model's row
    version, the deleted-rows counter) and the (id, vector in binary, scope) rows
    written since `since` (every one when None)."""
    rows = column_rows(session, _statement(since is not None), {"since": since}).all()
    header = next(row for row in rows if row[0] is None)
    return header, [row[:3] for row in rows if row[0] is not None]


@cache
def _statement(incremental: bool) -> TextClause:
    changed = (
        " AND written >= pg_snapshot_xmin(CAST(:since AS pg_snapshot))"
        " AND written < pg_snapshot_xmax(pg_current_snapshot())"
        " AND NOT pg_visible_in_snapshot(written, CAST(:since AS pg_snapshot))"
        if incremental
        else " AND CAST(:since AS text) IS NULL"
    )
    stmt = text(
        "SELECT NULL::text, NULL::bytea, NULL::text, pg_current_snapshot()::text,"
        f" (SELECT xmin::text FROM system_meta WHERE key = '{MODEL_KEY}'),"
        " pg_stat_get_tuples_deleted('record_embeddings'::regclass)"
        " UNION ALL"
        " SELECT record_id, vector_send(embedding), scope, NULL, NULL, NULL"
        f" FROM record_embeddings WHERE embedding IS NOT NULL{changed}"
    )
    return binary_rows(stmt)
