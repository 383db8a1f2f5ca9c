"""Temporal neighbours of episodic hits: the episodes captured just before and after
each seed in its scope (one statement for all seeds, correlated look-ups walking the
episodes' own index, migration 0017)."""

from __future__ import annotations

from collections.abc import Container, Sequence
from functools import cache
from typing import Any

from sqlalchemy import Select, and_, case, or_, select, union_all
from sqlalchemy.orm import Session, aliased
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.selectable import CTE

from app.db import column_rows, dialect_of, prepared
from app.models import RecordRow
from app.models.clauses import among_param, is_episode, written_int
from app.records.clauses import FilterShape, bound_clauses, filter_params, filter_shape
from app.records.filters import RecordQuery
from app.retrieve.header_repository import (
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
        width = radius + _SPARE
        stmt = _candidates_statement(shape, mentions, in_scope, width, exact=False)
        candidates = _candidates(session, stmt, {**params, "seed_ids": ids}, found, 2 * width)
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
            candidates = _candidates(session, stmt, again, found, 2 * radius)
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
    """Per seed of the `seed_ids` parameter and per candidate slot (`_near_lookups`: the
    look-ups know no filter but the type, or with `exact` every filter), a row: the seed,
    the slot's place, its record id (NULL where the scope has no more), whether that
    record passes the filters, and its header; built once per shape."""
    clauses = bound_clauses(shape)
    filters = (*clauses, is_episode()) if exact else (is_episode(),)
    near = _near_lookups(shape.dialect, in_scope, width, filters, "near_exact" if exact else "near")
    slots = _slot_rows(near, 2 * width, "slots_exact" if exact else "slots")
    # The filters are a column, not the join's condition: in the condition, SQLite
    # without statistics (a new store) read the whole scope for each seed through the
    # scope index instead of looking each candidate up by primary key.
    passes = case((and_(*clauses), True), else_=False)
    columns = header_columns(shape.dialect, mentioning)
    # Prepared on PostgreSQL (parsing and planning it were ~0.7 ms of server time an
    # all-scope retrieve): its plan is the seeds by primary key and, per seed, walks of the
    # episodes' index, whatever the values; the seeds are one array.
    return prepared(
        select(slots.c.seed_id, slots.c.place, slots.c.record_id, passes, *columns).outerjoin(
            RecordRow, RecordRow.id == slots.c.record_id
        )
    )


def _slot_rows(near: CTE, slots: int, name: str) -> CTE:
    """`near`'s slots as rows (seed_id, place, record_id), one a seed and slot: each row
    then joins its record by one primary-key look-up. (Joined on `id IN (near_0, ...)`,
    SQLite built a list of the six slots for every seed to look them up: 3.8 of the
    statement's 5.2 M instructions went to that join.)"""
    per_place = [
        select(
            near.c.seed_id,
            written_int(place).label("place"),
            near.c[f"near_{place}"].label("record_id"),
        )
        for place in range(slots)
    ]
    return union_all(*per_place).cte(name)


def _candidates(
    session: Session,
    stmt: Select[Any],
    params: dict[str, Any],
    found: dict[str, Sequence[Any]],
    slots: int,
) -> dict[str, list[str | None]]:
    """seed id → its `slots` candidates' ids (the places of `stmt`, None where the scope
    has no more); the header columns of the candidates passing the filters are added to
    `found`."""
    candidates: dict[str, list[str | None]] = {}
    for seed_id, place, record_id, passed, *header in column_rows(session, stmt, params).all():
        places = candidates.get(seed_id)
        if places is None:
            places = candidates[seed_id] = [None] * slots
        places[place] = record_id
        if record_id is not None and passed:
            found[record_id] = header
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


def _adjacent(
    seed: Any,
    same_scope: ColumnElement[bool],
    clauses: Sequence[ColumnElement[bool]],
    before: bool,
    skip: int = 0,
) -> Any:
    """The id of the filtered episodic record right before/after `seed` in (created_at, id)
    (with `skip`, the one that many places further out).

    The bound on created_at is a plain range (`<=` / `>=`) so the episodes' (scope,
    created_at, id) index walks from the seed outwards and stops at the first row that passes the
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
        .limit(written_int(1))
        .offset(written_int(skip))
        .correlate(seed)
        .scalar_subquery()
    )
