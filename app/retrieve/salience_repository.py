"""Retrieval without a query: the records the filters admit in order of current
salience (then layer, then newest), with their full rows and, for an answer, their edges."""

from __future__ import annotations

from functools import cache
from typing import Any

from sqlalchemy import Float, Integer, Select, bindparam, select
from sqlalchemy.orm import Session

from app.db import dialect_of, prepared
from app.models import RecordRow
from app.models.clauses import current_salience_sql, visibility_params
from app.records.clauses import FilterShape, bound_clauses, filter_params, filter_shape
from app.records.filters import RecordQuery
from app.relations.clauses import Edges, edges_column
from app.retrieve.repository import layer_rank, rows_and_edges
from app.trust import Visibility

# The limits written into the statement text, each its own statement (prepared once per
# connection on PostgreSQL, which keeps 100): a request's limit is read as the next step
# up and the rows past it dropped, so the 520 possible limits make a few statements.
LIMIT_STEPS = (10, 20, 30, 50, 100, 250, 520)


def limit_step(limit: int) -> int:
    """The statement limit that reads `limit` rows: the next of LIMIT_STEPS up."""
    return next((step for step in LIMIT_STEPS if step >= limit), limit)


def by_salience(session: Session, records: RecordQuery, limit: int) -> list[RecordRow]:
    """No query: current salience, then layer order, then newest."""
    stmt = _by_salience_statement(filter_shape(records, dialect_of(session)), None)
    params = {**filter_params(records), "limit": limit_step(limit)}
    return list(session.scalars(stmt, params))[:limit]


def by_salience_with_edges(
    session: Session, records: RecordQuery, limit: int, reading: Visibility, edge_limit: int
) -> tuple[list[RecordRow], Edges]:
    """`by_salience`, each row with its edges (as `load_with_edges`)."""
    shape = filter_shape(records, dialect_of(session))
    stmt = _by_salience_statement(shape, reading.scopes is not None)
    params = {
        **filter_params(records),
        **visibility_params(reading),
        "limit": limit_step(limit),
        "edge_limit": edge_limit,
    }
    rows, edges = rows_and_edges(session.execute(stmt, params))
    kept = list(rows.values())[:limit]
    return kept, {row.id: edges[row.id] for row in kept}


@cache
def _by_salience_statement(shape: FilterShape, edges_scoped: bool | None) -> Select[Any]:
    """The best ids are found first, then their full rows joined and put in the same
    order again: SQLite sorted whole rows (payload, search text) for the top `limit`,
    three times the cost of sorting ids (1.4 -> 0.4 ms, 200 records in scope).
    `edges_scoped`: None for rows alone, else rows with `edges_column(.., edges_scoped)`.
    The outer order reads the salience and layer the inner one computed: written twice,
    the salience expression made the statement 5 kB, past the 4 kB up to which psycopg
    keeps a statement's conversion (it re-parsed it on every call)."""
    salience = current_salience_sql(shape.dialect, bindparam("f_now", type_=Float))
    salience_col, layer_col = salience.label("salience"), layer_rank().label("layer")
    best = (
        select(RecordRow.id, salience_col, layer_col)
        .where(*bound_clauses(shape))
        .order_by(salience_col.desc(), layer_col, RecordRow.created_at.desc(), RecordRow.id)
        # The limit written into the statement: a plan made for an unknown limit assumes
        # a tenth of the scope's rows, and could join them to `records` by hash.
        .limit(bindparam("limit", type_=Integer, literal_execute=True))
        .subquery("best")
    )
    stmt: Select[Any] = select(RecordRow)
    if edges_scoped is not None:
        stmt = stmt.add_columns(edges_column(shape.dialect, edges_scoped))
    order = (best.c.salience.desc(), best.c.layer, RecordRow.created_at.desc(), RecordRow.id)
    # Prepared on PostgreSQL (parsing and planning it had been ~0.8 ms of a 1.2-ms
    # statement): its plan is the filters' index, the salience of each row they admit, a
    # top-N sort and the best rows by key, whatever the values.
    return prepared(stmt.join(best, RecordRow.id == best.c.id).order_by(*order))
