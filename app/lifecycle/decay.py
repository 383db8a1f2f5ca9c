"""Pure decay math (DESIGN §5 'Decay is exact').

Current salience depends only on stored state (s0, t0, curve, half-life, floor, pinned)
and the clock, so a sweep every minute and one computation a day later agree.
Exponential: s0 · 2^(−age/h). Linear: s0 · (1 − age/(2h)), i.e. half at one half-life and
zero at two. Both floored at min_salience; pinned records never decay.
"""

from __future__ import annotations

# 2^-1000 is still a normal double; beyond it PostgreSQL would raise an underflow error,
# so SQL and Python both cap the exponent there (the value is ~1e-301 either way).
MAX_HALF_LIVES = 1000.0
PRUNE_THRESHOLD = 0.001


def current_salience(
    s0: float,
    t0: float,
    now: float,
    *,
    half_life_s: float,
    curve: str = "exponential",
    min_salience: float = 0.0,
    pinned: bool = False,
) -> float:
    if pinned:
        return s0
    age = max(0.0, now - t0)
    if curve == "linear":
        value = s0 * max(0.0, 1.0 - age / (2.0 * half_life_s))
    else:
        value = s0 * 2.0 ** (-min(age / half_life_s, MAX_HALF_LIVES))
    return max(min_salience, value)


def reinforced(current: float, gain: float) -> float:
    """Salience after a reinforcement: current plus gain, capped at 1."""
    return min(1.0, current + gain)


def penalized(current: float, amount: float, floor: float) -> float:
    return max(floor, current - amount)
