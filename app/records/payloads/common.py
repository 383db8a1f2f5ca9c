"""Helpers shared by the payload models: field-name synonyms and optional fields that
are left out of the stored payload when absent (so today's shapes come back unchanged)."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field
from pydantic.config import JsonDict


def optional(**kwargs: Any) -> Any:
    """An optional field, dropped from the dumped payload when it is None."""
    return Field(default=None, exclude_if=lambda v: v is None, **kwargs)


def synonym(default: str, other: str) -> Any:
    """A field `mirror` keeps equal to its synonym `other`. Its real default is the
    synonym's value (else `default`), so the document states none: a generated client
    would otherwise send the stated default next to the synonym it was given, and the
    two would disagree (422)."""

    def document(schema: JsonDict) -> None:
        schema.pop("default", None)
        schema["description"] = f"Synonym of `{other}`. Default: `{other}`, else {default!r}."

    return Field(default=default, json_schema_extra=document)


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


def _kind_required(schema: JsonDict) -> None:
    properties = schema.get("properties")
    if isinstance(properties, dict) and isinstance(properties.get("kind"), dict):
        kind = properties["kind"]
        assert isinstance(kind, dict)
        kind.pop("default", None)
    required = schema.get("required")
    rest = [r for r in required if r != "kind"] if isinstance(required, list) else []
    schema["required"] = ["kind", *rest]


# A payload's `kind` selects its model in the payload union (`Payload`): a payload sent
# without it is refused, so the document says it is required. Its default only serves
# code that builds a payload model directly.
KIND_REQUIRED = ConfigDict(json_schema_extra=_kind_required)
