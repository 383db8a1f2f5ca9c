"""PostgreSQL + pgvector nearest neighbours (`vector_repository.nearest`): the HNSW
cosine index, an exact scan where HNSW would walk most of the store or filters leave it
few hits, similarities by id, and the stored vectors of given records with their
versions (for `pg_vector_cache`). Statements that check the candidates against the
filters can read their headers too (`CarriedHeaders`), so that the caller needs no
look-up of its own for them."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from sqlalchemy import (
    BigInteger,
    Float,
    Select,
    bindparam,
    func,
    literal_column,
    or_,
    select,
    text,
    union_all,
)
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import BindParameter, ColumnElement

from app.db import binary_rows, column_rows, prepared
from app.models import RecordRow, pg_embeddings
from app.models.clauses import among_param
from app.records.clauses import (
    FilterShape,
    bound_clauses,
    filter_param,
    filter_params,
    filter_shape,
)
from app.records.filters import RecordQuery
from app.retrieve.header_repository import (
    CarriedHeaders,
    header_columns,
    mentioning_params,
)
from app.retrieve.vector_cache import MatrixView, nearest_in

MAX_EF_SEARCH = 1000  # pgvector's upper bound for hnsw.ef_search
# The version of a record's stored vector, as a column of a statement over `records`: the
# transaction that last wrote the record's row (xmin), which every write of its vector
# updates (pg_vector_cache). The admitted records of a small scope are read with theirs.
VECTOR_VERSION: ColumnElement[int] = literal_column("records.xmin::text::bigint", BigInteger)


# The query vector, one parameter however often a statement uses it, and its distance to
# a stored vector: the cosine distance through the HNSW index (`vector_cosine_ops`), and
# for exact scans 1 - the inner product, the same value for the unit vectors stored
# (`embedding.queue_repository.store_vectors` is their one writer, since the first
# worker) and for the unit query vector. An exact scan ordered by `distance + 0` (to keep
# HNSW out) computed the cosine twice a row, to select and to sort; ordered by the label,
# each row's distance is computed once, the inner product is the cheaper sum, and `<#>`
# is no operator of the index, so the scan stays exact (EXPLAIN ANALYZE, 40 queries
# alternated: 2,000 vectors 0.93 -> 0.76 ms, ~5,000 of a 100,000-record store 6.56 ->
# 5.97). A stored zero vector is 1 away (similarity 0), where the cosine gave NaN.
_QUERY_VECTOR: BindParameter[Any] = bindparam("query_vector", type_=pg_embeddings.c.embedding.type)
_DISTANCE = pg_embeddings.c.embedding.op("<=>", return_type=Float)(_QUERY_VECTOR)
_INNER = pg_embeddings.c.embedding.op("<#>", return_type=Float)(_QUERY_VECTOR)  # -a·b
_EXACT = (literal_column("1.0", Float) + _INNER).label("distance")


@dataclass(frozen=True)
class _Shape:
    """What a search statement's text depends on: the filters' shape, and whether the
    candidates checked against them carry their headers (and the mentions flag). The
    statements are built once per shape and take every value as a parameter: building
    one per request (an all-scope search of a small store) cost ~1.6 ms of the API's CPU,
    its cache key included."""

    filters: FilterShape
    carried: bool
    mentioning: bool

    @property
    def columns(self) -> list[Any]:
        """header_columns when headers are carried, else none (the same columns each time)."""
        return list(_header_columns(self.mentioning)) if self.carried else []

    def padding(self) -> list[Any]:
        """Empty header columns, for the rows of a statement that reads no headers."""
        return [literal_column("NULL").label(f"h{i}") for i in range(len(self.columns))]


@cache
def _header_columns(mentioning: bool) -> tuple[Any, ...]:
    return tuple(header_columns("postgresql", mentioning))


@dataclass(frozen=True)
class _Ask:
    """One search: its statements' shape, their values, and where carried headers go."""

    shape: _Shape
    params: dict[str, Any]
    carry: CarriedHeaders | None

    @staticmethod
    def of(q: np.ndarray, records: RecordQuery, carry: CarriedHeaders | None) -> _Ask:
        mentioning = carry.mentioning if carry is not None else []
        shape = _Shape(filter_shape(records, "postgresql"), carry is not None, bool(mentioning))
        params = {**filter_params(records), **mentioning_params(mentioning), "query_vector": q}
        return _Ask(shape, params, carry)


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
    matrix: MatrixView | None = None,
) -> dict[str, float]:
    """`vector_repository.nearest` on PostgreSQL, the query's unit vector `q` given
    (`admitted_vectors`: the admitted records' stored vectors, from pg_vector_cache;
    `matrix`: every stored vector, from pg_matrix_repository, searched here)."""
    ask = _Ask.of(q, records, carry)
    if admitted is not None and len(admitted) <= limit:
        if admitted_vectors is not None:  # no statement: scored here
            return similarities_of(q, admitted_vectors)
        return _similarities(session, ask, sorted({*admitted, *also}))
    if matrix is not None:  # rows of no known scope (migration 0015) go with every scope
        found = nearest_in(
            session, matrix, q, records, limit, also, carry=carry, unknown_scope=(None,),
            widest=4 * limit,  # a filter that most of the nearest fail: the server's search
        )  # fmt: skip
        if found is not None:
            return found
    values = {"limit": limit, "window": limit + limit // 2, "also": sorted(set(also))}
    if small_scope:  # a small store, or scopes small enough to rank all their vectors
        return _read(session, ask, _nearest_first(ask.shape, bool(also)), values)
    found = _hnsw(session, ask, limit, ef)
    missing = [rid for rid in also if rid not in found]
    return {**found, **_similarities(session, ask, missing)}


def _read(session: Session, ask: _Ask, stmt: Any, values: dict[str, Any]) -> dict[str, float]:
    """record id → cosine similarity of the (id, distance, *header) rows of `stmt`; the
    headers that came with them into the carry."""
    out: dict[str, float] = {}
    for rid, distance, *header in column_rows(session, stmt, {**ask.params, **values}).all():
        d = float(distance)
        out[rid] = 0.0 if math.isnan(d) else 1.0 - d  # NaN: a zero vector's cosine (HNSW)
        if ask.carry is not None and header and header[0] is not None:
            ask.carry.rows[rid] = header
    return out


def _candidates(shape: _Shape, distance: Any = _DISTANCE) -> Select[Any]:
    """(record id, cosine distance, *header) of the records the filters admit, `limit` of
    them, still unordered (`distance`: `_DISTANCE`, or `_EXACT` for an exact scan)."""
    return (
        select(pg_embeddings.c.record_id, distance, *shape.columns)
        .join(RecordRow, RecordRow.id == pg_embeddings.c.record_id)
        .where(pg_embeddings.c.embedding.is_not(None), *bound_clauses(shape.filters))
        .limit(bindparam("limit"))
    )


@cache
def _of_ids(shape: _Shape) -> Select[Any]:
    """(record id, distance (`_EXACT`), no header) of the records among the `also` ids
    that have a vector."""
    return select(pg_embeddings.c.record_id, _EXACT, *shape.padding()).where(
        among_param(pg_embeddings.c.record_id, "also", "postgresql"),
        pg_embeddings.c.embedding.is_not(None),
    )


def _hnsw(session: Session, ask: _Ask, limit: int, ef: int) -> dict[str, float]:
    """Through the HNSW index, walking `ef` entries."""
    # For the connection, not the transaction: a request's reads run outside a transaction
    # block (db.Database), where SET LOCAL does nothing. Every walk sets it first.
    session.execute(text(f"SET hnsw.ef_search = {ef}"))
    found = _read(session, ask, _hnsw_statement(ask.shape, exact=False), {"limit": limit})
    if len(found) < limit:
        # HNSW returns at most ef_search rows before filters apply; selective filters
        # (some tags, a large scope) leave few: rank the filtered rows exactly instead.
        found = _read(session, ask, _hnsw_statement(ask.shape, exact=True), {"limit": limit})
    return found


@cache
def _hnsw_statement(shape: _Shape, *, exact: bool) -> Select[Any]:
    """The nearest through the index, or (`exact`) by a scan (`_EXACT`: no index)."""
    if exact:
        return _candidates(shape, _EXACT).order_by(_EXACT)
    return _candidates(shape).order_by(_DISTANCE)


@cache
def _nearest_first(shape: _Shape, with_also: bool) -> Any:
    """The exact nearest `limit` and the similarities of `also`, in one statement, for a
    small store or small scopes: the vectors (of the request's scopes, through their own
    index on `record_embeddings.scope`) are ranked alone first, and only the best
    `window` of them are checked against the filters, by primary key. The exact scan
    joined to every filtered record (a primary-key probe of `record_embeddings` per
    record: 4,851 buffers for a 967-record scope at a million records; a scan of the
    whole records table, 2.2 of 2.7 ms at 3,000 records, when no scope is named) runs
    only when fewer than `limit` of those pass (a one-time filter of the same statement:
    the caller may read a few scopes, or ask for a rare type). Prepared when no scope is
    named: the plan is then a scan of the vectors and look-ups by key whatever the
    values, whereas a scope's best plan depends on its size."""
    vectors: list[ColumnElement[bool]] = [pg_embeddings.c.embedding.is_not(None)]
    if shape.filters.scopes:
        scope = pg_embeddings.c.scope  # NULL: not known yet (migration 0015): checked
        vectors.append(or_(scope.in_(filter_param("f_scopes", True)), scope.is_(None)))
    window = (
        select(pg_embeddings.c.record_id.label("record_id"), _EXACT)
        .where(*vectors)
        .order_by(_EXACT)  # an exact scan, not HNSW (see `_EXACT`)
        .limit(bindparam("window"))
        .cte("window")
        .prefix_with("MATERIALIZED")
    )
    # ANY(ARRAY(...)): the window's records by their primary key (a join let the planner
    # hash the whole filtered table instead), with the headers asked for read there.
    admitted = (
        select(RecordRow.id, *shape.columns[1:])  # header_columns start with the id
        .where(
            RecordRow.id == func.any(func.array(select(window.c.record_id).scalar_subquery())),
            *bound_clauses(shape.filters),
        )
        .subquery("admitted")
    )
    passing = (
        select(window.c.record_id, window.c.distance, *list(admitted.c)[: len(shape.columns)])
        .join_from(window, admitted, admitted.c.id == window.c.record_id)
        .order_by(window.c.distance)
        .limit(bindparam("limit"))
        .cte("passing")
        .prefix_with("MATERIALIZED")
    )
    best = select(*passing.c)
    too_few = select(func.count()).select_from(passing).scalar_subquery() < bindparam("limit")
    # The one-time filter stays outside the ranked subquery (its LIMIT keeps PostgreSQL
    # from pushing it in): there a false filter never starts the scan below it, whereas
    # inside, a parallel plan of the scan launched its worker anyway (3.8 ms of an 11-ms
    # statement at 1,000 records a scope).
    rest = select(*_candidates(shape, _EXACT).order_by(_EXACT).subquery().c).where(too_few)
    stmt = union_all(best, rest, *([_of_ids(shape)] if with_also else []))
    return stmt if shape.filters.scopes else prepared(stmt)


def _similarities(session: Session, ask: _Ask, ids: Sequence[str]) -> dict[str, float]:
    if not ids:
        return {}
    return _read(session, ask, _of_ids_alone(ask.shape), {"also": list(ids)})


@cache
def _of_ids_alone(shape: _Shape) -> Select[Any]:
    """`_of_ids` as a statement of its own (the HNSW walk's candidates lacking a
    similarity): look-ups by key whatever the ids, so prepared (its parse and plan had been
    ~0.3 ms of server time an all-scope retrieve at 100,000 records)."""
    return prepared(_of_ids(shape))


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
