"""Helpers shared by the payload models: field-name synonyms and optional fields that
are left out of the stored payload when absent (so today's shapes come back unchanged)."""

from __future__ import annotations

from typing import Any

from pydantic import Field


def optional(**kwargs: Any) -> Any:
    """An optional field, dropped from the dumped payload when it is None."""
    return Field(default=None, exclude_if=lambda v: v is None, **kwargs)


def mirror(data: Any, original: str, alias: str) -> Any:
    """Accept either name of a renamed field and keep both, equal, in the payload.

    Both given with different values is a caller error."""
    if not isinstance(data, dict):
        return data
    if original in data and alias in data:
        if data[original] != data[alias]:
            raise ValueError(f"{original!r} and its alias {alias!r} disagree")
        return data
    if original in data or alias in data:
        value = data[original] if original in data else data[alias]
        return {**data, original: value, alias: value}
    return data


def rename(data: Any, original: str, alias: str) -> Any:
    """Accept `alias` as another spelling of `original` (stored under `original` only)."""
    if not isinstance(data, dict) or alias not in data:
        return data
    if original in data:
        raise ValueError(f"give {original!r} or its alias {alias!r}, not both")
    rest = {k: v for k, v in data.items() if k != alias}
    return {**rest, original: data[alias]}
