"""The entity-name look-up of a retrieve as a published statement part: run alone
(`entities.repository.matching_terms`) or inside the statement that reads a small scope's
records (`retrieve.header_repository.every_admitted`), saving that retrieve a round trip."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import CTE, Select, Subquery, Text, and_, bindparam, case, cast, func, select
from sqlalchemy.sql.elements import ColumnElement

from app.enums import LIVE_STATUSES
from app.models import EntityTermRow, RecordRow
from app.models.clauses import among_param, visibility_params, visible_param
from app.trust import Visibility


@dataclass(frozen=True)
class NameMatch:
    """An entity record a query word (or run of words) names."""

    record_id: str
    term: str
    readable: bool  # live, and readable in full by the caller


def readable_ids(matches: Iterable[NameMatch]) -> list[str]:
    """The entities among `matches` the caller may read in full (they lend a lift, and
    the records that mention them are flagged: headers' mentions_named), sorted."""
    return sorted({m.record_id for m in matches if m.readable})


def matching_select(dialect: str, in_scopes: bool, scoped_reader: bool) -> Select[str, str, bool]:
    """The look-up of `matching_terms` (record_id, term, live: readable in full), its
    values left to the parameters of `matching_params`."""
    live = and_(
        among_param(RecordRow.status, "statuses", dialect),
        visible_param(RecordRow, scoped_reader),
    ).label("live")
    stmt = (
        select(EntityTermRow.record_id, EntityTermRow.term, live)
        .join(RecordRow, RecordRow.id == EntityTermRow.record_id)
        .where(_among_listed(EntityTermRow.term, "terms", dialect))
    )
    if in_scopes:
        stmt = stmt.where(_among_listed(EntityTermRow.scope, "scopes", dialect))
    return stmt


def _among_listed(column: Any, name: str, dialect: str) -> ColumnElement[bool]:
    """`column` among the values of the list parameter `name`. On SQLite the list is one
    JSON text (`matching_params`), read by json_each, rather than an expanding list: the
    statement's text is then the same however many words a query has, and SQLite
    prepares it once (the sqlite3 module keeps prepared statements by their text). With
    one text per number of words, a query retrieve's BM25 statement, which holds the
    look-up, was prepared anew on most requests."""
    if dialect != "sqlite":
        return among_param(column, name, dialect)
    listed = func.json_each(bindparam(name)).table_valued("value")
    among: ColumnElement[bool] = column.in_(select(listed.c.value))
    return among


def matching_params(
    terms: Sequence[str], scopes: Sequence[str] | None, vis: Visibility, dialect: str
) -> dict[str, Any]:
    """The values of the look-up's parameters (`matching_select`)."""
    looked_up = sorted(set(terms))
    within = [*(scopes or ()), ""]
    return {
        "terms": json.dumps(looked_up) if dialect == "sqlite" else looked_up,
        "scopes": json.dumps(within) if dialect == "sqlite" else within,
        "statuses": list(LIVE_STATUSES),
        **visibility_params(vis),
    }


def matches_of_json(text: str | None) -> list[NameMatch]:
    """The matches of `matches_summary`'s JSON text (None: there were none)."""
    rows: list[list[Any]] = json.loads(text) if text else []
    return [NameMatch(str(rid), str(term), bool(ok)) for rid, term, ok in rows]


def matches_summary(named: CTE, dialect: str) -> Subquery:
    """One row about the look-up `named` (a CTE of `matching_select`), for a statement
    that reads it beside its own rows: `matches`, its rows as one JSON text (NULL when
    none). Joined once, not a subquery per row: SQLite evaluated those again for each
    row."""
    row = (named.c.record_id, named.c.term, named.c.live)
    if dialect == "sqlite":
        agg: ColumnElement[Any] = func.json_group_array(func.json_array(*row))
    else:
        agg = func.json_agg(func.json_build_array(*row))
    found = func.count() > 0
    return select(cast(case((found, agg)), Text).label("matches")).subquery("found")
