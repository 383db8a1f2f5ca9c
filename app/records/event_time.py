"""When what a record says happened (pure): contradictions compare facts by it, and
consolidation stamps the facts it promotes with their episode's.

- A fact: its validity window's start when it has one; else the latest time its
  provenance sources or evidence carry (capture stamps them with the capture's
  `timestamp`); else when it was stored.
- An episode: its first timeline event's `t`; else its provenance's time; else when it
  was stored."""

from __future__ import annotations

from collections.abc import Mapping

from app.clock import epoch_of


def fact_time(
    payload: Mapping[str, object], provenance: Mapping[str, object], stored: float
) -> float:
    validity = payload.get("validity")
    if isinstance(validity, Mapping):
        start = epoch_of(validity.get("start"))
        if start is not None:
            return start
    times = _times(provenance.get("sources")) + _times(payload.get("evidence"))
    return max(times) if times else stored


def episode_time(
    payload: Mapping[str, object], provenance: Mapping[str, object], stored: float
) -> float:
    timeline = payload.get("timeline")
    if isinstance(timeline, list) and timeline and isinstance(timeline[0], Mapping):
        first = epoch_of(timeline[0].get("t"))
        if first is not None:
            return first
    times = _times(provenance.get("sources"))
    return min(times) if times else stored


def occurred_at(memory_type: str, payload: Mapping[str, object], created_at: float) -> float | None:
    """When an episode happened as ranking reads it (the `occurred_at` column, migration
    0016): its first timeline event's `t`, else when it was captured; None for the
    other types."""
    return first_event_time(payload, created_at) if memory_type == "episodic" else None


def first_event_time(payload: Mapping[str, object], captured_at: float) -> float:
    """An episode's first timeline event's `t`, else `captured_at` (an agent recording as
    it goes gives no time)."""
    timeline = payload.get("timeline")
    first = timeline[0] if isinstance(timeline, list) and timeline else None
    at = epoch_of(first.get("t")) if isinstance(first, Mapping) else None
    return captured_at if at is None else at


def _times(entries: object) -> list[float]:
    if not isinstance(entries, list):
        return []
    found = (epoch_of(e.get("timestamp")) for e in entries if isinstance(e, Mapping))
    return [t for t in found if t is not None]
