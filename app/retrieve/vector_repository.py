"""Nearest-neighbour search over stored vectors, per tier.

PostgreSQL + pgvector uses the HNSW cosine index, falling back to an exact scan when
filters leave too few hits (app/retrieve/pg_vector_repository.py); SQLite scans exactly
over an in-process matrix (app/retrieve/vector_cache.py). Tier 2 has no vectors."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
from sqlalchemy.orm import Session

from app.db import Tier
from app.embedding.unit import unit_vector
from app.records.filters import RecordQuery
from app.retrieve.header_repository import CarriedHeaders
from app.retrieve.pg_vector_repository import MAX_EF_SEARCH, pg_nearest
from app.retrieve.vector_cache import MatrixView, sqlite_nearest


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
    carry: CarriedHeaders | None = None,
    admitted_vectors: Mapping[str, np.ndarray] | None = None,
    matrix: MatrixView | None = None,
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
    the vectors joined to the filtered records. `carry`: the candidates the search checks
    against the filters in SQL are read with their headers, into it. `admitted_vectors`
    (PostgreSQL): the admitted records' stored vectors (from `pg_vector_cache`), scored
    here without a statement. `matrix` (PostgreSQL): every stored vector of the store,
    kept in the process (pg_matrix_repository), searched here."""
    if tier is Tier.sqlite:
        vector = lambda: unit_vector(query())  # noqa: E731
        listed = (list(admitted), signature) if admitted is not None and signature else None
        return sqlite_nearest(
            session, vector, records, limit, also, selective=selective, listed=listed,
            signature=signature if admitted is None else None, carry=carry,
        )  # fmt: skip
    if tier is Tier.pgvector:
        ef = min(MAX_EF_SEARCH, max(ef_search, limit))
        return pg_nearest(
            session, unit_vector(query()), records, limit, also, small_scope=small_scope,
            ef=ef, admitted=admitted, carry=carry, admitted_vectors=admitted_vectors, matrix=matrix,
        )  # fmt: skip
    return {}  # tier 2: no vectors
