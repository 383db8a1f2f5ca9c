"""Salience in SQL: the atomic single-statement updates of reinforce, penalize and pin (no
lost update under concurrency: each computes the new value from the stored row). They
build on the decay formula as SQL, `current_salience_sql` (app/models/clauses.py, below
the domains so that records' filter and the metrics use it too)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from sqlalchemy import Double, Update, bindparam, func, literal, update
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from app.db import column_rows, dialect_of
from app.models import RecordRow
from app.models.clauses import current_salience_sql, greatest


def least(dialect: str, a: Any, b: Any) -> ColumnElement[float]:
    return func.min(a, b) if dialect == "sqlite" else func.least(a, b)


def _salience_update(session: Session, record_id: str, new_base: Any, now: float) -> float | None:
    stmt = (
        update(RecordRow)
        .where(RecordRow.id == record_id)
        .values(salience_base=new_base, salience_t0=now, updated_at=now)
        .returning(RecordRow.salience_base)
        .execution_options(synchronize_session=False)
    )
    value = session.execute(stmt).scalar_one_or_none()
    return None if value is None else float(value)


def reinforce(session: Session, record_id: str, now: float) -> float | None:
    """salience ← min(1, current + gain), clock reset. The row lock the UPDATE takes makes
    concurrent reinforcements queue and each see the previous one's result."""
    stmt = _reinforce_statement(dialect_of(session))
    # On the session's connection: the ORM's update path (synchronize_session off, so it
    # had nothing to do) cost more than the UPDATE; consolidation runs one per repeat.
    value = column_rows(session, stmt, {"record_id": record_id, "now": now}).scalar_one_or_none()
    return None if value is None else float(value)


def reinforce_many(session: Session, ids: Sequence[str], now: float) -> None:
    """One reinforcement of each of `ids` at `now`, in one round trip (an executemany of
    the same UPDATE, without its RETURNING): consolidation reinforces every fact an
    episode repeats."""
    if ids:
        stmt = _reinforce_statement(dialect_of(session), returning=False)
        session.connection().execute(stmt, [{"record_id": i, "now": now} for i in ids])


@cache
def _reinforce_statement(dialect: str, returning: bool = True) -> Update:
    """Built once per dialect: consolidation reinforces a fact per repeated observation."""
    now: Any = bindparam("now", type_=Double)
    current = current_salience_sql(dialect, now)
    new_base = least(dialect, current + RecordRow.reinforcement_gain, 1.0)
    stmt = (
        update(RecordRow)
        .where(RecordRow.id == bindparam("record_id"))
        .values(salience_base=new_base, salience_t0=now, updated_at=now)
        .execution_options(synchronize_session=False)
    )
    return stmt.returning(RecordRow.salience_base) if returning else stmt


def penalize(session: Session, record_id: str, amount: float, now: float) -> float | None:
    """salience ← max(min_salience, current − amount, 0), clock reset."""
    dialect = dialect_of(session)
    current = current_salience_sql(dialect, now)
    lowered = greatest(dialect, current - literal(amount, Double), 0.0)
    new_base = greatest(dialect, lowered, RecordRow.min_salience)
    return _salience_update(session, record_id, new_base, now)


def scale(session: Session, ids: Sequence[str], factor: float, now: float) -> None:
    """salience ← current × factor for `ids`, clock reset (pinned records keep theirs)."""
    params = {"ids": list(ids), "factor": factor, "now": now}
    session.execute(_scale_statement(dialect_of(session)), params)


@cache
def _scale_statement(dialect: str) -> Update:
    """Built once per dialect: compression scales the sources of every group it writes."""
    now: Any = bindparam("now", type_=Double)
    current = current_salience_sql(dialect, now)
    return (
        update(RecordRow)
        .where(RecordRow.id.in_(bindparam("ids", expanding=True)), RecordRow.pinned.is_(False))
        .values(
            salience_base=current * bindparam("factor", type_=Double),
            salience_t0=now,
            updated_at=now,
        )
        .execution_options(synchronize_session=False)
    )


def zero(session: Session, ids: Sequence[str], now: float) -> None:
    """salience ← 0 for `ids` (a retracted or superseded record), clock reset."""
    stmt = (
        update(RecordRow)
        .where(RecordRow.id.in_(list(ids)))
        .values(salience_base=0.0, salience_t0=now, updated_at=now)
        .execution_options(synchronize_session=False)
    )
    session.execute(stmt)


def set_pinned(session: Session, record_id: str, pinned: bool, now: float) -> bool:
    """Pin freezes the current salience (s0 ← current); unpin restarts decay from now.
    Returns False when the record was already in that state."""
    values: dict[str, object] = {"pinned": pinned, "salience_t0": now, "updated_at": now}
    if pinned:
        values["salience_base"] = current_salience_sql(dialect_of(session), now)
    stmt = (
        update(RecordRow)
        .where(RecordRow.id == record_id, RecordRow.pinned.is_(not pinned))
        .values(**values)
        .returning(RecordRow.id)
        .execution_options(synchronize_session=False)
    )
    return session.execute(stmt).first() is not None
