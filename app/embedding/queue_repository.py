"""All SQL about vectors: the embedding queue, stored vectors, nearest-neighbour search
and the pinned model (system_meta).

SQLite keeps float32 bytes in record_embeddings.vector and searches them exactly with
numpy over a per-process matrix cache (refreshed incrementally, rebuilt when rows were
deleted). PostgreSQL + pgvector keeps them in the `embedding vector(d)` column and uses
the HNSW cosine index, falling back to an exact scan when filters leave too few hits.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from pgvector.sqlalchemy import Vector
from sqlalchemy import (
    ColumnElement,
    Engine,
    String,
    column,
    delete,
    exists,
    func,
    insert,
    select,
    table,
    text,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.db import Tier
from app.models import EmbeddingRow, RecordRow, SystemMetaRow

# The pgvector column is created by the migration, not declared on the ORM model.
_pg_embeddings = table(
    "record_embeddings",
    column("record_id", String),
    column("model", String),
    column("embedding", Vector()),
    column("vector"),
)
MAX_EF_SEARCH = 1000  # pgvector's upper bound for hnsw.ef_search


# -- pinned model ------------------------------------------------------------------------


def get_meta(session: Session, keys: Sequence[str]) -> dict[str, str]:
    rows = session.execute(
        select(SystemMetaRow.key, SystemMetaRow.value).where(SystemMetaRow.key.in_(list(keys)))
    )
    return {k: v for k, v in rows}


def put_meta_if_absent(session: Session, values: dict[str, str]) -> None:
    """Insert keys that are not there yet; concurrent first starts do not collide."""
    rows = [{"key": k, "value": v} for k, v in values.items()]
    dialect = session.get_bind().dialect.name
    stmt = (sqlite.insert if dialect == "sqlite" else postgresql.insert)(SystemMetaRow)
    session.execute(stmt.values(rows).on_conflict_do_nothing(index_elements=["key"]))


def put_meta(session: Session, values: dict[str, str]) -> None:
    session.execute(delete(SystemMetaRow).where(SystemMetaRow.key.in_(list(values))))
    session.execute(
        insert(SystemMetaRow).values([{"key": k, "value": v} for k, v in values.items()])
    )


def pgvector_dimension(session: Session) -> int | None:
    """The dimension of the pgvector column (fixed by the migration), if there is one."""
    typmod = session.scalar(
        text(
            "SELECT atttypmod FROM pg_attribute "
            "WHERE attrelid = 'record_embeddings'::regclass AND attname = 'embedding' "
            "AND NOT attisdropped"
        )
    )
    return int(typmod) if typmod is not None and typmod > 0 else None


# -- queue -------------------------------------------------------------------------------


def count_pending(session: Session) -> int:
    stmt = (
        select(func.count()).select_from(RecordRow).where(RecordRow.embedding_status == "pending")
    )
    return int(session.scalar(stmt) or 0)


def pending_batch(session: Session, limit: int) -> list[tuple[str, str]]:
    """Oldest pending records first: (id, search_text)."""
    stmt = (
        select(RecordRow.id, RecordRow.search_text)
        .where(RecordRow.embedding_status == "pending")
        .order_by(RecordRow.created_at, RecordRow.id)
        .limit(limit)
    )
    return [(rid, txt) for rid, txt in session.execute(stmt)]


def still_pending(session: Session, ids: Sequence[str]) -> set[str]:
    """Ids of the batch that still exist and are still pending, locked until commit."""
    if not ids:
        return set()
    stmt = (
        select(RecordRow.id)
        .where(RecordRow.id.in_(list(ids)), RecordRow.embedding_status == "pending")
        .order_by(RecordRow.id)
        .with_for_update()
    )
    return set(session.scalars(stmt))


def mark(session: Session, ids: Sequence[str], status: str) -> None:
    if ids:
        session.execute(
            update(RecordRow).where(RecordRow.id.in_(list(ids))).values(embedding_status=status)
        )


def requeue_missing(session: Session, model: str) -> int:
    """Queue every record with text but without a vector of `model`."""
    has_vector = exists().where(EmbeddingRow.record_id == RecordRow.id, EmbeddingRow.model == model)
    stmt = (
        update(RecordRow)
        .where(RecordRow.embedding_status != "pending", RecordRow.search_text != "", ~has_vector)
        .values(embedding_status="pending")
    )
    return int(session.execute(stmt).rowcount or 0)  # type: ignore[attr-defined]


def drop_all_vectors(session: Session) -> int:
    """Forget every stored vector and queue every record with text again."""
    session.execute(delete(EmbeddingRow))
    stmt = update(RecordRow).where(RecordRow.search_text != "").values(embedding_status="pending")
    return int(session.execute(stmt).rowcount or 0)  # type: ignore[attr-defined]


# -- vectors -----------------------------------------------------------------------------


def _unit(vec: Sequence[float]) -> np.ndarray:
    arr = np.asarray(vec, dtype=np.float32)
    norm = float(np.linalg.norm(arr))
    return arr / norm if norm > 0 else arr


def store_vectors(
    session: Session, tier: Tier, model: str, items: Sequence[tuple[str, Sequence[float]]]
) -> None:
    """Write unit-length vectors (replacing older ones) for existing records."""
    if not items:
        return
    ids = [rid for rid, _ in items]
    if tier is Tier.pgvector:
        rows = [
            {"record_id": rid, "model": model, "embedding": _unit(v), "vector": None}
            for rid, v in items
        ]
        stmt = postgresql.insert(_pg_embeddings).values(rows)
        stmt = stmt.on_conflict_do_update(
            index_elements=["record_id"],
            set_={"model": stmt.excluded.model, "embedding": stmt.excluded.embedding},
        )
        session.execute(stmt)
        return
    # Delete + insert (not update): new rowids are how the SQLite cache notices changes.
    session.execute(delete(EmbeddingRow).where(EmbeddingRow.record_id.in_(ids)))
    session.execute(
        insert(EmbeddingRow),
        [{"record_id": rid, "model": model, "vector": _unit(v).tobytes()} for rid, v in items],
    )


def nearest(
    session: Session,
    tier: Tier,
    query: Sequence[float],
    clauses: Sequence[ColumnElement[bool]],
    limit: int,
    also: Sequence[str] = (),
) -> dict[str, float]:
    """record id → cosine similarity: the `limit` nearest records passing `clauses`, plus
    the records in `also` that have a vector (so every candidate can be scored)."""
    q = _unit(query)
    if tier is Tier.pgvector:
        found = _pg_nearest(session, q, clauses, limit)
        missing = [rid for rid in also if rid not in found]
        return {**found, **_pg_similarities(session, q, missing)}
    if tier is Tier.sqlite:
        return _sqlite_nearest(session, q, clauses, limit, also)
    return {}  # tier 2: no vectors


# -- pgvector --------------------------------------------------------------------------


def _pg_nearest(
    session: Session, q: np.ndarray, clauses: Sequence[ColumnElement[bool]], limit: int
) -> dict[str, float]:
    distance = _pg_embeddings.c.embedding.cosine_distance(q)
    base = (
        select(_pg_embeddings.c.record_id, distance)
        .join(RecordRow, RecordRow.id == _pg_embeddings.c.record_id)
        .where(_pg_embeddings.c.embedding.is_not(None), *clauses)
        .limit(limit)
    )
    ef = min(MAX_EF_SEARCH, max(40, 2 * limit))
    session.execute(text(f"SET LOCAL hnsw.ef_search = {ef}"))
    rows = list(session.execute(base.order_by(distance)))
    if len(rows) < limit:
        # HNSW returns at most ef_search rows before filters apply; selective filters
        # (one scope, some tags) leave few: rank the filtered rows exactly instead.
        # `+ 0` keeps the planner from using the index for this ordering.
        rows = list(session.execute(base.order_by(distance + 0.0)))
    return {rid: 1.0 - float(d) for rid, d in rows}


def _pg_similarities(session: Session, q: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
    if not ids:
        return {}
    distance = _pg_embeddings.c.embedding.cosine_distance(q)
    stmt = select(_pg_embeddings.c.record_id, distance).where(
        _pg_embeddings.c.record_id.in_(list(ids)), _pg_embeddings.c.embedding.is_not(None)
    )
    return {rid: 1.0 - float(d) for rid, d in session.execute(stmt)}


# -- SQLite: exact scan over a cached matrix -------------------------------------------


@dataclass
class _Matrix:
    """Unit vectors of one database, rows appended in record_embeddings rowid order."""

    count: int = 0  # rows of record_embeddings seen (the change signature with max_rowid)
    max_rowid: int = 0
    ids: list[str] = field(default_factory=list)
    position: dict[str, int] = field(default_factory=dict)
    buffer: np.ndarray | None = None  # capacity doubles; rows [0, len(ids)) are live
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reset(self) -> None:
        self.count, self.max_rowid = 0, 0
        self.ids, self.position, self.buffer = [], {}, None

    def append(self, rid: str, vector: np.ndarray) -> None:
        n = len(self.ids)
        if self.buffer is None:
            self.buffer = np.empty((1024, vector.shape[0]), dtype=np.float32)
        if vector.shape[0] != self.buffer.shape[1]:
            return  # a vector of another dimension cannot be compared: leave it out
        if n == self.buffer.shape[0]:
            grown = np.empty((2 * n, self.buffer.shape[1]), dtype=np.float32)
            grown[:n] = self.buffer
            self.buffer = grown
        self.buffer[n] = vector
        self.position[rid] = n
        self.ids.append(rid)

    def snapshot(self) -> tuple[np.ndarray | None, list[str], dict[str, int]]:
        """A consistent view: later appends write past it or into a new buffer."""
        n = len(self.ids)
        view = self.buffer[:n] if self.buffer is not None else None
        return view, self.ids[:n], self.position


_caches: weakref.WeakKeyDictionary[Engine, _Matrix] = weakref.WeakKeyDictionary()
_caches_lock = threading.Lock()


def _cache_for(session: Session) -> _Matrix:
    engine = session.get_bind().engine
    with _caches_lock:
        cache = _caches.get(engine)
        if cache is None:
            cache = _caches[engine] = _Matrix()
        return cache


def _refresh(session: Session, cache: _Matrix) -> None:
    """Load rows added since the last look; rebuild when any row disappeared."""
    count, max_rowid = session.execute(
        text("SELECT count(*), coalesce(max(rowid), 0) FROM record_embeddings")
    ).one()
    if count == cache.count and max_rowid == cache.max_rowid:
        return
    new = session.execute(
        text(
            "SELECT rowid, record_id, vector FROM record_embeddings "
            "WHERE rowid > :after ORDER BY rowid"
        ),
        {"after": cache.max_rowid},
    ).all()
    if cache.count + len(new) != count:  # rows were deleted or replaced: start over
        cache.reset()
        _refresh(session, cache)
        return
    for rowid, rid, blob in new:
        if blob is not None:
            cache.append(rid, np.frombuffer(blob, dtype=np.float32))
        cache.max_rowid = max(cache.max_rowid, int(rowid))
    cache.count = count


def _passing(
    session: Session, ids: Sequence[str], clauses: Sequence[ColumnElement[bool]]
) -> set[str]:
    """Which of `ids` pass the filters. A literal IN list lets SQLite look the ids up by
    primary key (an IN over json_each made it scan an index on status instead)."""
    if not ids:
        return set()
    stmt = select(RecordRow.id).where(RecordRow.id.in_(list(ids)), *clauses)
    return set(session.scalars(stmt))


def _sqlite_nearest(
    session: Session,
    q: np.ndarray,
    clauses: Sequence[ColumnElement[bool]],
    limit: int,
    also: Sequence[str],
) -> dict[str, float]:
    cache = _cache_for(session)
    with cache.lock:
        _refresh(session, cache)
        matrix, ids, position = cache.snapshot()
    if matrix is None or matrix.shape[1] != q.shape[0]:
        return {}
    n = len(ids)
    # A selective filter (a scope, some tags) names few records: score just those.
    # Otherwise score everything and check the best rows against the filter.
    small = 32 * limit
    allowed = list(session.scalars(select(RecordRow.id).where(*clauses).limit(small + 1)))
    if len(allowed) <= small:
        rows = np.fromiter(
            (p for p in (position.get(rid, n) for rid in allowed) if p < n), dtype=np.int64
        )
        chosen = _best(rows, matrix[rows] @ q, limit)
    else:
        chosen = _best_passing(session, matrix @ q, ids, clauses, limit)
    out = {ids[i]: s for i, s in chosen}
    for rid in also:
        at = position.get(rid, n)  # rows appended after the snapshot are not in it
        if rid not in out and at < n:
            out[rid] = float(matrix[at] @ q)
    return out


def _best(rows: np.ndarray, sims: np.ndarray, k: int) -> list[tuple[int, float]]:
    """(row, similarity) of the k most similar, best first."""
    if len(rows) > k:
        keep = np.argpartition(-sims, k - 1)[:k]
        rows, sims = rows[keep], sims[keep]
    order = np.argsort(-sims, kind="stable")
    return [(int(rows[i]), float(sims[i])) for i in order]


def _best_passing(
    session: Session,
    sims: np.ndarray,
    ids: list[str],
    clauses: Sequence[ColumnElement[bool]],
    limit: int,
) -> list[tuple[int, float]]:
    """Widen a window over the best rows until `limit` of them pass the filters."""
    every = np.arange(len(ids))
    for window in (4 * limit, 32 * limit, len(ids)):
        top = _best(every, sims, window)
        ok = _passing(session, [ids[i] for i, _ in top], clauses)
        passed = [(i, s) for i, s in top if ids[i] in ok]
        if len(passed) >= limit or window >= len(ids):
            return passed[:limit]
    return []  # pragma: no cover - the last window covers every row
