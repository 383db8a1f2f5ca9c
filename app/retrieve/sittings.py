"""Sittings (pure): records of one scope whose event times lie close together were
captured in one sitting (a conversation, a work session, an incident), and each of them
shares in the best match among them.

The question that one record of a sitting matches best is often answered by another
record of the same sitting that shares none of its words: a later turn, a follow-up, the
outcome. Context expansion reaches the records right next to a strong hit; this reaches
the sitting: each record gains a share of the best match among the others of its
sitting (a record alone in its sitting gains nothing, so records with an event time are
not favoured over facts or entities as such). Event time is what the memory is about (an episodic
record's first timeline event), not when it was captured: history imported in bulk is
captured within seconds."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Mapping, Sequence

SITTING_SHARE = 0.3  # of the sitting's best (scaled by the best candidate overall)
SITTING_WINDOW_S = 1800.0  # event times this close count as one sitting (30 minutes)


def best_nearby(
    points: Sequence[tuple[str, str | None, float]],
    value: Mapping[str, float],
    window: float = SITTING_WINDOW_S,
) -> dict[str, float]:
    """id → the largest `value` among the other points of its scope whose time lies within
    `window` of its own (0 when there are none: a record never lifts itself). Points are
    (id, scope, event time)."""
    by_scope: dict[str | None, list[tuple[float, str]]] = defaultdict(list)
    for rid, scope, at in points:
        by_scope[scope].append((at, rid))
    out: dict[str, float] = {}
    for members in by_scope.values():
        members.sort()
        times = [at for at, _ in members]
        best = _RangeMax([value[rid] for _, rid in members])
        for i, (at, rid) in enumerate(members):
            first = bisect_left(times, at - window)
            last = bisect_right(times, at + window) - 1
            out[rid] = max(best.over(first, i - 1), best.over(i + 1, last))
    return out


class _RangeMax:
    """Maximum over any index range of a list in O(1) (a sparse table: the maxima of
    every run of 2^k values), so each candidate's sitting costs two look-ups however many
    candidates share it."""

    def __init__(self, values: list[float]) -> None:
        self.levels = [values]
        width = 1
        while 2 * width <= len(values):
            prev = self.levels[-1]
            self.levels.append(
                [max(prev[i], prev[i + width]) for i in range(len(values) - 2 * width + 1)]
            )
            width *= 2

    def over(self, first: int, last: int) -> float:
        """max(values[first..last]) (inclusive); 0 for an empty range."""
        if first > last:
            return 0.0
        k = (last - first + 1).bit_length() - 1
        level = self.levels[k]
        return max(level[first], level[last - (1 << k) + 1])
