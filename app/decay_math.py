"""Pure decay math (DESIGN §5 'Decay is exact'). Not a domain module: the tables
(`RecordRow.salience_at`) and the salience domain both build on it.

Current salience depends only on stored state (s0, t0, curve, half-life, floor, pinned)
and the clock, so a sweep every minute and one computation a day later agree.
Exponential: s0 · 2^(−age/h). Linear: s0 · (1 − age/(2h)), i.e. half at one half-life and
zero at two. Both floored at min_salience; pinned records never decay. `custom` (and any
other curve name) decays exponentially, as the original's GetDecayFunc falls back. Past
its max_age (`expires_at`) a record that is not pinned has salience 0, floor or not, as
the original's ApplyDecay zeroes it.
"""

from __future__ import annotations

import math

# PostgreSQL raises "value out of range: underflow" when a product of non-zero doubles
# rounds to 0. Decayed values below 2^-1000 (~1e-301) are therefore 0, decided in log
# space before multiplying; SQL (app/models/clauses.py:current_salience_sql) does the same.
LN2 = math.log(2.0)
LN_SMALLEST = -1000.0 * LN2
PRUNE_THRESHOLD = 0.001


def decay_factor_log(ratio: float, curve: str) -> float | None:
    """ln of the decay factor after `ratio` half-lives; None when the factor is 0."""
    if curve == "linear":
        factor = 1.0 - ratio / 2.0
        return math.log(factor) if factor > 0.0 else None
    return -ratio * LN2


def decayed(s0: float, ratio: float, curve: str) -> float:
    factor_log = decay_factor_log(ratio, curve)
    if s0 <= 0.0 or factor_log is None or math.log(s0) + factor_log < LN_SMALLEST:
        return 0.0
    factor = 1.0 - ratio / 2.0 if curve == "linear" else 2.0 ** (-ratio)
    return s0 * factor


def current_salience(
    s0: float,
    t0: float,
    now: float,
    *,
    half_life_s: float,
    curve: str = "exponential",
    min_salience: float = 0.0,
    pinned: bool = False,
    expires_at: float | None = None,
) -> float:
    if pinned:
        return s0
    if expires_at is not None and now >= expires_at:
        return 0.0
    ratio = max(0.0, now - t0) / half_life_s
    return max(min_salience, decayed(s0, ratio, curve))


def expiry(created_at: float, max_age_s: float | None) -> float | None:
    """When a record passes its max_age (None: it never does)."""
    return None if max_age_s is None else created_at + max_age_s


def reinforced(current: float, gain: float) -> float:
    """Salience after a reinforcement: current plus gain, capped at 1."""
    return min(1.0, current + gain)


def penalized(current: float, amount: float, floor: float) -> float:
    return max(floor, current - amount)
