"""PostgreSQL + pgvector nearest neighbours (`vector_repository.nearest`): the HNSW
cosine index, an exact scan where HNSW would walk most of the store or filters leave it
few hits, similarities by id, and the stored vectors of given records with their
versions (for `pg_vector_cache`). Statements that check the candidates against the
filters can read their headers too (`CarriedHeaders`), so that the caller needs no
look-up of its own for them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from sqlalchemy import BigInteger, Float, Select, func, literal_column, select, text, union_all
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import BindParameter, ColumnElement

from app.db import binary_rows, column_rows, prepared
from app.models import RecordRow, pg_embeddings
from app.models.clauses import among, among_param
from app.records.clauses import query_clauses
from app.records.filters import RecordQuery
from app.retrieve.header_repository import (
    CarriedHeaders,
    header_columns,
    mentioning_params,
)

MAX_EF_SEARCH = 1000  # pgvector's upper bound for hnsw.ef_search
# The version of a record's stored vector, as a column of a statement over `records`: the
# transaction that last wrote the record's row (xmin), which every write of its vector
# updates (pg_vector_cache). The admitted records of a small scope are read with theirs.
VECTOR_VERSION: ColumnElement[int] = literal_column("records.xmin::text::bigint", BigInteger)


@dataclass(frozen=True)
class _Ask:
    """One search: the query vector as one parameter (pgvector writes it as text, ~0.1 ms
    each time it is bound), and the header columns read with checked candidates."""

    vector: BindParameter[Any]
    columns: tuple[Any, ...]  # header_columns when headers are carried, else none
    params: dict[str, Any]
    carry: CarriedHeaders | None

    @staticmethod
    def of(q: np.ndarray, records: RecordQuery, carry: CarriedHeaders | None) -> _Ask:
        vector = BindParameter("query_vector", q, type_=pg_embeddings.c.embedding.type)
        if carry is None:
            return _Ask(vector, (), {}, None)
        columns = tuple(header_columns("postgresql", bool(carry.mentioning)))
        return _Ask(vector, columns, mentioning_params(carry.mentioning), carry)

    @property
    def distance(self) -> ColumnElement[float]:
        return pg_embeddings.c.embedding.op("<=>", return_type=Float)(self.vector)

    def padding(self) -> list[Any]:
        """Empty header columns, for the rows of a statement that reads no headers."""
        return [literal_column("NULL").label(f"h{i}") for i in range(len(self.columns))]


def pg_nearest(
    session: Session,
    q: np.ndarray,
    records: RecordQuery,
    limit: int,
    also: Sequence[str],
    *,
    small_scope: bool,
    ef: int,
    admitted: Sequence[str] | None,
    carry: CarriedHeaders | None,
    admitted_vectors: Mapping[str, np.ndarray] | None = None,
) -> dict[str, float]:
    """`vector_repository.nearest` on PostgreSQL, the query's unit vector `q` given
    (`admitted_vectors`: the admitted records' stored vectors, from pg_vector_cache)."""
    ask = _Ask.of(q, records, carry)
    if admitted is not None and len(admitted) <= limit:
        if admitted_vectors is not None:  # no statement: scored here
            return similarities_of(q, admitted_vectors)
        return _similarities(session, ask, sorted({*admitted, *also}))
    clauses = query_clauses(records, "postgresql")
    if small_scope and not records.filter.scopes:  # a small store, every scope
        return _read(session, ask, _nearest_first(ask, clauses, limit, also))
    if small_scope:
        return _read(session, ask, _exact_with(ask, clauses, limit, also))
    found = _hnsw(session, ask, clauses, limit, ef)
    missing = [rid for rid in also if rid not in found]
    return {**found, **_similarities(session, ask, missing)}


def _read(session: Session, ask: _Ask, stmt: Any) -> dict[str, float]:
    """record id → cosine similarity of the (id, distance, *header) rows of `stmt`; the
    headers that came with them into the carry."""
    out: dict[str, float] = {}
    for rid, distance, *header in column_rows(session, stmt, ask.params):
        out[rid] = 1.0 - float(distance)
        if ask.carry is not None and header and header[0] is not None:
            ask.carry.rows[rid] = header
    return out


def _candidates(ask: _Ask, clauses: Sequence[ColumnElement[bool]], limit: int) -> Select[Any]:
    """(record id, cosine distance, *header) of the records `clauses` admit, `limit` of
    them, still unordered."""
    return (
        select(pg_embeddings.c.record_id, ask.distance, *ask.columns)
        .join(RecordRow, RecordRow.id == pg_embeddings.c.record_id)
        .where(pg_embeddings.c.embedding.is_not(None), *clauses)
        .limit(limit)
    )


def _of_ids(ask: _Ask, ids: Sequence[str]) -> Select[Any]:
    """(record id, cosine distance, no header) of the records among `ids` that have a
    vector."""
    return select(pg_embeddings.c.record_id, ask.distance, *ask.padding()).where(
        among(pg_embeddings.c.record_id, ids, "postgresql"),
        pg_embeddings.c.embedding.is_not(None),
    )


def _hnsw(
    session: Session, ask: _Ask, clauses: Sequence[ColumnElement[bool]], limit: int, ef: int
) -> dict[str, float]:
    """Through the HNSW index, walking `ef` entries."""
    base = _candidates(ask, clauses, limit)
    # For the connection, not the transaction: a request's reads run outside a transaction
    # block (db.Database), where SET LOCAL does nothing. Every walk sets it first.
    session.execute(text(f"SET hnsw.ef_search = {ef}"))
    found = _read(session, ask, base.order_by(ask.distance))
    if len(found) < limit:
        # HNSW returns at most ef_search rows before filters apply; selective filters
        # (some tags, a large scope) leave few: rank the filtered rows exactly instead.
        found = _read(session, ask, base.order_by(ask.distance + 0.0))  # `+ 0`: no index
    return found


def _exact_with(
    ask: _Ask, clauses: Sequence[ColumnElement[bool]], limit: int, also: Sequence[str]
) -> Any:
    """The exact nearest `limit` and the similarities of `also`, in one statement (a
    UNION ALL of the two): a small scope's retrieve makes one vector round trip."""
    base = _candidates(ask, clauses, limit)
    nearest = base.order_by(ask.distance + 0.0).subquery()  # `+ 0`: an exact scan, not HNSW
    rows = select(*nearest.c)
    return union_all(rows, _of_ids(ask, also)) if also else rows


def _nearest_first(
    ask: _Ask, clauses: Sequence[ColumnElement[bool]], limit: int, also: Sequence[str]
) -> Any:
    """`_exact_with` for a request that names no scope, on a small store: the vectors are
    ranked alone first, and only the best `window` of them are checked against the
    filters, by primary key; the exact scan joined to every filtered record (a scan of
    the whole records table, 2.2 of 2.7 ms at 3,000 records) runs only when fewer than
    `limit` of those pass (a one-time filter of the same statement: the caller may read
    a few scopes, or ask for a rare type)."""
    window = (
        select(pg_embeddings.c.record_id.label("record_id"), ask.distance.label("distance"))
        .where(pg_embeddings.c.embedding.is_not(None))
        .order_by(ask.distance + 0.0)  # `+ 0`: an exact scan, not HNSW
        .limit(limit + limit // 2)
        .cte("window")
        .prefix_with("MATERIALIZED")
    )
    # ANY(ARRAY(...)): the window's records by their primary key; a join let the planner
    # hash the whole filtered table instead.
    admitted = select(RecordRow.id).where(
        RecordRow.id == func.any(func.array(select(window.c.record_id).scalar_subquery())),
        *clauses,
    )
    passing = (
        select(window.c.record_id, window.c.distance)
        .where(window.c.record_id.in_(admitted))
        .order_by(window.c.distance)
        .limit(limit)
        .cte("passing")
        .prefix_with("MATERIALIZED")
    )
    best = select(*passing.c, *ask.columns)
    if ask.columns:
        best = best.join_from(passing, RecordRow, RecordRow.id == passing.c.record_id)
    too_few = select(func.count()).select_from(passing).scalar_subquery() < limit
    base = _candidates(ask, clauses, limit).where(too_few)
    rest = select(*base.order_by(ask.distance + 0.0).subquery().c)
    return union_all(best, rest, *([_of_ids(ask, also)] if also else []))


def _similarities(session: Session, ask: _Ask, ids: Sequence[str]) -> dict[str, float]:
    if not ids:
        return {}
    return _read(session, ask, _of_ids(ask, ids))


def similarities_of(q: np.ndarray, vectors: Mapping[str, np.ndarray]) -> dict[str, float]:
    """record id → cosine similarity to the unit vector `q` of each of `vectors` (float32
    arrays); a vector of another dimension is left out."""
    ids = [rid for rid, vec in vectors.items() if vec.shape[0] == q.shape[0]]
    if not ids:
        return {}
    matrix = np.stack([vectors[rid] for rid in ids])
    norms = np.linalg.norm(matrix, axis=1)
    sims = (matrix @ q.astype(np.float32)) / np.where(norms > 0, norms, 1.0)
    return dict(zip(ids, map(float, sims), strict=True))


def versioned_vectors(session: Session, ids: Sequence[str]) -> list[tuple[str, int, bytes | None]]:
    """(record id, VECTOR_VERSION, stored vector in pgvector's binary form or None) of the
    records of `ids` that exist, read in one snapshot."""
    return [(rid, version, raw) for rid, version, raw in column_rows(
        session, _versioned_statement(), {"ids": list(ids)}
    )]  # fmt: skip


@cache
def _versioned_statement() -> Select[Any]:
    raw = func.vector_send(pg_embeddings.c.embedding)
    stmt = (
        select(RecordRow.id, VECTOR_VERSION, raw)
        .outerjoin(pg_embeddings, pg_embeddings.c.record_id == RecordRow.id)
        .where(among_param(RecordRow.id, "ids", "postgresql"))
    )
    # Primary-key look-ups whatever the ids: prepared; the vectors as bytes, not as hex.
    return binary_rows(prepared(stmt))
