"""Walking decoded JSON (pure)."""

from __future__ import annotations

from collections.abc import Iterator


def strings(value: object) -> Iterator[str]:
    """Every string inside `value` (dict values and list items, at any depth)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
