"""Nearest-neighbour search over stored vectors, per tier.

PostgreSQL + pgvector uses the HNSW cosine index, falling back to an exact scan when
filters leave too few hits; SQLite scans exactly over an in-process matrix
(app/retrieve/vector_cache.py). Tier 2 has no vectors."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from sqlalchemy import Select, null, select, text, union_all
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.selectable import Subquery

from app.db import Tier, dialect_of
from app.embedding.unit import unit_vector
from app.models import RecordRow, pg_embeddings
from app.models.clauses import among
from app.records.clauses import query_clauses
from app.records.filters import RecordQuery
from app.retrieve.header_repository import RecordHeader, header_columns, header_from
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
    selective: bool = True,
    mentioning: Sequence[str] = (),
) -> tuple[dict[str, float], dict[str, RecordHeader]]:
    """record id → cosine similarity: the `limit` nearest records `records` admits, plus
    the records in `also` that have a vector (so every candidate can be scored); and the
    headers (`repository.headers`, flagged for `mentioning`) of nearest records that
    were read with them (PostgreSQL: all of them; SQLite: those checked against the
    filter after scoring, not those of a listed filter).
    `small_scope`: the request's scopes hold few records (retrieve.service.SMALL_SCOPE);
    PostgreSQL then ranks them by an exact scan at once: HNSW returns ef_search rows
    before filters apply, so a small scope of a large store keeps almost none of them and
    the exact scan followed anyway. `ef_search`: HNSW's search breadth (at least
    `limit`; the caller's `MEMBRANE_RANKING__EF_SEARCH`). `selective` (SQLite): the filter
    may name few records, which are then listed first (vector_cache.sqlite_nearest; the
    caller decides with its `listing_bound`: with no scope most of the store passes, and
    listing up to 6,401 ids cost more than scoring every row)."""
    q = unit_vector(query)
    dialect = dialect_of(session)
    clauses = query_clauses(records, dialect)
    carry = header_columns(dialect, mentioning)
    if tier is Tier.pgvector:
        if small_scope:
            found, carried = _pg_exact_with(session, q, clauses, limit, also, carry)
        else:
            ef = min(MAX_EF_SEARCH, max(ef_search, limit))
            found, carried = _pg_nearest(session, q, clauses, limit, ef, carry)
            missing = [rid for rid in also if rid not in found]
            found |= _pg_similarities(session, q, missing)
    elif tier is Tier.sqlite:
        found, carried = sqlite_nearest(
            session, q, clauses, limit, also, selective=selective, carry=carry
        )
    else:
        return {}, {}  # tier 2: no vectors
    return found, {rid: header_from(records.now, values) for rid, values in carried.items()}


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


Carried = dict[str, Sequence[Any]]


def _with_rows(nearest: Subquery, carry: Sequence[Any]) -> Select[Any]:
    """(record id, distance, *carry) of the `nearest` rows: the carried columns read by
    primary key after the search's sort and limit, not for every row it compared."""
    return select(*nearest.c, *carry).join_from(nearest, RecordRow, RecordRow.id == nearest.c[0])


def _split(rows: Iterable[Sequence[Any]]) -> tuple[dict[str, float], Carried]:
    """Similarities and carried values of (id, distance, *carried) rows (carried None:
    a row of `also`, whose record was read with the lexical candidates)."""
    found: dict[str, float] = {}
    carried: Carried = {}
    for rid, d, *values in rows:
        found[rid] = 1.0 - float(d)
        if values and values[0] is not None:
            carried[rid] = values
    return found, carried


def _pg_nearest(
    session: Session,
    q: np.ndarray,
    clauses: Sequence[ColumnElement[bool]],
    limit: int,
    ef: int,
    carry: Sequence[Any],
) -> tuple[dict[str, float], Carried]:
    """Through the HNSW index, walking `ef` entries."""
    base, distance = _pg_candidates(q, clauses, limit)
    session.execute(text(f"SET LOCAL hnsw.ef_search = {ef}"))
    rows = list(session.execute(_with_rows(base.order_by(distance).subquery(), carry)))
    if len(rows) < limit:
        # HNSW returns at most ef_search rows before filters apply; selective filters
        # (some tags, a large scope) leave few: rank the filtered rows exactly instead.
        exact = base.order_by(distance + 0.0).subquery()  # `+ 0`: not the index
        rows = list(session.execute(_with_rows(exact, carry)))
    return _split(rows)


def _pg_exact_with(
    session: Session,
    q: np.ndarray,
    clauses: Sequence[ColumnElement[bool]],
    limit: int,
    also: Sequence[str],
    carry: Sequence[Any],
) -> tuple[dict[str, float], Carried]:
    """The exact nearest `limit` and the similarities of `also`, in one statement (a
    UNION ALL of the two): a small scope's retrieve makes one vector round trip."""
    base, distance = _pg_candidates(q, clauses, limit)
    nearest = base.order_by(distance + 0.0).subquery()  # `+ 0`: an exact scan, not HNSW
    rows = _with_rows(nearest, carry)
    if also:
        of_ids = _pg_of_ids(q, also).add_columns(*(null() for _ in carry))
        return _split(session.execute(union_all(rows, of_ids)))
    return _split(session.execute(rows))


def _pg_similarities(session: Session, q: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
    if not ids:
        return {}
    return {rid: 1.0 - float(d) for rid, d in session.execute(_pg_of_ids(q, ids))}
