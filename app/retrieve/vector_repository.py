"""Nearest-neighbour search over stored vectors, per tier.

PostgreSQL + pgvector uses the HNSW cosine index, falling back to an exact scan when
filters leave too few hits; SQLite scans exactly over an in-process matrix
(app/retrieve/vector_cache.py). Tier 2 has no vectors."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sqlalchemy import select, text, union_all
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from app.db import Tier, dialect_of
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
    query: Sequence[float],
    records: RecordQuery,
    limit: int,
    also: Sequence[str] = (),
    *,
    small_scope: bool = False,
    ef_search: int,
) -> dict[str, float]:
    """record id → cosine similarity: the `limit` nearest records `records` admits, plus
    the records in `also` that have a vector (so every candidate can be scored).
    `small_scope`: the request's scopes hold few records (retrieve.service.SMALL_SCOPE);
    PostgreSQL then ranks them by an exact scan at once: HNSW returns ef_search rows
    before filters apply, so a small scope of a large store keeps almost none of them and
    the exact scan followed anyway. `ef_search`: HNSW's search breadth (at least
    `limit`; the caller's `MEMBRANE_RANKING__EF_SEARCH`)."""
    q = unit_vector(query)
    clauses = query_clauses(records, dialect_of(session))
    if tier is Tier.pgvector:
        if small_scope:
            return _pg_exact_with(session, q, clauses, limit, also)
        ef = min(MAX_EF_SEARCH, max(ef_search, limit))
        found = _pg_nearest(session, q, clauses, limit, ef=ef)
        missing = [rid for rid in also if rid not in found]
        return {**found, **_pg_similarities(session, q, missing)}
    if tier is Tier.sqlite:
        return sqlite_nearest(session, q, clauses, limit, also)
    return {}  # tier 2: no vectors


def _pg_nearest(
    session: Session,
    q: np.ndarray,
    clauses: Sequence[ColumnElement[bool]],
    limit: int,
    *,
    ef: int | None,
) -> dict[str, float]:
    """`ef` None: an exact scan."""
    distance = pg_embeddings.c.embedding.cosine_distance(q)
    base = (
        select(pg_embeddings.c.record_id, distance)
        .join(RecordRow, RecordRow.id == pg_embeddings.c.record_id)
        .where(pg_embeddings.c.embedding.is_not(None), *clauses)
        .limit(limit)
    )
    # `+ 0` keeps the planner from using the index for this ordering.
    exact_order = distance + 0.0
    if ef is None:
        return {rid: 1.0 - float(d) for rid, d in session.execute(base.order_by(exact_order))}
    session.execute(text(f"SET LOCAL hnsw.ef_search = {ef}"))
    rows = list(session.execute(base.order_by(distance)))
    if len(rows) < limit:
        # HNSW returns at most ef_search rows before filters apply; selective filters
        # (some tags, a large scope) leave few: rank the filtered rows exactly instead.
        rows = list(session.execute(base.order_by(exact_order)))
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
    distance = pg_embeddings.c.embedding.cosine_distance(q)
    nearest = (
        select(pg_embeddings.c.record_id, distance.label("d"))
        .join(RecordRow, RecordRow.id == pg_embeddings.c.record_id)
        .where(pg_embeddings.c.embedding.is_not(None), *clauses)
        .order_by(distance + 0.0)  # `+ 0`: an exact scan, not the HNSW index
        .limit(limit)
        .subquery()
    )
    parts = [select(nearest.c.record_id, nearest.c.d)]
    if also:
        parts.append(
            select(pg_embeddings.c.record_id, distance.label("d")).where(
                among(pg_embeddings.c.record_id, also, "postgresql"),
                pg_embeddings.c.embedding.is_not(None),
            )
        )
    stmt = union_all(*parts) if len(parts) > 1 else parts[0]
    return {rid: 1.0 - float(d) for rid, d in session.execute(stmt)}


def _pg_similarities(session: Session, q: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
    if not ids:
        return {}
    distance = pg_embeddings.c.embedding.cosine_distance(q)
    stmt = select(pg_embeddings.c.record_id, distance).where(
        among(pg_embeddings.c.record_id, ids, "postgresql"),
        pg_embeddings.c.embedding.is_not(None),
    )
    return {rid: 1.0 - float(d) for rid, d in session.execute(stmt)}
