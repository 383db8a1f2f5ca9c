"""The decay formula of app.salience.decay as a SQL expression, per dialect."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Float, and_, case, func, literal
from sqlalchemy.sql.elements import ColumnElement

from app.salience.decay import LN2, LN_SMALLEST, current_salience
from app.models import RecordRow


def salience_of(row: RecordRow, now: float) -> float:
    """Current salience of a loaded row (the Python twin of `current_salience_sql`)."""
    return current_salience(
        row.salience_base,
        row.salience_t0,
        now,
        half_life_s=row.half_life_s,
        curve=row.decay_curve,
        min_salience=row.min_salience,
        pinned=row.pinned,
    )


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
