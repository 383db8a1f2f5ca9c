"""Retrieval SQL: lexical candidates per backend, full rows (light candidate rows:
header_repository.py; temporal neighbours: neighbour_repository.py; the order of a
retrieve without a query: salience_repository.py).

Both backends rank lexical matches by BM25 (k1 = 1.2, b = 0.75) over OR-ed query terms:
SQLite through FTS5's bm25(); PostgreSQL by the same formula over the `search_tsv`
column (app/retrieve/pg_text_repository.py). Callers pass a RecordQuery; its clauses come from
app.records.clauses (`query_clauses`, or `bound_clauses` in statements built once per
filter shape), so retrieval and listing agree on visibility.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from sqlalchemy import Select, case, func, select
from sqlalchemy.engine import Result
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from app.db import dialect_of, prepared
from app.enums import LAYER_ORDER
from app.models import RecordRow
from app.models.clauses import among_param, visibility_params
from app.records.clauses import FilterShape, bound_clauses, filter_params, filter_shape
from app.records.filters import RecordQuery
from app.relations.clauses import Edges, edges_column, edges_of
from app.retrieve import pg_text_repository as pg_text
from app.retrieve import sqlite_text_repository as sqlite_text
from app.retrieve.lexical_scores import LexicalScores, Naming
from app.trust import Visibility


def layer_rank() -> ColumnElement[int]:
    """Position of the record's type in LAYER_ORDER (working first, episodic last)."""
    return case(
        {t.value: i for i, t in enumerate(LAYER_ORDER)},
        value=RecordRow.type,
        else_=len(LAYER_ORDER),
    )


def records_in_scopes(session: Session, scopes: Sequence[str], n: int) -> int:
    """The records that lie in `scopes` (no scopes: in the whole store), counted up to `n`
    at most (an index-only count)."""
    inside = select(RecordRow.id).limit(n)
    if scopes:
        inside = inside.where(RecordRow.scope.in_(list(scopes)))
    return int(session.scalar(select(func.count()).select_from(inside.subquery())) or 0)


# -- lexical ---------------------------------------------------------------------------


def lexical(
    session: Session,
    terms: Sequence[str],
    records: RecordQuery,
    limit: int,
    *,
    small_scope: bool = False,
    naming: Naming = Naming(),
    with_headers: bool = True,
    with_signature: bool = False,
    matrix_since: str | None = None,
) -> LexicalScores:
    """The best `limit` matches of any of `terms` by BM25 over all of them, scored with
    all of them and without the unscored ones (the words of names the entity links
    match: see retrieve.terms.unscored_names), as `naming` gives or finds them.
    `small_scope`: see retrieve.candidates.SMALL_SCOPE; `with_headers`: False when the
    caller has the candidates' headers already; `with_signature` (SQLite): read the
    vector matrix's change signature too (`vector_cache.SIGNATURE`), for the vector
    search that follows; `matrix_since` (PostgreSQL): likewise, the signature of the
    process's vector matrix since that snapshot (`pg_matrix_repository.SIGNATURE`)."""
    if not terms:
        return LexicalScores({}, {})
    if dialect_of(session) == "sqlite":
        reads = sqlite_text.Reads(with_headers, with_signature)
        return sqlite_text.bm25(session, list(terms), records, limit, naming, reads)
    return pg_text.bm25(
        session,
        list(terms),
        records,
        limit,
        small_scope=small_scope,
        naming=naming,
        with_headers=with_headers,
        matrix_since=matrix_since,
    )


# -- full rows -------------------------------------------------------------------------


def load(
    session: Session, ids: Sequence[str], records: RecordQuery | None = None
) -> dict[str, RecordRow]:
    """Full rows of the records among `ids` (that `records` admits, when given)."""
    if not ids:
        return {}
    dialect = dialect_of(session)
    shape = filter_shape(records, dialect) if records is not None else None
    params = filter_params(records) if records is not None else {}
    stmt = _load_statement(dialect, shape)
    return {r.id: r for r in session.scalars(stmt, {**params, "ids": sorted(set(ids))})}


@cache
def _load_statement(dialect: str, shape: FilterShape | None) -> Select[RecordRow]:
    clauses = bound_clauses(shape) if shape is not None else ()
    return select(RecordRow).where(among_param(RecordRow.id, "ids", dialect), *clauses)


def load_with_edges(
    session: Session, ids: Sequence[str], reading: Visibility, edge_limit: int
) -> tuple[dict[str, RecordRow], Edges]:
    """`load`, each row with its outgoing edges that `reading` may see (the first
    `edge_limit`), in the same statement."""
    if not ids:
        return {}, {}
    dialect = dialect_of(session)
    stmt = _load_with_edges_statement(dialect, reading.scopes is not None)
    params = {**visibility_params(reading), "edge_limit": edge_limit, "ids": sorted(set(ids))}
    return rows_and_edges(session.execute(stmt, params))


@cache
def _load_with_edges_statement(dialect: str, scoped: bool) -> Select[Any]:
    edges = edges_column(dialect, scoped)
    stmt = select(RecordRow, edges).where(among_param(RecordRow.id, "ids", dialect))
    # Look-ups by key whatever the ids: prepared on PostgreSQL (parsing and planning it
    # had been ~0.5 ms of server time a retrieve).
    return prepared(stmt)


def rows_and_edges(result: Result[RecordRow, Any]) -> tuple[dict[str, RecordRow], Edges]:
    """Rows in the statement's order (dicts keep it), with their listed edges."""
    rows: dict[str, RecordRow] = {}
    edges: Edges = {}
    for row, listed in result:
        rows[row.id] = row
        edges[row.id] = edges_of(row.id, listed)
    return rows, edges
