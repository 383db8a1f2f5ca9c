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
the statement reads: the matrix starts over at once. So it does when a snapshot's xmax
is below the matrix's (a point-in-time restore, or a failover that lost commits, at the
same database identity). A written transaction id beyond the current snapshot's (a store
restored from another cluster) is read at the load and once more when the ids pass it.

A hot standby keeps no matrix: its snapshots do not list the primary's transactions in
progress (`pg_current_snapshot()` copies none there), so a vector committed late could
be missed; its searches stay on the server (`usable`). A vector rewritten in place while
another thread scores the same rows may be read half old, half new by that one search:
both halves are the record's."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    LargeBinary,
    Text,
    and_,
    bindparam,
    cast,
    exists,
    func,
    literal_column,
    select,
    union_all,
)
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.types import UserDefinedType

from app.db import binary_rows, column_rows
from app.engine_cache import PerEngine
from app.models import EMBEDDING_MODEL_KEY, SystemMetaRow, pg_embeddings
from app.models.binary_vector import VectorBinary
from app.retrieve.vector_cache import Matrix, MatrixView

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
    standby: bool = False  # the database is a hot standby: no matrix (`usable`)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reset(self) -> None:
        self.matrix.reset()
        self.since, self.generation, self.deleted = None, None, 0


_STORES: PerEngine[_Store] = PerEngine(_Store)


class _Snapshot(UserDefinedType[str]):
    """PostgreSQL's pg_snapshot, written and read as its text form."""

    cache_ok = True

    def get_col_spec(self, **kw: Any) -> str:
        return "pg_snapshot"


_NOW = func.pg_current_snapshot(type_=_Snapshot())
_SINCE = cast(bindparam("matrix_since", type_=Text), _Snapshot())
_WRITTEN = pg_embeddings.c.written
# The vectors written since the `matrix_since` snapshot that the statement's own sees (a
# transaction id past its xmax: a store restored from another cluster, read at its load).
_WRITTEN_SINCE = and_(
    func.pg_snapshot_xmin(_SINCE) <= _WRITTEN,
    func.pg_snapshot_xmax(_NOW) > _WRITTEN,
    ~func.pg_visible_in_snapshot(_WRITTEN, _SINCE, type_=Boolean),
)
_GENERATION = (
    select(cast(literal_column("xmin"), Text))
    .select_from(SystemMetaRow)
    .where(SystemMetaRow.key == EMBEDDING_MODEL_KEY)  # a repin rewrites its row
    .scalar_subquery()
)
_DELETED = func.pg_stat_get_tuples_deleted(
    literal_column("'record_embeddings'::regclass"), type_=BigInteger
)
# What a statement that runs before the search reads for it (`view`'s `signature`): the
# statement's snapshot, whether any vector was written since `matrix_since`, the pinned
# model's row version, the deleted-rows counter. Uncorrelated: computed once a statement.
SIGNATURE: tuple[ColumnElement[Any], ...] = (
    cast(_NOW, Text),
    exists().where(_WRITTEN_SINCE),
    _GENERATION,
    _DELETED,
)


def since_of(session: Session) -> str | None:
    """The snapshot the database's matrix holds every vector of (None: not loaded): the
    `matrix_since` parameter of a statement that reads SIGNATURE."""
    return _STORES.of(session).since


def view(
    session: Session, signature: Sequence[Any] | None = None, asked: str | None = None
) -> MatrixView | None:
    """The session's database's matrix, brought up to date: by `signature` (SIGNATURE's
    values, read by an earlier statement with `matrix_since` `asked`) when that saw no
    vector written since and the matrix is still at `asked`; else by one statement (the
    whole store's vectors on the first call, after a repin, once many were deleted, and
    when the database's transaction ids went back). None on a hot standby (`usable`)."""
    store = _STORES.of(session)
    with store.lock:
        if store.standby:
            return None
        if signature is not None and asked is not None and store.since == asked:
            snapshot, changed, generation, deleted = signature
            if _stale(store, generation, deleted) or _went_back(asked, snapshot):
                store.reset()
            elif not changed:
                store.since = snapshot
                return store.matrix.snapshot()
        (snapshot, generation, deleted, standby), vectors = _read(session, store.since)
        if store.since is not None and (
            _stale(store, generation, deleted) or _went_back(store.since, snapshot)
        ):
            store.reset()
            (snapshot, generation, deleted, standby), vectors = _read(session, None)
        if standby:
            store.reset()
            store.standby = True
            return None
        if store.since is None:
            store.generation, store.deleted = generation, int(deleted or 0)
        for rid, raw, scope in vectors:
            store.matrix.put(rid, VectorBinary.decoded(raw), scope)
        store.since = snapshot
        return store.matrix.snapshot()


def usable(session: Session) -> bool:
    """False once the database was found to be a hot standby: a standby's snapshots do not
    list the primary's running transactions (`pg_current_snapshot()` copies none there),
    so a vector committed late could be missed; its searches stay on the server."""
    return not _STORES.of(session).standby


def _went_back(since: str, snapshot: str) -> bool:
    """Whether the database's transaction ids went back (a point-in-time restore, or a
    failover to a standby that had not received the last commits, at the same identity):
    a snapshot's xmax never decreases otherwise."""
    return int(snapshot.split(":")[1]) < int(since.split(":")[1])


def forget(session: Session) -> None:
    """Drop the database's matrix (its store grew past the size kept)."""
    store = _STORES.of(session)
    with store.lock:
        if store.since is not None:
            store.reset()


def _stale(store: _Store, generation: str | None, deleted: int | None) -> bool:
    """Whether the matrix must be loaded again: a model pinned since, or many deleted."""
    if generation != store.generation:
        return True
    deleted = int(deleted or 0)
    if deleted < store.deleted:  # the statistics were reset: count from here
        store.deleted = deleted
    grown = deleted - store.deleted
    return grown > max(RELOAD_AFTER_DELETED, len(store.matrix.ids) // 10)


def _read(session: Session, since: str | None) -> tuple[tuple[Any, ...], list[Any]]:
    """(the snapshot, the pinned model's row version, the deleted-rows counter, whether
    the database is a hot standby) and the (id, vector in binary, scope) rows written
    since `since` (every one when None)."""
    rows = column_rows(session, _statement(since is not None), {"matrix_since": since}).all()
    header = next(row for row in rows if row[0] is None)
    return tuple(header[3:]), [row[:3] for row in rows if row[0] is not None]


@cache
def _statement(incremental: bool) -> Any:
    nothing: list[ColumnElement[Any]] = [literal_column("NULL")] * 3
    standby = func.pg_is_in_recovery(type_=Boolean)
    header = select(*nothing, SIGNATURE[0], SIGNATURE[2], SIGNATURE[3], standby)
    vectors = select(
        pg_embeddings.c.record_id,
        func.vector_send(pg_embeddings.c.embedding, type_=LargeBinary),
        pg_embeddings.c.scope,
        *nothing,
        literal_column("NULL"),
    ).where(pg_embeddings.c.embedding.is_not(None), *([_WRITTEN_SINCE] if incremental else []))
    return binary_rows(union_all(header, vectors))
