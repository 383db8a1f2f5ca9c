"""Does a semantic fact hold here and now? (pure)

The original Membrane gives every fact a validity: `global` (always), `timeboxed`
(between `start` and `end`) or `conditional` (under `conditions`, so several conditional
truths can coexist). Retrieve answers with what holds:

- a fact with a window (`start` and/or `end`, whatever its mode) holds from `start`
  (inclusive) until `end` (exclusive) — outside it, it is left out;
- a conditional fact is left out when the request's `context` contradicts one of its
  conditions (the same key with another value); a condition the context does not
  mention is unknown, not contradicted, so the fact stays;
- everything else, and every record that is not semantic, holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app import clock


def holds(
    record_type: str, payload: Mapping[str, Any], at: float, context: Mapping[str, Any] | None
) -> bool:
    if record_type != "semantic":
        return True
    validity = payload.get("validity")
    if not isinstance(validity, Mapping):
        return True
    start, end = clock.epoch_of(validity.get("start")), clock.epoch_of(validity.get("end"))
    if (start is not None and at < start) or (end is not None and at >= end):
        return False
    if validity.get("mode") == "conditional" and context:
        return not contradicts(validity.get("conditions"), context)
    return True


def contradicts(conditions: Any, context: Mapping[str, Any]) -> bool:
    if not isinstance(conditions, Mapping):
        return False
    return any(key in context and context[key] != value for key, value in conditions.items())
