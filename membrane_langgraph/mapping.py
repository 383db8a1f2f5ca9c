"""How LangGraph's store concepts are written as Membrane records, and read back (pure: no
I/O). docs/langgraph.md has the table.

- A namespace is a scope: its labels joined with "." (LangGraph refuses "." inside a
  label, so the join is reversible).
- An item is a semantic record in that scope: subject = the item's key, object = its
  value (any JSON object), tagged with the store's marker, one tag per namespace prefix
  (so a search under a prefix is a tag filter) and one for the key (so `get` is a list
  filtered by scope and tag). Its first creation time, namespace and key ride along in
  the record's `interpretation`.
- A TTL is decay: linear, reaching zero exactly at the TTL (half-life = TTL / 2) with a
  reinforcement gain of 1, so reading it with refresh (a reinforce) restores the whole
  TTL and the decay sweep prunes it once expired. Without a TTL an item floors at a
  salience above the prune threshold and is deleted only on request (manual_only)."""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import Item, MatchCondition, SearchItem

MARKER = "langgraph"  # every item the store writes carries this tag
SEPARATOR = "."
MAX_TAG = 256
MAX_SCOPE = 512
PREDICATE = "value"
SOURCE_KIND = "langgraph"
NO_TTL_FLOOR = 0.01  # above the prune threshold (0.001): never pruned by decay
MIN_TTL_MINUTES = 2 / 60  # a half-life is at least one second
PRUNE_THRESHOLD = 0.001  # app/decay_math.py: below it a decayed record counts as expired

Json = dict[str, Any]
ORDERINGS: dict[str, Callable[[float, float], bool]] = {
    "$gt": operator.gt,
    "$gte": operator.ge,
    "$lt": operator.lt,
    "$lte": operator.le,
}


class NamespaceTooLong(ValueError):
    """A namespace whose joined labels exceed a Membrane scope (512 characters)."""


def scope_of(namespace: Sequence[str]) -> str:
    scope = SEPARATOR.join(namespace)
    if len(scope) > MAX_SCOPE:
        raise NamespaceTooLong(f"namespace {tuple(namespace)} is over {MAX_SCOPE} characters")
    return scope


def namespace_of(scope: str) -> tuple[str, ...]:
    return tuple(scope.split(SEPARATOR))


def _tag(kind: str, text: str) -> str:
    """`lg-<kind>:<text>`, or its SHA-256 when that would not fit a tag."""
    tag = f"lg-{kind}:{text}"
    if len(tag) <= MAX_TAG:
        return tag
    return f"lg-{kind}#{hashlib.sha256(text.encode('utf-8')).hexdigest()}"


def prefix_tag(prefix: Sequence[str]) -> str:
    """The tag every item under `prefix` carries (the marker for the empty prefix)."""
    return _tag("ns", SEPARATOR.join(prefix)) if prefix else MARKER


def key_tag(key: str) -> str:
    return _tag("key", key)


def tags_for(namespace: Sequence[str], key: str) -> list[str]:
    prefixes = [prefix_tag(namespace[:depth]) for depth in range(1, len(namespace) + 1)]
    return [MARKER, *prefixes, key_tag(key)]


def lifecycle_for(ttl_minutes: float | None) -> Json:
    if ttl_minutes is None:
        return {"decay": {"min_salience": NO_TTL_FLOOR}, "deletion_policy": "manual_only"}
    seconds = max(ttl_minutes, MIN_TTL_MINUTES) * 60.0
    decay = {"curve": "linear", "half_life_seconds": seconds / 2, "reinforcement_gain": 1.0}
    return {"decay": decay, "deletion_policy": "auto_prune"}


def record_body(
    namespace: Sequence[str],
    key: str,
    value: Mapping[str, Any],
    ttl_minutes: float | None,
    *,
    created_at: str | None = None,
    sensitivity: str | None = None,
) -> Json:
    """The body of POST /v1/records (and of a supersede's new record) for one item."""
    scope = scope_of(namespace)
    body: Json = {
        "payload": {"kind": "semantic", "subject": key, "predicate": PREDICATE, "object": value},
        "scope": scope,
        "tags": tags_for(namespace, key),
        "lifecycle": lifecycle_for(ttl_minutes),
        "provenance": {"sources": [{"kind": SOURCE_KIND, "ref": f"{scope}/{key}"}]},
        "interpretation": {
            "langgraph": {
                "namespace": list(namespace),
                "key": key,
                "ttl_minutes": ttl_minutes,
                "created_at": created_at or datetime.now(UTC).isoformat(),
            }
        },
    }
    if sensitivity is not None:
        body["sensitivity"] = sensitivity
    return body


def is_item(record: Json) -> bool:
    """Whether a record view is an item this store wrote and the caller may read whole."""
    if record.get("redacted") or MARKER not in record.get("tags", ()):
        return False
    meta = record.get("interpretation", {}).get("langgraph")
    return isinstance(meta, dict) and record.get("payload", {}).get("kind") == "semantic"


def meta_of(record: Json) -> Json:
    meta: Json = record["interpretation"]["langgraph"]
    return meta


def ttl_of(record: Json) -> float | None:
    ttl = meta_of(record).get("ttl_minutes")
    return float(ttl) if isinstance(ttl, int | float) else None


def _times(record: Json) -> tuple[datetime, datetime]:
    first = meta_of(record).get("created_at") or record["created_at"]
    return _parse(first), _parse(record["updated_at"])


def _parse(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def item_of(record: Json) -> Item:
    meta = meta_of(record)
    created, updated = _times(record)
    value = record["payload"]["object"]
    return Item(
        value=value if isinstance(value, dict) else {"value": value},
        key=str(meta["key"]),
        namespace=tuple(meta["namespace"]),
        created_at=created,
        updated_at=updated,
    )


def search_item_of(record: Json, score: float | None) -> SearchItem:
    item = item_of(record)
    return SearchItem(
        namespace=item.namespace,
        key=item.key,
        value=item.value,
        created_at=item.created_at,
        updated_at=item.updated_at,
        score=score,
    )


def matches_filter(value: Mapping[str, Any], wanted: Mapping[str, Any] | None) -> bool:
    """LangGraph's filter: each key equals, or holds under $eq $ne $gt $gte $lt $lte."""
    return all(_holds(value.get(name), test) for name, test in (wanted or {}).items())


def _holds(actual: Any, test: Any) -> bool:
    if isinstance(test, dict) and any(str(k).startswith("$") for k in test):
        return all(_compare(actual, op, operand) for op, operand in test.items())
    if isinstance(test, dict):
        return isinstance(actual, dict) and matches_filter(actual, test)
    return bool(actual == test)


def _compare(actual: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(actual == operand)
    if op == "$ne":
        return bool(actual != operand)
    if op not in ORDERINGS:
        raise ValueError(f"unsupported filter operator: {op}")
    try:
        return ORDERINGS[op](float(actual), float(operand))
    except (TypeError, ValueError):  # None, or not a number: no match
        return False


def namespace_matches(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise ValueError(f"unsupported match type: {condition.match_type}")
    return all(wanted == "*" or label == wanted for label, wanted in pairs)


def listed_namespaces(
    scopes: Iterable[str],
    conditions: Sequence[MatchCondition] | None,
    max_depth: int | None,
) -> list[tuple[str, ...]]:
    """The distinct namespaces of `scopes` matching every condition, cut to `max_depth`,
    sorted."""
    found: set[tuple[str, ...]] = set()
    for scope in scopes:
        namespace = namespace_of(scope)
        if all(namespace_matches(namespace, c) for c in conditions or ()):
            found.add(namespace[:max_depth] if max_depth is not None else namespace)
    return sorted(found)


def narrowing_prefix(conditions: Sequence[MatchCondition] | None) -> tuple[str, ...]:
    """The longest literal prefix a listing can filter on server-side (by tag)."""
    for condition in conditions or ():
        if condition.match_type == "prefix":
            literal: list[str] = []
            for label in condition.path:
                if label == "*":
                    break
                literal.append(label)
            return tuple(literal)
    return ()
