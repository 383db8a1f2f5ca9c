"""Clauses over the tables that repositories of every domain build on, owned by none of
them: the read rule over a records table (`visible`), a list of ids (`among`), an index
hint (`off_index`) and a record's current salience (`current_salience_sql`, the SQL twin
of `RecordRow.salience_at`). Being here, below the domains, is what lets the entity,
relation and salience repositories use them while records uses those repositories.

Records' own filter (`query_clauses`) is `app/records/clauses.py`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import (
    JSON,
    Boolean,
    Float,
    Integer,
    String,
    and_,
    any_,
    bindparam,
    case,
    func,
    literal,
    literal_column,
    or_,
    select,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.sql.elements import ColumnElement, UnaryExpression
from sqlalchemy.sql.operators import custom_op
from sqlalchemy.types import TypeDecorator

from app import json_codec
from app.decay_math import LN2, LN_SMALLEST
from app.enums import Status
from app.models import RecordRow
from app.trust import Visibility


def visible(vis: Visibility, rec: Any = RecordRow) -> ColumnElement[bool]:
    """`vis` as SQL over `rec` (the records table, or an alias of it in a join)."""
    return read_rule(rec, vis.max_rank, sorted(vis.scopes) if vis.scopes is not None else None)


def read_rule(rec: Any, max_rank: Any, scopes: Any | None) -> ColumnElement[bool]:
    """The read rule over `rec` for a ceiling and the readable scopes (None: every scope),
    given as values or as bind parameters (app/records/clauses.py builds statements once
    with the parameters)."""
    cond: ColumnElement[bool] = rec.sensitivity <= max_rank
    if scopes is not None:
        cond = and_(cond, or_(rec.scope.is_(None), rec.scope.in_(scopes)))
    return cond


def writable(vis: Visibility, rec: Any = RecordRow) -> ColumnElement[bool]:
    """`TrustContext.can_write` as SQL over `rec` (`vis` is the caller's `reading()`): the
    read rule, and unscoped rows only for a caller not restricted to scopes."""
    cond = visible(vis, rec)
    if vis.scopes is not None:
        cond = and_(cond, rec.scope.is_not(None))
    return cond


def is_episode(rec: Any = RecordRow) -> ColumnElement[bool]:
    """`rec` is an episode, written as the literal `type = 'episodic'` that the episodes'
    partial index (scope, created_at, id) is declared with (migration 0017). The planners
    take a partial index only for a condition that names its predicate: with the type as
    a bound value, SQLite never does, and PostgreSQL does in its custom plans but not its
    generic one, so a prepared statement was planned anew on every run (custom plans
    looked cheaper than the generic plan could be)."""
    return cast(ColumnElement[bool], rec.type == literal_column("'episodic'", String))


def written_int(n: int) -> ColumnElement[int]:
    """`n` written into the statement, not bound. PostgreSQL plans a LIMIT or OFFSET that
    is a parameter as if it kept a tenth of the rows, so a prepared statement's generic
    plan looked dearer than its custom plans and was never taken: the temporal
    neighbours' look-ups (~8 times dearer a look-up; 60 custom plans of 60 runs) and the
    latest episode (0 generic plans of 12) were planned again on every run."""
    return literal_column(str(n), Integer)


def off_index(column: ColumnElement[str]) -> ColumnElement[str]:
    """`column` as SQLite's planner will not use an index for (a unary +): the condition
    on it is then checked on the rows another index found."""
    return UnaryExpression(column, operator=custom_op("+"), type_=String())


def status_of(
    dialect: str, statuses: Sequence[str], column: ColumnElement[str] | None = None
) -> ColumnElement[str]:
    """The status column (`column`: of an aliased records table) as a filter on
    `statuses` should read it. Nearly every record is active, but SQLite's sampled
    statistics (ANALYZE under analysis_limit, no STAT4) count about a thousand records
    per status: with a few hundred candidate ids it then scanned the status index instead
    of looking the ids up (126 ms instead of 3 at 200,000 records). A unary + keeps SQLite
    off that index whenever active records are wanted; the index still finds the rare
    retracted or superseded ones."""
    return status_column(dialect, Status.active.value in statuses, column)


def status_column(
    dialect: str, active_wanted: bool, column: ColumnElement[str] | None = None
) -> ColumnElement[str]:
    status: ColumnElement[str] = RecordRow.__table__.c.status if column is None else column
    return off_index(status) if dialect == "sqlite" and active_wanted else status


def checked_only(cond: ColumnElement[bool]) -> ColumnElement[bool]:
    """`cond` under a unary + (SQLite): checked on the rows another condition's index
    found, never used to find them."""
    return UnaryExpression(cond.self_group(), operator=custom_op("+"), type_=Boolean())


def among(column: Any, ids: Sequence[str], dialect: str) -> ColumnElement[bool]:
    """`column` is one of `ids`. On PostgreSQL one array parameter (`= ANY`): a few
    hundred candidate ids as separate parameters cost more to bind and parse than the
    index look-ups they drive."""
    return _among(column, dialect, None, value=sorted(set(ids)))


def among_param(column: Any, name: str, dialect: str) -> ColumnElement[bool]:
    """`among` with the ids left to the bind parameter `name` (a list given at execution),
    for statements built once."""
    return _among(column, dialect, name)


class TextArray(TypeDecorator[Any]):
    """A list of strings bound as a PostgreSQL text array written here, as one string the
    server reads (`{"a","b"}`): psycopg's list dumper searched every element for
    characters to quote with a regular expression, ~1.9 µs an element (the 200-300 ids
    of an all-scope retrieve's vector search and header look-ups: ~0.5 ms a request)."""

    impl = postgresql.ARRAY(String)
    cache_ok = True

    def bind_processor(self, dialect: Any) -> Any:
        return array_literal


def array_literal(values: Sequence[str | None] | None) -> str | None:
    """PostgreSQL's text form of a one-dimensional array of strings, every element quoted
    (NULL for None)."""
    if values is None:
        return None
    if not values:
        return "{}"
    if None not in values:  # the common case: no element to escape (ids, scopes, terms)
        joined = '","'.join(values)  # type: ignore[arg-type]
        if '"' not in joined and "\\" not in joined:
            return '{"' + joined + '"}'
    quoted = (
        "NULL" if v is None else '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        for v in values
    )
    return "{" + ",".join(quoted) + "}"


def _among(column: Any, dialect: str, name: str | None, **value: Any) -> ColumnElement[bool]:
    if dialect == "postgresql":
        array = bindparam(name, type_=TextArray(), **value)
        cond: ColumnElement[bool] = column == any_(array)
        return cond
    listed: ColumnElement[bool] = column.in_(bindparam(name, expanding=True, **value))
    return listed


def visible_param(rec: Any, scoped: bool) -> ColumnElement[bool]:
    """`visible` with the ceiling and the readable scopes (`scoped`: the caller reads some
    scopes only) left to the bind parameters `rank` and `readable` (`visibility_params`),
    for statements built once. An expanding list, not an array: see records.clauses
    `_param`."""
    readable: Any = bindparam("readable", expanding=True) if scoped else None
    return read_rule(rec, bindparam("rank"), readable)


def visibility_params(vis: Visibility) -> dict[str, Any]:
    """The values of `visible_param`'s parameters."""
    return {"rank": vis.max_rank, "readable": sorted(vis.scopes) if vis.scopes is not None else []}


def greatest(dialect: str, a: Any, b: Any) -> ColumnElement[float]:
    # SQLite's multi-argument max() is a scalar function; PostgreSQL calls it greatest().
    return func.max(a, b) if dialect == "sqlite" else func.greatest(a, b)


def current_salience_sql(
    dialect: str, now: float | ColumnElement[float], table: Any = RecordRow
) -> ColumnElement[float]:
    """`app.decay_math.current_salience` in SQL, branch for branch, at `now` (a value or
    a bind parameter). CASE branches are evaluated lazily, so `ln` never sees 0 and the
    product never underflows."""
    at = now if isinstance(now, ColumnElement) else literal(now, Float)
    s0 = table.salience_base
    ratio = greatest(dialect, at - table.salience_t0, 0.0) / table.half_life_s
    linear_factor = 1.0 - ratio / 2.0
    is_linear = table.decay_curve == "linear"
    decayed = case(
        (s0 <= 0.0, 0.0),
        (and_(is_linear, linear_factor <= 0.0), 0.0),
        (and_(is_linear, func.ln(s0) + func.ln(linear_factor) < LN_SMALLEST), 0.0),
        (is_linear, s0 * linear_factor),
        (func.ln(s0) - ratio * LN2 < LN_SMALLEST, 0.0),
        else_=s0 * func.power(2.0, -ratio),
    )
    floored = greatest(dialect, decayed, table.min_salience)
    expired = and_(table.max_age_s.is_not(None), table.created_at + table.max_age_s <= at)
    return case((table.pinned.is_(True), table.salience_base), (expired, 0.0), else_=floored)


def json_rows(dialect: str, rows: Any) -> ColumnElement[Any]:
    """The rows of the subquery `rows`, in its order, as one JSON array of arrays (one per
    row, its columns in order; [] when there is none): a scalar subquery for a column of
    the enclosing statement (`rows` may correlate with it), so that a record and its
    dependent rows come back in one round trip. SQLite writes a REAL into JSON with 15
    significant digits, so there Float columns travel as text with 17 (exact; printf
    needs its "!" flag to write more than 16) and JSON columns as JSON (`json()`)."""
    if dialect == "sqlite":
        items = [_sqlite_json_item(c) for c in rows.c]
        listed = func.json_group_array(func.json_array(*items))
    else:
        item = func.json_build_array(*rows.c)
        listed = func.coalesce(func.json_agg(item), literal_column("'[]'::json"))
    return select(listed).select_from(rows).correlate(RecordRow).scalar_subquery()


def _sqlite_json_item(column: Any) -> ColumnElement[Any]:
    if isinstance(column.type, Float):
        return func.printf("%!.17g", column)
    if isinstance(column.type, JSON):
        return func.json(column)
    return column  # type: ignore[no-any-return]


def rows_of_json(listed: Any) -> list[list[Any]]:
    """The rows a `json_rows` column held (SQLite returns its text, psycopg the parsed
    JSON), sorted: each row's first column is its id."""
    rows: list[list[Any]] = json_codec.loads(listed) if isinstance(listed, str) else (listed or [])
    return sorted(rows)
