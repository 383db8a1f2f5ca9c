"""SQL of the record lifecycle: atomic salience updates, pinning, and the set-based decay
sweep and prune, which walk the table in physical slices (SQLite rowid ranges, PostgreSQL
ctid block ranges) so every batch reads neighbouring rows and no batch needs an id list."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Double,
    and_,
    case,
    delete,
    func,
    insert,
    literal,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement, TextClause

from app.db import dialect_of
from app.decay_math import PRUNE_THRESHOLD
from app.models import AuditRow, RecordRow
from app.models.clauses import current_salience_sql

# Upper bound of the last slice: past any rowid / block number, so rows that moved to the
# end of the table while the sweep ran are still visited.
_SQLITE_END = 2**62
_PG_END_BLOCK = 2**32 - 1
_NOT_PRUNABLE_STATUSES = ("retracted", "superseded")


# -- single-record updates (one statement each: no lost update under concurrency) ---------


# -- sweep and prune ---------------------------------------------------------------------


@dataclass(frozen=True)
class Slice:
    """A physical range of the records table: rowids on SQLite, heap blocks on PostgreSQL."""

    lo: int
    hi: int


def slices(session: Session, batch_size: int) -> list[Slice]:
    """Cut the table into ranges of about `batch_size` rows."""
    if dialect_of(session) == "sqlite":
        lo, hi = session.execute(text("SELECT min(rowid), max(rowid) FROM records")).one()
        if lo is None:
            return []
        bounds = list(range(int(lo), int(hi) + 1, batch_size))
        ends = [*bounds[1:], _SQLITE_END]
        return [Slice(a, b) for a, b in zip(bounds, ends, strict=True)]
    pages, relpages, reltuples = session.execute(
        text(
            "SELECT pg_relation_size('records') / current_setting('block_size')::int, "
            "relpages, reltuples FROM pg_class WHERE oid = 'records'::regclass"
        )
    ).one()
    per_page = reltuples / relpages if relpages > 0 and reltuples > 0 else 40.0
    step = max(1, int(batch_size / max(per_page, 1.0)))
    bounds = list(range(0, int(pages) + 1, step))
    ends = [*bounds[1:], _PG_END_BLOCK]
    return [Slice(a, b) for a, b in zip(bounds, ends, strict=True)]


def _in_slice(dialect: str, part: Slice) -> TextClause:
    if dialect == "sqlite":
        return text("records.rowid >= :slice_lo AND records.rowid < :slice_hi").bindparams(
            slice_lo=part.lo, slice_hi=part.hi
        )
    return text(
        "records.ctid >= CAST(:slice_lo AS tid) AND records.ctid < CAST(:slice_hi AS tid)"
    ).bindparams(slice_lo=f"({part.lo},0)", slice_hi=f"({part.hi},0)")


def _expired(now: float) -> ColumnElement[bool]:
    return and_(
        RecordRow.max_age_s.is_not(None),
        RecordRow.created_at + RecordRow.max_age_s < literal(now, Double),
    )


def prunable(dialect: str, now: float) -> ColumnElement[bool]:
    """DESIGN §5 'Prune': non-pinned, auto_prune, not retracted/superseded, and faded
    below the threshold or past max_age."""
    return and_(
        RecordRow.pinned.is_(False),
        RecordRow.deletion_policy == "auto_prune",
        RecordRow.status.not_in(_NOT_PRUNABLE_STATUSES),
        or_(current_salience_sql(dialect, now) < PRUNE_THRESHOLD, _expired(now)),
    )


def sweep_slice(session: Session, part: Slice, now: float, tolerance: float) -> int:
    """Write the current salience into salience_swept where it moved by more than
    `tolerance` (the column is informative; reads always recompute)."""
    dialect = dialect_of(session)
    current = current_salience_sql(dialect, now)
    stmt = (
        update(RecordRow)
        .where(_in_slice(dialect, part), func.abs(RecordRow.salience_swept - current) > tolerance)
        .values(salience_swept=current)
        .execution_options(synchronize_session=False)
    )
    return int(session.execute(stmt).rowcount)  # type: ignore[attr-defined]


_AUDIT_COLUMNS = ["record_id", "action", "actor", "timestamp", "rationale", "details"]
PRUNE_RATIONALE = "salience below the prune threshold or past max_age"


def prune_slice(session: Session, part: Slice, now: float, actor: str) -> int:
    """Delete prunable rows of the slice, leaving one audit tombstone per row (written
    set-based in the same transaction). Incoming edges stay: they now point at a tombstone."""
    dialect = dialect_of(session)
    where = and_(_in_slice(dialect, part), prunable(dialect, now))
    salience = current_salience_sql(dialect, now)
    reason = case((_expired(now), "max_age"), else_="salience")
    if dialect == "sqlite":
        return _prune_sqlite(session, where, salience, reason, now, actor)
    return _prune_postgres(session, where, salience, reason, now, actor)


def _prune_sqlite(
    session: Session,
    where: ColumnElement[bool],
    salience: ColumnElement[float],
    reason: ColumnElement[str],
    now: float,
    actor: str,
) -> int:
    # BEGIN IMMEDIATE holds the write lock: nothing changes between the two statements.
    details = func.json_object(
        "type",
        RecordRow.type,
        "salience",
        salience,
        "reason",
        reason,
        "scope",
        RecordRow.scope,
        "sensitivity",
        RecordRow.sensitivity,
    )
    tombstones = select(RecordRow.id, *_audit_constants(now, actor), details).where(where)
    session.connection().execute(insert(AuditRow).from_select(_AUDIT_COLUMNS, tombstones))
    result = session.execute(
        delete(RecordRow).where(where).execution_options(synchronize_session=False)
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


def _prune_postgres(
    session: Session,
    where: ColumnElement[bool],
    salience: ColumnElement[float],
    reason: ColumnElement[str],
    now: float,
    actor: str,
) -> int:
    # One statement (DELETE … RETURNING feeding the INSERT), so a concurrent reinforce
    # can never leave a tombstone for a row that survived.
    doomed = (
        delete(RecordRow)
        .where(where)
        .returning(
            RecordRow.id,
            RecordRow.type,
            RecordRow.scope,
            RecordRow.sensitivity,
            salience.label("salience"),
            reason.label("reason"),
        )
        .cte("doomed")
    )
    details = func.jsonb_build_object(
        "type",
        doomed.c.type,
        "salience",
        doomed.c.salience,
        "reason",
        doomed.c.reason,
        "scope",
        doomed.c.scope,
        "sensitivity",
        doomed.c.sensitivity,
    )
    tombstones = (
        insert(AuditRow)
        .from_select(_AUDIT_COLUMNS, select(doomed.c.id, *_audit_constants(now, actor), details))
        .returning(AuditRow.id)
        .cte("tombstones")
    )
    return int(session.execute(select(func.count()).select_from(tombstones)).scalar_one())


def _audit_constants(now: float, actor: str) -> list[ColumnElement[Any]]:
    return [
        literal("prune").label("action"),
        literal(actor).label("actor"),
        literal(now, Double).label("timestamp"),
        literal(PRUNE_RATIONALE).label("rationale"),
    ]
