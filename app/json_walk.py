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


# Whole floats below 2**53 are the integers they look like; above it a float bound is
# already rounded (2**63 - 1 reads 2**63), and its integer would claim a false exactness.
_EXACT = float(2**53)


def integral_bounds(value: object) -> None:
    """In place: an integer schema's float bounds that are whole numbers (`minimum: 1.0`)
    written as integers. FastAPI's document model holds bounds as floats and writes them
    so on some operations and not others (those without parameters of FastAPI's own), so
    the same header read 1 on one operation and 1.0 on the next."""
    if isinstance(value, dict):
        if value.get("type") == "integer":
            for bound in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
                number = value.get(bound)
                if isinstance(number, float) and number.is_integer() and abs(number) < _EXACT:
                    value[bound] = int(number)
        for item in value.values():
            integral_bounds(item)
    elif isinstance(value, list):
        for item in value:
            integral_bounds(item)
