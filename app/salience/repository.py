"""Salience in SQL: the decay formula of app.salience.decay as an expression per
dialect, and the atomic single-statement updates of reinforce, penalize and pin (no
lost update under concurrency: each computes the new value from the stored row)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Double, Float, and_, case, func, literal, update
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from app.db import dialect_of
from app.models import RecordRow
from app.salience.decay import LN2, LN_SMALLEST


def greatest(dialect: str, a: Any, b: Any) -> ColumnElement[float]:
    # SQLite's multi-argument max() is a scalar function; PostgreSQL calls it greatest().
    return func.max(a, b) if dialect == "sqlite" else func.greatest(a, b)


def least(dialect: str, a: Any, b: Any) -> ColumnElement[float]:
    return func.min(a, b) if dialect == "sqlite" else func.least(a, b)


def current_salience_sql(dialect: str, now: float, table: Any = RecordRow) -> ColumnElement[float]:
    """`app.salience.decay.current_salience` in SQL, branch for branch. CASE branches
    are evaluated lazily, so `ln` never sees 0 and the product never underflows."""
    s0 = table.salience_base
    ratio = greatest(dialect, literal(now, Float) - table.salience_t0, 0.0) / table.half_life_s
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
    return case((table.pinned.is_(True), table.salience_base), else_=floored)


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
    dialect = dialect_of(session)
    current = current_salience_sql(dialect, now)
    new_base = least(dialect, current + RecordRow.reinforcement_gain, 1.0)
    return _salience_update(session, record_id, new_base, now)


def penalize(session: Session, record_id: str, amount: float, now: float) -> float | None:
    """salience ← max(min_salience, current − amount, 0), clock reset."""
    dialect = dialect_of(session)
    current = current_salience_sql(dialect, now)
    lowered = greatest(dialect, current - literal(amount, Double), 0.0)
    new_base = greatest(dialect, lowered, RecordRow.min_salience)
    return _salience_update(session, record_id, new_base, now)


def set_pinned(session: Session, record_id: str, pinned: bool, now: float) -> bool:
    """Pin freezes the current salience (s0 ← current); unpin restarts decay from now.
    Returns False when the record was already in that state."""
    values: dict[str, Any] = {"pinned": pinned, "salience_t0": now, "updated_at": now}
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
