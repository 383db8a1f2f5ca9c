"""Clauses on the relation table that other domains' queries build on (as
app/records/clauses.py does for records): published, so a ranking query need not reach
into the relations repository."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from sqlalchemy import bindparam, exists, func, or_, select, text
from sqlalchemy.orm import InstrumentedAttribute, aliased
from sqlalchemy.sql.elements import ColumnElement

from app.models import RecordRow, RelationRow
from app.models.clauses import among_param, off_index, visible_param


def mentions_any(
    record_id: InstrumentedAttribute[str], name: str, dialect: str
) -> ColumnElement[bool]:
    """Whether the record `record_id` (a column of the enclosing query) has a
    `mentions_entity` edge to one of the entities whose ids the bind parameter `name`
    takes at execution (the caller has checked that they are live and readable: an entity
    the caller may not read must lend nothing, so a ranking cannot hint at it). A
    correlated EXISTS that walks the record's own edges (a few each): a name common across
    scopes can have hundreds of entities with thousands of mentions, so the target side is
    only checked."""
    target: ColumnElement[str] = RelationRow.__table__.c.target_id
    named = (
        off_index(target).in_(bindparam(name, expanding=True))
        if dialect == "sqlite"
        else among_param(target, name, dialect)
    )
    return exists().where(
        RelationRow.source_id == record_id,
        RelationRow.predicate == "mentions_entity",
        named,
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
    parameters: `visibility_params` and `edge_limit`. SQLite writes a REAL into JSON
    with 15 digits, so there the floats travel as text with 17 (exact; printf needs
    its "!" flag to write more than 16)."""
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
    c = picked.c
    if dialect == "sqlite":
        exact = [func.printf("%!.17g", c.weight), func.printf("%!.17g", c.created_at)]
        listed = func.json_group_array(func.json_array(c.id, c.predicate, c.target_id, *exact))
    else:
        item = func.json_build_array(c.id, c.predicate, c.target_id, c.weight, c.created_at)
        listed = func.coalesce(func.json_agg(item), text("'[]'::json"))
    return select(listed).select_from(picked).correlate(RecordRow).scalar_subquery()


def edges_of(source_id: str, listed: Any) -> list[RelationRow]:
    """The edges `edges_column` listed for `source_id`, by id, as (unsaved) rows."""
    items = json.loads(listed) if isinstance(listed, str) else (listed or [])
    return [
        RelationRow(
            id=int(rid),
            source_id=source_id,
            predicate=predicate,
            target_id=target_id,
            weight=float(weight),
            created_at=float(created_at),
        )
        for rid, predicate, target_id, weight, created_at in sorted(items)
    ]
