"""Temporal neighbours of episodic hits: the episodes captured just before and after
each seed in its scope (one statement for all seeds, correlated index look-ups)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session, aliased
from sqlalchemy.sql.elements import ColumnElement

from app.db import dialect_of
from app.enums import MemoryType
from app.models import RecordRow
from app.records.clauses import query_clauses
from app.records.filters import RecordQuery
from app.retrieve.repository import RecordHeader, header_columns, header_from

_SEED = aliased(RecordRow, name="seed")  # built once: an alias per call costs CPU


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
    One statement for all scoped seeds (and one for unscoped ones): correlated index
    lookups per seed, each neighbour's header joined to it by primary key (a neighbour
    passes the filters already: it was found under them)."""
    dialect = dialect_of(session)
    clauses = [*query_clauses(records, dialect), _episodic(dialect)]
    out: Neighbours = {}
    found: dict[str, RecordHeader] = {}
    scoped = [s.id for s in seeds if s.scope is not None]
    unscoped = [s.id for s in seeds if s.scope is None]
    distances = [d for d in range(1, radius + 1) for _ in (True, False)]
    columns = header_columns(dialect, mentioning)
    for ids, in_scope in ((scoped, True), (unscoped, False)):
        if not ids:
            continue
        seed = _SEED
        same_scope = RecordRow.scope == seed.scope if in_scope else RecordRow.scope.is_(None)
        lookups = [
            _adjacent(seed, same_scope, clauses, before, skip=d - 1).label(f"near_{i}")
            for i, (d, before) in enumerate(
                (d, before) for d in range(1, radius + 1) for before in (True, False)
            )
        ]
        # Materialized: each seed's look-ups run once, not again for every row they join.
        pairs = select(seed.id.label("seed_id"), *lookups).where(seed.id.in_(ids))
        near = pairs.cte("near").prefix_with("MATERIALIZED")
        slots = [near.c[f"near_{i}"] for i in range(len(lookups))]
        stmt = select(near.c.seed_id, *slots, *columns).outerjoin(
            RecordRow, RecordRow.id.in_(slots)
        )
        for seed_id, *values in session.execute(stmt):
            near_ids, header = values[: len(slots)], values[len(slots) :]
            out[seed_id] = [(rid, d) for rid, d in zip(near_ids, distances, strict=True) if rid]
            if header[0] is not None:
                found[header[0]] = header_from(records.now, header)
    return out, found


def _episodic(dialect: str) -> ColumnElement[bool]:
    """type = episodic, kept off the (type, created_at) index on PostgreSQL: where nearly
    every record is an episode the planner took that index for a neighbour look-up and
    read every episode of the store on one side of the seed, filtering by scope (40 ms
    for a retrieve's seeds at 2,000 records) instead of walking the (scope, created_at)
    index (0.5 ms)."""
    if dialect == "postgresql":
        return RecordRow.type.concat("") == MemoryType.episodic.value
    return RecordRow.type == MemoryType.episodic.value


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
