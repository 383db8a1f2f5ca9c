"""Temporal neighbours of episodic hits: the episodes captured just before and after
each seed in its scope (one statement for all seeds, correlated index look-ups)."""

from __future__ import annotations

from collections.abc import Container, Sequence
from functools import cache
from typing import Any

from sqlalchemy import Integer, Select, and_, any_, case, literal_column, or_, select
from sqlalchemy.dialects.postgresql import array
from sqlalchemy.orm import Session, aliased
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.selectable import CTE

from app.db import column_rows, dialect_of, prepared
from app.enums import MemoryType
from app.models import RecordRow
from app.models.clauses import among_param
from app.records.clauses import FilterShape, bound_clauses, filter_params, filter_shape
from app.records.filters import RecordQuery
from app.retrieve.header_repository import (
    HEADER_WIDTH,
    RecordHeader,
    header_columns,
    header_from,
    mentioning_params,
)

_SEED = aliased(RecordRow, name="seed")  # built once: an alias per call costs CPU
# Episodes looked at on each side of a seed beyond the `radius` it needs: the look-ups
# ignore the request's filters (their statement is built once), so a spare lets one
# filtered-out episode per side pass without a walk under the filters.
_SPARE = 1


Neighbours = dict[str, list[tuple[str, int]]]


def temporal_neighbours(
    session: Session,
    seeds: Sequence[RecordHeader],
    records: RecordQuery,
    radius: int = 1,
    mentioning: Sequence[str] = (),
    known: Container[str] = (),
) -> tuple[Neighbours, dict[str, RecordHeader]]:
    """seed id → (id, distance) of the episodic records captured up to `radius` places
    before and after it in the same scope (among those passing the filters), and the
    headers of the neighbours picked, those in `known` aside (flagged as
    `repository.headers` flags them for `mentioning`).

    One statement for all scoped seeds (and one for unscoped ones): per seed, the
    `radius + _SPARE` nearest episodes on each side by index look-ups that know no filter
    (built once per shape), joined by primary key to their headers, which the filters
    (appearing once) mark as passing or not. A side whose every candidate the filters
    left out is walked again under the filters, for those seeds only."""
    shape = filter_shape(records, dialect_of(session))
    params = {**filter_params(records), **mentioning_params(mentioning)}
    mentions = bool(mentioning)
    out: Neighbours = {}
    found: dict[str, Sequence[Any]] = {}  # passing candidates' header columns, unbuilt
    for in_scope in (True, False):
        ids = [s.id for s in seeds if (s.scope is not None) is in_scope]
        if not ids:
            continue
        stmt = _candidates_statement(shape, mentions, in_scope, radius + _SPARE, exact=False)
        candidates = _candidates(session, stmt, {**params, "seed_ids": ids}, found)
        walk_again = []
        for seed_id, slot_ids in candidates.items():
            picked = _picked(slot_ids, found, radius)
            if picked is None:
                walk_again.append(seed_id)
            else:
                out[seed_id] = picked
        if walk_again:
            # Look-ups under the filters: every candidate they find passes, so a side
            # runs out only where the scope does.
            stmt = _candidates_statement(shape, mentions, in_scope, radius, exact=True)
            again = {**params, "seed_ids": walk_again}
            candidates = _candidates(session, stmt, again, found)
            out.update(
                (sid, _picked(slots, found, radius) or []) for sid, slots in candidates.items()
            )
    # Headers built only for the neighbours picked that the caller lacks: a statement
    # reads up to 2 x (radius + _SPARE) candidates a seed (~5 µs a header built).
    wanted = {rid for near in out.values() for rid, _ in near if rid not in known}
    return out, {rid: header_from(records.now, found[rid]) for rid in wanted}


@cache
def _candidates_statement(
    shape: FilterShape, mentioning: bool, in_scope: bool, width: int, *, exact: bool
) -> Select[Any]:
    """Per seed of the `seed_ids` parameter: its candidate slots (`_near_lookups`: the
    look-ups know no filter but the type, or with `exact` every filter), whether the
    candidate passes the filters, and its header; built once per shape."""
    clauses = bound_clauses(shape)
    filters = (*clauses, _episodic()) if exact else (_episodic(),)
    near = _near_lookups(shape.dialect, in_scope, width, filters, "near_exact" if exact else "near")
    slots = [c for c in near.c if c.name != "seed_id"]
    # The filters are a column, not the join's condition: in the condition, SQLite
    # without statistics (a new store) read the whole scope for each seed through the
    # scope index instead of looking each candidate up by primary key.
    passes = case((and_(*clauses), True), else_=False)
    columns = header_columns(shape.dialect, mentioning)
    # Prepared on PostgreSQL (parsing and planning it were ~0.7 ms of server time an
    # all-scope retrieve): its plan is the seeds by primary key and, per seed, walks of the
    # (scope, created_at, id) index, whatever the values; the seeds are one array.
    return prepared(
        select(near.c.seed_id, *slots, passes, *columns).outerjoin(
            RecordRow, _among_slots(shape.dialect, slots)
        )
    )


def _candidates(
    session: Session, stmt: Select[Any], params: dict[str, Any], found: dict[str, Sequence[Any]]
) -> dict[str, list[str | None]]:
    """seed id → its candidates' ids (the slots of `stmt`, NULL where the scope has no
    more); the header columns of the candidates passing the filters are added to `found`."""
    width = len(stmt.selected_columns) - HEADER_WIDTH - 2  # seed_id and `passes` aside
    candidates: dict[str, list[str | None]] = {}
    for seed_id, *values in column_rows(session, stmt, params).all():
        candidates[seed_id] = values[:width]
        passed, header = values[width], values[width + 1 :]
        if header[0] is not None and passed:
            found[header[0]] = header
    return candidates


def _picked(
    slot_ids: Sequence[str | None], passing: Container[str], radius: int
) -> list[tuple[str, int]] | None:
    """(id, distance) of a seed's filtered neighbours from its candidates (slots: before
    nearest-first, then after nearest-first), or None when a side ran out of candidates
    that pass while more episodes may lie beyond them."""
    width = len(slot_ids) // 2
    picked: list[tuple[str, int]] = []
    for side in (slot_ids[:width], slot_ids[width:]):
        kept = [rid for rid in side if rid is not None and rid in passing][:radius]
        if len(kept) < radius and side[-1] is not None:
            return None
        picked += [(rid, d) for d, rid in enumerate(kept, start=1)]
    # distances interleave as the filtered walk gives them: nearest first
    return sorted(picked, key=lambda p: p[1])


def _near_lookups(
    dialect: str, in_scope: bool, width: int, clauses: Sequence[ColumnElement[bool]], name: str
) -> CTE:
    """seed_id and, per seed of the `seed_ids` parameter, the ids of the `width` nearest
    records passing `clauses` before it (nearest first), then of the `width` after it, in
    its scope or among unscoped records; NULL where the scope has no more."""
    seed = _SEED
    same_scope = RecordRow.scope == seed.scope if in_scope else RecordRow.scope.is_(None)
    lookups = [
        _adjacent(seed, same_scope, clauses, before, skip=k).label(f"near_{i}")
        for i, (before, k) in enumerate(
            (before, k) for before in (True, False) for k in range(width)
        )
    ]
    # Materialized: each seed's look-ups run once, not again for every row they join.
    return (
        select(seed.id.label("seed_id"), *lookups)
        .where(among_param(seed.id, "seed_ids", dialect))
        .cte(name)
        .prefix_with("MATERIALIZED")
    )


def _episodic() -> ColumnElement[bool]:
    """type = episodic, as a plain comparison the planners estimate: the look-ups walk the
    (scope, created_at, id) index (migration 0013), which matches their order exactly.
    (Before it, PostgreSQL needed the comparison hidden from it, and then misjudged how
    many rows it keeps: it read and sorted a whole side of the scope per look-up.)"""
    return RecordRow.type == MemoryType.episodic.value


def _among_slots(dialect: str, slots: Sequence[Any]) -> ColumnElement[bool]:
    """records.id is one of a seed's candidate slots. PostgreSQL looks `= ANY(ARRAY[…])`
    up in the primary key; an IN list of columns it checked against every row of the
    scope for every seed instead."""
    if dialect == "postgresql":
        cond: ColumnElement[bool] = RecordRow.id == any_(array(slots))
        return cond
    return RecordRow.id.in_(slots)


def _literal(n: int) -> ColumnElement[int]:
    """`n` written into the statement, not bound: PostgreSQL plans a LIMIT or OFFSET that
    is a parameter as if it kept a tenth of the rows, so the prepared statement's generic
    plan looked ~8 times dearer per look-up than its custom plans and was never taken
    (pg_prepared_statements: 60 custom plans of 60 runs); each run was planned again."""
    return literal_column(str(n), Integer)


def _adjacent(
    seed: Any,
    same_scope: ColumnElement[bool],
    clauses: Sequence[ColumnElement[bool]],
    before: bool,
    skip: int = 0,
) -> Any:
    """The id of the filtered episodic record right before/after `seed` in (created_at, id)
    (with `skip`, the one that many places further out).

    The bound on created_at is a plain range (`<=` / `>=`) so the (scope, created_at, id)
    index walks from the seed outwards and stops at the first row that passes the
    filters; the tie on equal timestamps is settled by a residual filter."""
    if before:
        side = and_(
            RecordRow.created_at <= seed.created_at,
            or_(RecordRow.created_at < seed.created_at, RecordRow.id < seed.id),
        )
        order = (RecordRow.created_at.desc(), RecordRow.id.desc())
    else:
        side = and_(
            RecordRow.created_at >= seed.created_at,
            or_(RecordRow.created_at > seed.created_at, RecordRow.id > seed.id),
        )
        order = (RecordRow.created_at.asc(), RecordRow.id.asc())
    return (
        select(RecordRow.id)
        .where(same_scope, side, *clauses)
        .order_by(*order)
        .limit(_literal(1))
        .offset(_literal(skip))
        .correlate(seed)
        .scalar_subquery()
    )
