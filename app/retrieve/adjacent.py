"""Temporal neighbours computed from headers already read: when a request has read the
header of every record its filters admit in its scopes (`CandidateSearch.find`),
the episodes just before and after each seed are found in memory, with the same answer
the look-ups of neighbour_repository.py give (pure functions)."""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable, Mapping

from app.enums import EPISODIC
from app.retrieve.header_repository import RecordHeader
from app.retrieve.neighbour_repository import Neighbours


def adjacent_episodes(
    admitted: Mapping[str, RecordHeader], seeds: Iterable[str], radius: int
) -> Neighbours:
    """seed id → (id, distance) of the episodic records among `admitted` up to `radius`
    places before and after it in its scope, ordered by (created_at, id); nearest first,
    the earlier side first at equal distance (as `neighbour_repository._picked`)."""
    timelines = _timelines(admitted.values())
    out: Neighbours = {}
    for seed_id in seeds:
        seed = admitted[seed_id]
        timeline = timelines[seed.scope]
        at = bisect_left(timeline, (seed.created_at, seed.id))
        before = [rid for _, rid in reversed(timeline[max(0, at - radius) : at])]
        after = [rid for _, rid in timeline[at + 1 : at + 1 + radius]]
        picked = [(rid, d) for d, rid in enumerate(before, start=1)]
        picked += [(rid, d) for d, rid in enumerate(after, start=1)]
        out[seed_id] = sorted(picked, key=lambda p: p[1])
    return out


def _timelines(headers: Iterable[RecordHeader]) -> dict[str | None, list[tuple[float, str]]]:
    """scope → its episodic records' (created_at, id), in order."""
    by_scope: dict[str | None, list[tuple[float, str]]] = defaultdict(list)
    for h in headers:
        if h.type == EPISODIC:
            by_scope[h.scope].append((h.created_at, h.id))
    for timeline in by_scope.values():
        timeline.sort()
    return by_scope
