"""Ranking candidates as light rows (`RecordHeader`): what ranking needs of a record
(id, type, scope, sensitivity, times, current salience) without decoding its JSON
columns. The statement is built once per filter shape (app/records/clauses.py); the
neighbour look-ups (neighbour_repository.py) read the same columns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any, NamedTuple

from sqlalchemy import (
    CTE,
    Select,
    Subquery,
    and_,
    bindparam,
    case,
    exists,
    join,
    literal,
    select,
    true,
)
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from app import clock
from app.db import column_rows, dialect_of, prepared
from app.decay_math import current_salience, expiry
from app.entities import clauses as name_clauses
from app.entities.clauses import NameMatch
from app.models import RecordRow
from app.models.clauses import among_param
from app.records.clauses import FilterShape, bound_clauses, filter_params, filter_shape
from app.records.filters import RecordQuery
from app.relations.clauses import mentions_any
from app.trust import Visibility


class RecordHeader(NamedTuple):
    """What ranking needs of a record, without decoding its JSON columns. A named tuple:
    a query retrieve builds one per candidate (200 and more), and a frozen dataclass cost
    three times as much to build (1.6 against 0.4 µs)."""

    id: str
    type: str
    scope: str | None
    sensitivity: int
    created_at: float
    salience: float  # current salience at the request's `now`
    occurred_at: float | None = None  # when an episodic record's memory happened
    mentions_named: bool = False  # mentions one of the entities the query names


@dataclass
class CarriedHeaders:
    """Asked of a vector search that checks its candidates against the filters in SQL:
    read their header columns in that same statement (`mentioning` as for `headers`),
    into `rows` (record id → the HEADER_WIDTH values), so that they need no look-up of
    their own. Headers are built (`header_from`) only for the candidates kept: the
    search checks more than it keeps."""

    mentioning: Sequence[str]
    rows: dict[str, Sequence[Any]] = field(default_factory=dict)
    # Records the request holds headers of already, which passed the same filters (the
    # lexical candidates'): SQLite's check counts them as passing without a look-up.
    known: frozenset[str] = frozenset()


def header_of(row: RecordRow, now: float) -> RecordHeader:
    salience = row.salience_at(now)
    return RecordHeader(row.id, row.type, row.scope, row.sensitivity, row.created_at, salience)


def _event_time(memory_type: str, first_event: str | None, created_at: float) -> float | None:
    """When an episodic record's memory happened: its first timeline event's time, or its
    capture time when the capture gave none (an agent recording as it goes)."""
    if memory_type != "episodic":
        return None
    occurred = _epoch_of_text(first_event)
    return created_at if occurred is None else occurred


@lru_cache(maxsize=16384)
def _epoch_of_text(text: str | None) -> float | None:
    """`clock.epoch_of`, remembered: the same records' event times are parsed on every
    retrieve of their scope (~0.7 µs each; a hit costs a dictionary look-up)."""
    return clock.epoch_of(text)


def _first_event_time() -> ColumnElement[str]:
    """The first timeline event's time of an episodic record's payload (JSON path on
    both stores), as text."""
    path: ColumnElement[str] = RecordRow.payload[("timeline", 0, "t")].as_string()
    return path


def headers(
    session: Session,
    ids: Sequence[str],
    records: RecordQuery,
    mentioning: Sequence[str] = (),
) -> dict[str, RecordHeader]:
    """The records among `ids` that `records` admits, as light ranking candidates; each
    flagged when it mentions one of the entities `mentioning` (live ones the caller may
    read in full: the caller checks)."""
    rows = header_rows(session, ids, records, mentioning)
    return {rid: header_from(records.now, values) for rid, values in rows.items()}


def header_rows(
    session: Session,
    ids: Sequence[str],
    records: RecordQuery,
    mentioning: Sequence[str] = (),
) -> dict[str, Sequence[Any]]:
    """`headers`' columns, unbuilt: record id → the HEADER_WIDTH values."""
    if not ids:
        return {}
    stmt = _headers_statement(filter_shape(records, dialect_of(session)), bool(mentioning))
    params = {**filter_params(records), **mentioning_params(mentioning), "ids": sorted(set(ids))}
    return {values[0]: values for values in column_rows(session, stmt, params).all()}


@cache
def _headers_statement(shape: FilterShape, mentioning: bool) -> Select[Any]:
    """Built once per shape: the values come as parameters."""
    among_ids = among_param(RecordRow.id, "ids", shape.dialect)
    columns = header_columns(shape.dialect, mentioning)
    return select(*columns).where(among_ids, *bound_clauses(shape))


class Admitted(NamedTuple):
    """Every record a request admits (`every_admitted`)."""

    headers: dict[str, RecordHeader]
    extra: tuple[Any, ...]  # the uncorrelated `extra` columns' values (empty: none admitted)
    # record id → the `versions` column's value (None: not asked for)
    versions: dict[str, Any] | None
    # what the `names` look-up found; none when not asked for, or when no record is
    # admitted (then nothing is ranked: the matches are read with the admitted rows)
    names: list[NameMatch]


class NameLookUp(NamedTuple):
    """An entity-name look-up (`entities.repository.matching_terms`) to run inside the
    statement that reads the admitted records: those that mention a live entity the
    caller may read are flagged (`mentions_named`), and the matches come back with them."""

    terms: Sequence[str]
    scopes: Sequence[str] | None
    vis: Visibility


def every_admitted(
    session: Session,
    records: RecordQuery,
    names: NameLookUp | None,
    limit: int,
    extra: tuple[ColumnElement[Any], ...] = (),
    versions: ColumnElement[Any] | None = None,
) -> Admitted | None:
    """The headers of every record `records` admits, the values of the uncorrelated
    `extra` columns read with them, each record's value of the `versions` column (the
    version of its stored vector, for PostgreSQL's vector cache) and what the `names`
    look-up found (one statement: the look-up had been a round trip of its own); None
    when more than `limit` records are admitted (for a request whose scopes are small:
    see `CandidateSearch.find`)."""
    shape = filter_shape(records, dialect_of(session))
    stmt = _admitted_statement(shape, NameShape.of(names), extra, versions)
    params = {**filter_params(records), "limit": limit + 1}
    if names is not None:
        params |= name_params(names, shape.dialect)
    rows = column_rows(session, stmt, params).all()
    if len(rows) > limit:
        return None
    headers = {h.id: h for h in (header_from(records.now, row[:HEADER_WIDTH]) for row in rows)}
    end = HEADER_WIDTH + len(extra)
    found = {row[0]: row[end] for row in rows} if versions is not None else None
    matches = name_clauses.matches_of_json(rows[0][-1]) if rows and names is not None else []
    return Admitted(headers, tuple(rows[0][HEADER_WIDTH:end]) if rows else (), found, matches)


class NameShape(NamedTuple):
    """What a statement with a name look-up inside it depends on (it is built once per
    shape): whether the look-up is narrowed to scopes, and whether the caller's own
    readable scopes are."""

    in_scopes: bool
    scoped_reader: bool

    @staticmethod
    def of(names: NameLookUp | None) -> NameShape | None:
        return NameShape(names.scopes is not None, names.vis.scopes is not None) if names else None


def name_params(names: NameLookUp, dialect: str) -> dict[str, Any]:
    """The parameters of a statement with the look-up `names` inside (`InlineNames`)."""
    return name_clauses.matching_params(names.terms, names.scopes, names.vis, dialect)


class InlineNames(NamedTuple):
    """An entity-name look-up inside a statement that reads records (saving a retrieve
    its own round trip): `named`, the look-up (a CTE run once); `found`, its one-row
    summary (matches: its rows as JSON, NULL when none), to be joined beside the
    statement's rows; `mentions`, whether the enclosing query's record mentions a match
    the caller may read (its edges are walked only when there is one: most queries name
    none)."""

    named: CTE
    found: Subquery
    mentions: ColumnElement[bool]


def inline_names(dialect: str, names: NameShape) -> InlineNames:
    named = name_clauses.matching_select(dialect, *names).cte("named").prefix_with("MATERIALIZED")
    found = name_clauses.matches_summary(named, dialect)
    readable = select(named.c.record_id).where(named.c.live)
    # uncorrelated: evaluated once a statement, and most often false
    mentions = and_(exists(readable), mentions_any(RecordRow.id, readable, dialect))
    return InlineNames(named, found, mentions)


@cache
def _admitted_statement(
    shape: FilterShape,
    names: NameShape | None,
    extra: tuple[ColumnElement[Any], ...],
    versions: ColumnElement[Any] | None,
) -> Select[Any]:
    if names is None:
        stmt = select(*header_columns(shape.dialect, False), *extra)
    else:
        inline = inline_names(shape.dialect, names)
        stmt = select(*header_columns(shape.dialect, inline.mentions), *extra)
        stmt = stmt.select_from(join(RecordRow, inline.found, true()))
    if versions is not None:
        stmt = stmt.add_columns(versions)
    if names is not None:
        stmt = stmt.add_columns(inline.found.c.matches)  # last: `every_admitted` reads it there
    # One plan whatever the values (the scope index, a few hundred rows): prepared.
    return prepared(stmt.where(*bound_clauses(shape)).limit(bindparam("limit")))


HEADER_WIDTH = 15  # the columns of header_columns
_MENTIONING = "mentioning_ids"


def mentioning_params(mentioning: Sequence[str]) -> dict[str, list[str]]:
    """The parameter of `header_columns(..., mentioning=True)`: the entities' ids."""
    return {_MENTIONING: sorted(set(mentioning))}


Mentioning = bool | ColumnElement[bool]


def header_columns(dialect: str, mentioning: Mentioning) -> list[Any]:
    """The columns `header_from` reads, in its order (HEADER_WIDTH of them): what ranking
    needs of a record of the enclosing query's `records` table; whether it mentions one
    of the entities of `mentioning_params` (True), none (False), or as the expression
    given says (`InlineNames.mentions`)."""
    mentions: ColumnElement[bool]
    if mentioning is True:
        mentions = mentions_any(RecordRow.id, _MENTIONING, dialect)
    elif mentioning is False:
        mentions = literal(False)
    else:
        mentions = mentioning
    r = RecordRow
    # The payload's JSON is read only for an episode whose event time is not stored
    # (models.RecordRow.occurred_at): extracting it was ~1.4 µs a row on SQLite.
    unstored = and_(r.occurred_at.is_(None), r.type == "episodic")
    event: ColumnElement[Any] = case((unstored, _first_event_time()))
    stored = r.occurred_at
    return [r.id, r.type, r.scope, r.sensitivity, r.created_at, stored, event, mentions,
            *_DECAY_COLUMNS]  # fmt: skip


def candidate_columns(dialect: str, mentioning: Mentioning, with_headers: bool) -> list[Any]:
    """`header_columns`, or only the first of them (the id) when the caller has the
    headers already (a small-scope retrieve read every admitted record's)."""
    columns = header_columns(dialect, mentioning)
    return columns if with_headers else columns[:1]


def header_from(now: float, values: Sequence[Any]) -> RecordHeader:
    """A header from the HEADER_WIDTH values of `header_columns`, salience at `now`."""
    rid, typ, scope, sens, created, stored, event, mentioning, *decay = values
    salience = _salience(now, created, *decay)
    occurred = stored if stored is not None else _event_time(typ, event, created)
    return RecordHeader(rid, typ, scope, sens, created, salience, occurred, bool(mentioning))


_DECAY_COLUMNS = (
    RecordRow.salience_base,
    RecordRow.salience_t0,
    RecordRow.half_life_s,
    RecordRow.decay_curve,
    RecordRow.min_salience,
    RecordRow.pinned,
    RecordRow.max_age_s,
)


def _salience(
    now: float,
    created: float,
    s0: float,
    t0: float,
    half: float,
    curve: str,
    floor: float,
    pinned: bool,
    max_age: float | None,
) -> float:
    """`RecordRow.salience_at` over the columns of `_DECAY_COLUMNS`."""
    return current_salience(
        s0,
        t0,
        now,
        half_life_s=half,
        curve=curve,
        min_salience=floor,
        pinned=pinned,
        expires_at=expiry(created, max_age),
    )
