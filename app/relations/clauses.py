"""Clauses on the relation table that other domains' queries build on (as
app/records/clauses.py does for records): published, so a ranking query need not reach
into the relations repository."""

from __future__ import annotations

from functools import cache
from typing import Any

from sqlalchemy import Select, bindparam, exists, or_, select
from sqlalchemy.orm import InstrumentedAttribute, aliased
from sqlalchemy.sql.elements import ColumnElement

from app.models import RecordRow, RelationRow
from app.models.clauses import among_param, json_rows, off_index, rows_of_json, visible_param


def mentions_any(
    record_id: InstrumentedAttribute[str], named: str | Select[Any], dialect: str
) -> ColumnElement[bool]:
    """Whether the record `record_id` (a column of the enclosing query) has a
    `mentions_entity` edge to one of the entities `named`: the ids the bind parameter of
    that name takes at execution, or those the subquery selects (the caller has checked
    that they are live and readable: an entity the caller may not read must lend nothing,
    so a ranking cannot hint at it). A correlated EXISTS that walks the record's own edges
    (a few each): a name common across scopes can have hundreds of entities with thousands
    of mentions, so the target side is only checked."""
    target: ColumnElement[str] = RelationRow.__table__.c.target_id
    if not isinstance(named, str):
        among: ColumnElement[bool] = (off_index(target) if dialect == "sqlite" else target).in_(
            named
        )
    elif dialect == "sqlite":
        among = off_index(target).in_(bindparam(named, expanding=True))
    else:
        among = among_param(target, named, dialect)
    return exists().where(
        RelationRow.source_id == record_id,
        RelationRow.predicate == "mentions_entity",
        among,
    )


# -- edges read with their records (one round trip for a record and its edges) ----------

_EDGE = aliased(RelationRow, name="edge")
_EDGE_END = aliased(RecordRow, name="edge_end")
EVERY_EDGE = 2**31 - 1  # `edge_limit` when a read shows all of a record's edges
Edges = dict[str, list[RelationRow]]


@cache
def edges_column(dialect: str, scoped: bool) -> ColumnElement[Any]:
    """The `outgoing` edges of the statement's own `records` row (correlated), the first
    `edge_limit` by id, as one JSON array of [id, predicate, target_id, weight,
    created_at] (`edges_of` reads it): a record and its edges in one round trip. Its
    parameters: `visibility_params` and `edge_limit`."""
    picked = (
        select(_EDGE.id, _EDGE.predicate, _EDGE.target_id, _EDGE.weight, _EDGE.created_at)
        .outerjoin(_EDGE_END, _EDGE_END.id == _EDGE.target_id)
        .where(
            _EDGE.source_id == RecordRow.id,
            or_(_EDGE_END.id.is_(None), visible_param(_EDGE_END, scoped)),
        )
        .order_by(_EDGE.id)
        .limit(bindparam("edge_limit"))
        .correlate(RecordRow)
        .subquery("edges")
    )
    return json_rows(dialect, picked)


def edges_of(source_id: str, listed: Any) -> list[RelationRow]:
    """The edges `edges_column` listed for `source_id`, by id, as (unsaved) rows."""
    return [
        RelationRow(
            id=int(rid),
            source_id=source_id,
            predicate=predicate,
            target_id=target_id,
            weight=float(weight),
            created_at=float(created_at),
        )
        for rid, predicate, target_id, weight, created_at in rows_of_json(listed)
    ]
