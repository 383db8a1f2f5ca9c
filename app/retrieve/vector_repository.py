"""Nearest-neighbour search over stored vectors, per tier.

PostgreSQL + pgvector uses the HNSW cosine index, falling back to an exact scan when
filters leave too few hits; SQLite scans exactly over an in-process matrix
(app/retrieve/vector_cache.py). Tier 2 has no vectors."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from sqlalchemy import Select, func, select, text, union_all
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from app.db import Tier, column_rows, dialect_of
from app.embedding.unit import unit_vector
from app.models import RecordRow, pg_embeddings
from app.models.clauses import among
from app.records.clauses import query_clauses
from app.records.filters import RecordQuery
from app.retrieve.vector_cache import sqlite_nearest

MAX_EF_SEARCH = 1000  # pgvector's upper bound for hnsw.ef_search


def nearest(
    session: Session,
    tier: Tier,
    query: Callable[[], Sequence[float]],
    records: RecordQuery,
    limit: int,
    also: Sequence[str] = (),
    *,
    small_scope: bool = False,
    ef_search: int,
    selective: bool = True,
    admitted: Sequence[str] | None = None,
    signature: tuple[int, int] | None = None,
) -> dict[str, float]:
    """record id → cosine similarity: the `limit` nearest records `records` admits, plus
    the records in `also` that have a vector (so every candidate can be scored).
    `small_scope`: the request's scopes hold few records (retrieve.candidates.SMALL_SCOPE);
    PostgreSQL then ranks them by an exact scan at once: HNSW returns ef_search rows
    before filters apply, so a small scope of a large store keeps almost none of them and
    the exact scan followed anyway. `ef_search`: HNSW's search breadth (at least
    `limit`; the caller's `MEMBRANE_RANKING__EF_SEARCH`). `selective` (SQLite): the filter
    may name few records, which are then listed first (vector_cache.sqlite_nearest; the
    caller decides with its `listing_bound`: with no scope most of the store passes, and
    listing up to 6,401 ids cost more than scoring every row). `query` gives the query's
    vector (it may block until the embedding is done: SQLite asks after its first
    statement). `admitted`: every record the filters admit, when the caller has read them
    all (with, on SQLite, the vectors' change `signature` read beside them): SQLite then
    scores them without listing them, and PostgreSQL, when they are no more than `limit`
    (so all among the nearest), scores them by id (index look-ups) instead of a scan of
    the vectors joined to the filtered records."""
    if tier is Tier.sqlite:
        vector = lambda: unit_vector(query())  # noqa: E731
        listed = (list(admitted), signature) if admitted is not None and signature else None
        return sqlite_nearest(
            session, vector, records, limit, also, selective=selective, listed=listed
        )
    if tier is Tier.pgvector:
        q = unit_vector(query())
        if admitted is not None and len(admitted) <= limit:
            return _pg_similarities(session, q, sorted({*admitted, *also}))
        clauses = query_clauses(records, dialect_of(session))
        if small_scope and not records.filter.scopes:  # a small store, every scope
            return _pg_nearest_first(session, q, clauses, limit, also)
        if small_scope:
            return _pg_exact_with(session, q, clauses, limit, also)
        ef = min(MAX_EF_SEARCH, max(ef_search, limit))
        found = _pg_nearest(session, q, clauses, limit, ef)
        missing = [rid for rid in also if rid not in found]
        return {**found, **_pg_similarities(session, q, missing)}
    return {}  # tier 2: no vectors


def _pg_candidates(
    q: np.ndarray, clauses: Sequence[ColumnElement[bool]], limit: int
) -> tuple[Select[Any], ColumnElement[Any]]:
    """(record id, cosine distance) of the records `clauses` admit, `limit` of them, still
    unordered; and the distance expression to order them by."""
    distance = pg_embeddings.c.embedding.cosine_distance(q)
    stmt = (
        select(pg_embeddings.c.record_id, distance)
        .join(RecordRow, RecordRow.id == pg_embeddings.c.record_id)
        .where(pg_embeddings.c.embedding.is_not(None), *clauses)
        .limit(limit)
    )
    return stmt, distance


def _pg_of_ids(q: np.ndarray, ids: Sequence[str]) -> Select[Any]:
    """(record id, cosine distance) of the records among `ids` that have a vector."""
    distance = pg_embeddings.c.embedding.cosine_distance(q)
    return select(pg_embeddings.c.record_id, distance).where(
        among(pg_embeddings.c.record_id, ids, "postgresql"),
        pg_embeddings.c.embedding.is_not(None),
    )


def _pg_nearest(
    session: Session, q: np.ndarray, clauses: Sequence[ColumnElement[bool]], limit: int, ef: int
) -> dict[str, float]:
    """Through the HNSW index, walking `ef` entries."""
    base, distance = _pg_candidates(q, clauses, limit)
    session.execute(text(f"SET LOCAL hnsw.ef_search = {ef}"))
    rows = list(column_rows(session, base.order_by(distance)))
    if len(rows) < limit:
        # HNSW returns at most ef_search rows before filters apply; selective filters
        # (some tags, a large scope) leave few: rank the filtered rows exactly instead.
        rows = list(column_rows(session, base.order_by(distance + 0.0)))  # `+ 0`: not the index
    return {rid: 1.0 - float(d) for rid, d in rows}


def _pg_exact_with(
    session: Session,
    q: np.ndarray,
    clauses: Sequence[ColumnElement[bool]],
    limit: int,
    also: Sequence[str],
) -> dict[str, float]:
    """The exact nearest `limit` and the similarities of `also`, in one statement (a
    UNION ALL of the two): a small scope's retrieve makes one vector round trip."""
    base, distance = _pg_candidates(q, clauses, limit)
    nearest = base.order_by(distance + 0.0).subquery()  # `+ 0`: an exact scan, not HNSW
    rows = select(*nearest.c)
    stmt = union_all(rows, _pg_of_ids(q, also)) if also else rows
    return {rid: 1.0 - float(d) for rid, d in column_rows(session, stmt)}


def _pg_nearest_first(
    session: Session,
    q: np.ndarray,
    clauses: Sequence[ColumnElement[bool]],
    limit: int,
    also: Sequence[str],
) -> dict[str, float]:
    """`_pg_exact_with` for a request that names no scope, on a small store: the vectors
    are ranked alone first, and only the best `window` of them are checked against the
    filters, by primary key; the exact scan joined to every filtered record (a scan of
    the whole records table, 2.2 of 2.7 ms at 3,000 records) runs only when fewer than
    `limit` of those pass (a one-time filter of the same statement: the caller may read
    a few scopes, or ask for a rare type)."""
    distance = pg_embeddings.c.embedding.cosine_distance(q)
    window = (
        select(pg_embeddings.c.record_id.label("record_id"), distance.label("distance"))
        .where(pg_embeddings.c.embedding.is_not(None))
        .order_by(distance + 0.0)  # `+ 0`: an exact scan, not HNSW
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
    base, _ = _pg_candidates(q, clauses, limit)
    too_few = select(func.count()).select_from(passing).scalar_subquery() < limit
    rest = select(*base.where(too_few).order_by(distance + 0.0).subquery().c)
    parts = [select(*passing.c), rest, *([_pg_of_ids(q, also)] if also else [])]
    return {rid: 1.0 - float(d) for rid, d in column_rows(session, union_all(*parts))}


def _pg_similarities(session: Session, q: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
    if not ids:
        return {}
    return {rid: 1.0 - float(d) for rid, d in column_rows(session, _pg_of_ids(q, ids))}
