"""Does a competence record or a plan graph fit the task at hand? (pure)

The original's selector judges applicability by matching a competence record's trigger
conditions and a plan graph's constraints against the task context. A retrieve request's
`context` is that situation: condition values (environment keys such as `os`, active
constraints such as `region`) and, under `tools`, the names of the tools at hand.

- Conditions (a trigger's `conditions`, a plan graph's `constraints` object): a key the
  context gives with another value contradicts them (fit 0); otherwise the fit is the
  share of them the context matches (a key it does not mention is unknown: not matched,
  not contradicted). A competence record takes its best-fitting trigger.
- Tools (a competence record's `required_tools` and recipe tools, a plan graph's node
  ops), when the context lists `tools`: the share of the record's tools at hand.
- The record's fit is the mean of the parts that apply; None when none does (the record
  states nothing to match, or the context says nothing about it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TOOLS_KEY = "tools"


def context_fit(
    record_type: str, payload: Mapping[str, Any], context: Mapping[str, Any]
) -> float | None:
    if record_type == "competence":
        triggers = [t.get("conditions") for t in _dicts(payload.get("triggers"))]
        fits = [f for f in (conditions_fit(c, context) for c in triggers) if f is not None]
        conditions = max(fits) if fits else None
        tools = [*_strings(payload.get("required_tools")), *_recipe_tools(payload)]
    else:
        conditions = conditions_fit(payload.get("constraints"), context)
        tools = [str(n.get("op")) for n in _dicts(payload.get("nodes")) if n.get("op")]
    parts = [p for p in (conditions, tools_fit(tools, context.get(TOOLS_KEY))) if p is not None]
    return sum(parts) / len(parts) if parts else None


def conditions_fit(conditions: Any, context: Mapping[str, Any]) -> float | None:
    if not isinstance(conditions, Mapping) or not conditions:
        return None
    named = [key for key in conditions if key in context and key != TOOLS_KEY]
    if not named:
        return None
    if any(not agrees(conditions[key], context[key]) for key in named):
        return 0.0
    return len(named) / len(conditions)


def tools_fit(needed: list[str], at_hand: Any) -> float | None:
    wanted = set(needed)
    if not wanted or not isinstance(at_hand, list):
        return None
    return len(wanted & {str(t) for t in at_hand}) / len(wanted)


def agrees(wanted: Any, given: Any) -> bool:
    """Equal, or one of the values a list on either side allows."""
    if wanted == given:
        return True
    if isinstance(given, list) and not isinstance(wanted, list):
        return wanted in given
    if isinstance(wanted, list) and not isinstance(given, list):
        return given in wanted
    return False


def _recipe_tools(payload: Mapping[str, Any]) -> list[str]:
    return [str(s["tool"]) for s in _dicts(payload.get("recipe")) if s.get("tool")]


def _dicts(value: Any) -> list[Mapping[str, Any]]:
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def _strings(value: Any) -> list[str]:
    return [str(v) for v in value if isinstance(v, str)] if isinstance(value, list) else []
