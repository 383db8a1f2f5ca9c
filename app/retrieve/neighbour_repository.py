"""Temporal neighbours of episodic hits: the episodes captured just before and after
each seed in its scope (one statement for all seeds, correlated index look-ups)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from sqlalchemy import and_, any_, bindparam, case, or_, select
from sqlalchemy.dialects.postgresql import array
from sqlalchemy.orm import Session, aliased
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.selectable import CTE

from app.db import dialect_of
from app.enums import MemoryType
from app.models import RecordRow
from app.records.clauses import query_clauses
from app.records.filters import RecordQuery
from app.retrieve.repository import RecordHeader, header_columns, header_from

_SEED = aliased(RecordRow, name="seed")  # built once: an alias per call costs CPU
# Episodes looked at on each side of a seed beyond the `radius` it needs: the look-ups
# ignore the request's filters (their statement is built once), so a spare lets one
# filtered-out episode per side pass without the filtered walk of `_exact`.
_SPARE = 1


Neighbours = dict[str, list[tuple[str, int]]]


def temporal_neighbours(
    session: Session,
    seeds: Sequence[RecordHeader],
    records: RecordQuery,
    radius: int = 1,
    mentioning: Sequence[str] = (),
) -> tuple[Neighbours, dict[str, RecordHeader]]:
    """seed id → (id, distance) of the episodic records captured up to `radius` places
    before and after it in the same scope (among those passing the filters), and the
    neighbours' headers (flagged as `repository.headers` flags them for `mentioning`).

    One statement for all scoped seeds (and one for unscoped ones): per seed, the
    `radius + _SPARE` nearest episodes on each side by index look-ups that know no filter
    (built once per shape), joined by primary key to their headers, which the filters
    (appearing once) mark as passing or not. A side whose every candidate the filters
    left out is walked again under the filters (`_exact`), for those seeds only."""
    dialect = dialect_of(session)
    clauses = query_clauses(records, dialect)
    columns = header_columns(dialect, mentioning)
    out: Neighbours = {}
    found: dict[str, RecordHeader] = {}
    for in_scope in (True, False):
        ids = [s.id for s in seeds if (s.scope is not None) is in_scope]
        if not ids:
            continue
        near = _near(in_scope, radius + _SPARE)
        slots = [c for c in near.c if c.name != "seed_id"]
        # The filters are a column, not the join's condition: in the condition, SQLite
        # without statistics (a new store) read the whole scope for each seed through
        # the scope index instead of looking each candidate up by primary key.
        passes = case((and_(*clauses), True), else_=False)
        stmt = select(near.c.seed_id, *slots, passes, *columns).outerjoin(
            RecordRow, _among_slots(dialect, slots)
        )
        candidates: dict[str, list[str | None]] = {}
        passing: set[str] = set()
        for seed_id, *values in session.execute(stmt, {"seed_ids": ids}):
            candidates[seed_id] = values[: len(slots)]
            passed, header = values[len(slots)], values[len(slots) + 1 :]
            if header[0] is not None and passed:
                found[header[0]] = header_from(records.now, header)
                passing.add(header[0])
        walk_again = []
        for seed_id, slot_ids in candidates.items():
            picked = _picked(slot_ids, passing, radius)
            if picked is None:
                walk_again.append(seed_id)
            else:
                out[seed_id] = picked
        if walk_again:
            exact, headers = _exact(session, walk_again, in_scope, records, radius, columns)
            out.update(exact)
            found.update(headers)
    return out, found


def _picked(
    slot_ids: Sequence[str | None], passing: set[str], radius: int
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


@cache
def _near(in_scope: bool, width: int) -> CTE:
    """seed_id and, per seed of the `seed_ids` parameter, the ids of the `width` nearest
    episodes before it (nearest first), then of the `width` after it, in its scope or
    among unscoped records; NULL where the scope has no more."""
    seed = _SEED
    same_scope = RecordRow.scope == seed.scope if in_scope else RecordRow.scope.is_(None)
    episodic = [_episodic()]
    lookups = [
        _adjacent(seed, same_scope, episodic, before, skip=k).label(f"near_{i}")
        for i, (before, k) in enumerate(
            (before, k) for before in (True, False) for k in range(width)
        )
    ]
    ids: Any = bindparam("seed_ids", expanding=True)
    # Materialized: each seed's look-ups run once, not again for every row they join.
    return (
        select(seed.id.label("seed_id"), *lookups)
        .where(seed.id.in_(ids))
        .cte("near")
        .prefix_with("MATERIALIZED")
    )


def _exact(
    session: Session,
    seed_ids: Sequence[str],
    in_scope: bool,
    records: RecordQuery,
    radius: int,
    columns: Sequence[Any],
) -> tuple[Neighbours, dict[str, RecordHeader]]:
    """The neighbours of `seed_ids` by look-ups that walk under the filters (each seed
    finds its `radius` nearest passing episodes per side however many fail)."""
    dialect = dialect_of(session)
    clauses = [*query_clauses(records, dialect), _episodic()]
    seed = _SEED
    same_scope = RecordRow.scope == seed.scope if in_scope else RecordRow.scope.is_(None)
    order = [(d, before) for d in range(1, radius + 1) for before in (True, False)]
    lookups = [
        _adjacent(seed, same_scope, clauses, before, skip=d - 1).label(f"near_{i}")
        for i, (d, before) in enumerate(order)
    ]
    pairs = select(seed.id.label("seed_id"), *lookups).where(seed.id.in_(list(seed_ids)))
    near = pairs.cte("near_exact").prefix_with("MATERIALIZED")
    slots = [near.c[f"near_{i}"] for i in range(len(lookups))]
    stmt = select(near.c.seed_id, *slots, *columns).outerjoin(
        RecordRow, _among_slots(dialect, slots)
    )
    out: Neighbours = {}
    found: dict[str, RecordHeader] = {}
    for seed_id, *values in session.execute(stmt):
        near_ids, header = values[: len(slots)], values[len(slots) :]
        out[seed_id] = [(rid, d) for rid, (d, _) in zip(near_ids, order, strict=True) if rid]
        if header[0] is not None:
            found[header[0]] = header_from(records.now, header)
    return out, found


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


def _adjacent(
    seed: Any,
    same_scope: ColumnElement[bool],
    clauses: Sequence[ColumnElement[bool]],
    before: bool,
    skip: int = 0,
) -> Any:
    """The id of the filtered episodic record right before/after `seed` in (created_at, id)
    (with `skip`, the one that many places further out).

    The bound on created_at is a plain range (`<=` / `>=`) so the (scope, type,
    created_at) index walks from the seed outwards and stops at the first row that
    passes the filters; the tie on equal timestamps is settled by a residual filter."""
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
        .limit(1)
        .offset(skip)
        .correlate(seed)
        .scalar_subquery()
    )
