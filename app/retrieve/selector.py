"""The selector (pure): which competence or plan graph to use for the task at hand.

Each candidate gets applicability (does it fit the task: the query and the request's
`context`, app/retrieve/selection.py), success rate (Laplace-smoothed counts, 0.5 when
unknown) and recency (halves every 30 days since last use). Their weighted mean — the
original's three equal weights unless `ranking.selector_weights` says otherwise — times
the record's confidence is the candidate's strength (`Judged.confidence`).

The selection confidence is the original Membrane's: the normalised score gap between
the best and the second-best candidate, (best − second) / best — how clearly the best
one wins. A lone candidate has no rival, so its confidence is its own strength. The best
candidate is always named; below the threshold (0.7 by default) it comes with
`needs_more`: the choice is ambiguous or weak, so gather more context (or ask) before
acting on it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

SEED_WEIGHTS = (1 / 3, 1 / 3, 1 / 3)  # applicability, success rate, recency
RECENCY_HALF_LIFE_S = 30 * 86400.0
UNKNOWN_SUCCESS = 0.5


@dataclass(frozen=True)
class Option:
    record_id: str
    kind: str  # competence | plan_graph
    applicability: float
    successes: int
    failures: int
    stated_rate: float | None  # a rate given without counts
    last_used_at: float
    confidence: float


@dataclass(frozen=True)
class Judged:
    record_id: str
    kind: str
    applicability: float
    success_rate: float
    recency: float
    score: float
    confidence: float


@dataclass(frozen=True)
class Verdict:
    selected: Judged | None
    confidence: float
    needs_more: bool
    threshold: float
    ranked: list[Judged]


def success_rate(successes: int, failures: int, stated: float | None) -> float:
    if successes + failures > 0:
        return (successes + 1) / (successes + failures + 2)
    return stated if stated is not None else UNKNOWN_SUCCESS


def recency(last_used_at: float, now: float) -> float:
    age = max(0.0, now - last_used_at)
    return float(2.0 ** (-age / RECENCY_HALF_LIFE_S))


def judge(c: Option, now: float, weights: tuple[float, float, float] = SEED_WEIGHTS) -> Judged:
    rate = success_rate(c.successes, c.failures, c.stated_rate)
    fresh = recency(c.last_used_at, now)
    applies, succeeds, recent = weights
    total = applies + succeeds + recent
    score = (applies * c.applicability + succeeds * rate + recent * fresh) / total if total else 0.0
    return Judged(
        record_id=c.record_id,
        kind=c.kind,
        applicability=c.applicability,
        success_rate=rate,
        recency=fresh,
        score=score,
        confidence=score * c.confidence,
    )


def selection_confidence(top: Sequence[float]) -> float:
    """The normalised gap between the two strongest candidates (strongest first)."""
    if not top or top[0] <= 0.0:
        return 0.0
    if len(top) == 1:
        return min(1.0, top[0])
    return max(0.0, (top[0] - top[1]) / top[0])


def select(
    candidates: Sequence[Option],
    now: float,
    threshold: float,
    weights: tuple[float, float, float] = SEED_WEIGHTS,
) -> Verdict:
    judged = (judge(c, now, weights) for c in candidates)
    ranked = sorted(judged, key=lambda j: (-j.confidence, j.record_id))
    best = ranked[0] if ranked else None
    confidence = selection_confidence([j.confidence for j in ranked[:2]])
    return Verdict(
        selected=best,
        confidence=confidence,
        needs_more=confidence < threshold,
        threshold=threshold,
        ranked=ranked,
    )
