"""A scope's latest live episode, which a new episode may answer (app/capture/replies.py):
one scope at a time for a capture, every scope of a batch at once.

Both walk the episodes' own index (scope, created_at, id) WHERE type = 'episodic'
(migration 0017) backwards, one step a scope."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache

from sqlalchemy import Select, bindparam, func, select
from sqlalchemy.orm import Session, aliased

from app.db import column_rows, dialect_of, prepared
from app.enums import LIVE_STATUSES
from app.models import RecordRow
from app.models.clauses import TextArray, is_episode, status_of, written_int
from app.records.payload_json import StoredJson

Episode = tuple[str, StoredJson | None, int, float]  # id, payload, sensitivity, created_at


def latest_episode(session: Session, scope: str, other_than: str) -> Episode | None:
    """The live episodic record of `scope` captured last, other than `other_than`; None
    when the scope holds none."""
    stmt = _latest_episode_statement(dialect_of(session))
    params = {"scope": scope, "other_than": other_than, "statuses": list(LIVE_STATUSES)}
    row = column_rows(session, stmt, params).first()
    return (row[0], row[1], row[2], row[3]) if row is not None else None


def latest_episodes(session: Session, scopes: Sequence[str]) -> dict[str, Episode]:
    """scope → its latest live episode, for those of `scopes` that hold one: one
    statement for a batch's scopes, where a look-up per scope had been a round trip per
    item (at 100,000 records on PostgreSQL, 391 of them a batch of 500, each waiting
    behind the rows the batch sent before it)."""
    if not scopes:
        return {}
    dialect = dialect_of(session)
    listed = sorted(set(scopes))
    params = {
        "scopes": json.dumps(listed) if dialect == "sqlite" else listed,
        "statuses": list(LIVE_STATUSES),
    }
    rows = column_rows(session, _latest_episodes_statement(dialect), params)
    return {row[4]: (row[0], row[1], row[2], row[3]) for row in rows}


@cache
def _latest_episode_statement(dialect: str) -> Select[str, dict[str, object], int, float]:
    """Built once per dialect (building it and its cache key cost more than running it);
    prepared on PostgreSQL: whatever the scope, its plan is one backward walk of the
    episodes' index. (Before it, SQLite had to be kept off the type index, which it
    walked through every scope's episodes, newest first.)"""
    r = RecordRow
    stmt = (
        select(r.id, r.payload, r.sensitivity, r.created_at)
        .where(
            r.scope == bindparam("scope"),
            is_episode(),  # the episodes' own index, walked backwards (migration 0017)
            status_of(dialect, LIVE_STATUSES).in_(bindparam("statuses", expanding=True)),
            r.id != bindparam("other_than"),
        )
        # The tie-break on id is the index's own order, and no other index gives it:
        # without it SQLite with no statistics (a new store) walked the (type, created_at)
        # index for the literal type instead, every scope's episodes newest first.
        .order_by(r.created_at.desc(), r.id.desc())
        .limit(written_int(1))  # for PostgreSQL's generic plan
    )
    return prepared(stmt)


@cache
def _latest_episodes_statement(
    dialect: str,
) -> Select[str, dict[str, object], int, float, str | None]:
    """Each listed scope's latest episode id as `_latest_episode_statement` finds it (a
    correlated look-up a scope), its row joined by primary key. The scopes are one
    parameter: a JSON list read by json_each on SQLite (one statement text whatever their
    number, prepared once), a text array on PostgreSQL."""
    if dialect == "sqlite":
        listed = func.json_each(bindparam("scopes")).table_valued("value").alias("listed")
    else:
        scopes = bindparam("scopes", type_=TextArray())
        listed = func.unnest(scopes).table_valued("value").render_derived(name="listed")
    walked = aliased(RecordRow, name="walked")
    latest = (
        select(walked.id)
        .where(
            walked.scope == listed.c.value,
            is_episode(walked),
            status_of(dialect, LIVE_STATUSES, walked.status.expression).in_(
                bindparam("statuses", expanding=True)
            ),
        )
        .order_by(walked.created_at.desc(), walked.id.desc())
        .limit(written_int(1))
        .correlate(listed)
        .scalar_subquery()
    )
    r = RecordRow
    return select(r.id, r.payload, r.sensitivity, r.created_at, r.scope).select_from(
        listed.join(r, r.id == latest)
    )
