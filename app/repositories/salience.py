"""The decay formula of app.lifecycle.decay as a SQL expression, per dialect."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Float, case, func, literal
from sqlalchemy.sql.elements import ColumnElement

from app.lifecycle.decay import MAX_HALF_LIVES, current_salience
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


def _greatest(dialect: str, a: Any, b: Any) -> ColumnElement[float]:
    # SQLite's multi-argument max() is a scalar function; PostgreSQL calls it greatest().
    return func.max(a, b) if dialect == "sqlite" else func.greatest(a, b)


def _least(dialect: str, a: Any, b: Any) -> ColumnElement[float]:
    return func.min(a, b) if dialect == "sqlite" else func.least(a, b)


def current_salience_sql(dialect: str, now: float, table: Any = RecordRow) -> ColumnElement[float]:
    now_lit = literal(now, Float)
    age = _greatest(dialect, now_lit - table.salience_t0, 0.0)
    ratio = age / table.half_life_s
    exponential = table.salience_base * func.power(2.0, -_least(dialect, ratio, MAX_HALF_LIVES))
    linear = table.salience_base * _greatest(dialect, 1.0 - ratio / 2.0, 0.0)
    decayed = case((table.decay_curve == "linear", linear), else_=exponential)
    floored = _greatest(dialect, decayed, table.min_salience)
    return case((table.pinned.is_(True), table.salience_base), else_=floored)
