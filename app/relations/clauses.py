"""Clauses on the relation table that other domains' queries build on (as
app/records/clauses.py does for records): published, so a ranking query need not reach
into the relations repository."""

from __future__ import annotations

from sqlalchemy import bindparam, exists
from sqlalchemy.orm import InstrumentedAttribute
from sqlalchemy.sql.elements import ColumnElement

from app.models import RelationRow
from app.models.clauses import among_param, off_index


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
