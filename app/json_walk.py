"""Walking decoded JSON (pure), and the one name for a JSON object at the service's edge."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# A JSON object read or written whole at the edge, whose members the code walks freely:
# an OpenAPI or JSON Schema document (or a part of one). Internal data has real types.
JsonDocument = dict[str, Any]


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
