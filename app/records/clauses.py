"""Records' read filter, published: the WHERE clauses of a `RecordQuery` that listing,
retrieval, vector search and export share (`query_clauses`), and the pieces it is made
of. Repositories of other domains build on this module, not on `records/repository.py`.

The clauses below every domain (the read rule `visible`, `among`, `off_index`, current
salience) are `app/models/clauses.py`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from sqlalchemy import Float, bindparam, func, select
from sqlalchemy.sql.elements import ColumnElement

from app.enums import Status
from app.models import RecordRow, TagRow
from app.models.clauses import current_salience_sql, read_rule, status_column
from app.models.clauses import status_of as status_of
from app.records.filters import RecordQuery


def tags_all_clause(tags: Sequence[str]) -> ColumnElement[bool]:
    wanted = sorted(set(tags))
    return _tags_all(wanted, len(wanted))


def _tags_all(tags: Any, count: Any) -> ColumnElement[bool]:
    having = (
        select(TagRow.record_id)
        .where(TagRow.tag.in_(tags))
        .group_by(TagRow.record_id)
        .having(func.count(TagRow.tag) == count)
    )
    return RecordRow.id.in_(having)


# -- a query's clauses, built once per shape ----------------------------------------------


@dataclass(frozen=True)
class FilterShape:
    """Which filters a RecordQuery sets, not their values: what the text of its clauses
    depends on. Hot statements are built once per shape with the clauses of
    `bound_clauses` and take the values from `filter_params` at execution (building a
    statement and its cache key cost more than running it: ~1 ms of a 2.6 ms look-up of
    200 candidates' headers on SQLite)."""

    dialect: str
    scoped: bool  # the caller reads some scopes only
    types: bool = False
    scopes: bool = False
    tags: bool = False
    sensitivities: bool = False
    statuses: bool = False
    active_wanted: bool = False  # picks the status column's index use (status_of)
    min_salience: bool = False
    max_salience: bool = False
    created_after: bool = False
    created_before: bool = False
    ids: bool = False


def filter_shape(query: RecordQuery, dialect: str) -> FilterShape:
    flt = query.filter
    return FilterShape(
        dialect=dialect,
        scoped=query.visibility.scopes is not None,
        types=bool(flt.types),
        scopes=bool(flt.scopes),
        tags=bool(flt.tags_all),
        sensitivities=bool(flt.sensitivities),
        statuses=bool(flt.statuses),
        active_wanted=Status.active.value in flt.statuses,
        min_salience=flt.min_salience is not None,
        max_salience=flt.max_salience is not None,
        created_after=flt.created_after is not None,
        created_before=flt.created_before is not None,
        ids=bool(flt.ids),
    )


def filter_params(query: RecordQuery) -> dict[str, Any]:
    """The values of the parameters of `bound_clauses` (named f_*) for `query`."""
    flt, vis = query.filter, query.visibility
    tags = sorted(set(flt.tags_all))
    return {
        "f_now": query.now,
        "f_rank": vis.max_rank,
        "f_readable": sorted(vis.scopes) if vis.scopes is not None else [],
        "f_types": list(flt.types),
        "f_scopes": list(flt.scopes),
        "f_tags": tags,
        "f_tag_count": len(tags),
        "f_sensitivities": list(flt.sensitivities),
        "f_statuses": list(flt.statuses),
        "f_min_salience": flt.min_salience,
        "f_max_salience": flt.max_salience,
        "f_created_after": flt.created_after,
        "f_created_before": flt.created_before,
        "f_ids": list(flt.ids),
    }


Param = Callable[[str, bool], Any]  # (name, listed) -> a bind parameter (`filter_param`)


def _clauses(shape: FilterShape, param: Param) -> list[ColumnElement[bool]]:
    """The WHERE clauses of a query of `shape`, each value a parameter from `param`."""
    rank, readable = param("f_rank", False), param("f_readable", True)
    clauses = [read_rule(RecordRow, rank, readable if shape.scoped else None)]
    if shape.types:
        clauses.append(RecordRow.type.in_(param("f_types", True)))
    if shape.scopes:
        clauses.append(RecordRow.scope.in_(param("f_scopes", True)))
    if shape.tags:
        clauses.append(_tags_all(param("f_tags", True), param("f_tag_count", False)))
    if shape.sensitivities:
        clauses.append(RecordRow.sensitivity.in_(param("f_sensitivities", True)))
    if shape.statuses:
        status = status_column(shape.dialect, shape.active_wanted)
        clauses.append(status.in_(param("f_statuses", True)))
    now = param("f_now", False)
    if shape.min_salience:
        clauses.append(current_salience_sql(shape.dialect, now) >= param("f_min_salience", False))
    if shape.max_salience:
        clauses.append(current_salience_sql(shape.dialect, now) <= param("f_max_salience", False))
    if shape.created_after:
        clauses.append(RecordRow.created_at >= param("f_created_after", False))
    if shape.created_before:
        clauses.append(RecordRow.created_at < param("f_created_before", False))
    if shape.ids:
        clauses.append(RecordRow.id.in_(param("f_ids", True)))
    return clauses


_TYPES = {"f_now": Float(), "f_min_salience": Float(), "f_max_salience": Float()}


def filter_param(name: str, listed: bool, **value: Any) -> Any:
    """A clause's bind parameter. Its lists (types, scopes, statuses, ...) stay expanding
    lists on PostgreSQL too, one placeholder a value, though each length is then its own
    statement: as one array (`= ANY($1)`), PostgreSQL kept planning the prepared
    statements on every call instead of taking their generic plan, and a one-scope
    retrieve's admitted records took 0.82 ms to read instead of 0.43 (a one-value IN list
    is planned as an equality; the twenty-first session's statement log)."""
    if listed:
        return bindparam(name, expanding=True, **value)
    return bindparam(name, type_=_TYPES.get(name), **value)


@cache
def bound_clauses(shape: FilterShape) -> tuple[ColumnElement[bool], ...]:
    """The clauses of `shape` with their values left to parameters (`filter_params`)."""

    return tuple(_clauses(shape, filter_param))


def query_clauses(query: RecordQuery, dialect: str) -> list[ColumnElement[bool]]:
    """The WHERE clauses of `query` with its values (shared by listing, retrieval and
    vector search; the same clauses as `bound_clauses`)."""
    values = filter_params(query)

    def param(name: str, listed: bool) -> Any:
        return filter_param(name, listed, value=values[name])

    return _clauses(filter_shape(query, dialect), param)
