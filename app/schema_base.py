"""Base model and bounded field types enforcing the limits of DESIGN §6."""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

MAX_STRING = 100_000
MAX_LIST = 10_000
MAX_TAGS = 100
MAX_TAG_CHARS = 256
MAX_JSON_DEPTH = 64
# Free text in a query string or header (a DELETE rationale, X-Membrane-Scopes): URLs and
# header sections beyond a few KiB are refused by gateways and, past 64 KiB, by uvicorn.
MAX_QUERY_TEXT = 4096


class StrictModel(BaseModel):
    """Rejects unknown fields and NaN/Inf everywhere."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, populate_by_name=True)


class OutModel(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False, populate_by_name=True)


Text = Annotated[str, StringConstraints(max_length=MAX_STRING)]
ShortText = Annotated[str, StringConstraints(min_length=1, max_length=1024)]
Tag = Annotated[str, StringConstraints(min_length=1, max_length=MAX_TAG_CHARS)]
Scope = Annotated[str, StringConstraints(min_length=1, max_length=512)]
Unit = Annotated[float, Field(ge=0.0, le=1.0)]
Rationale = Text
RequiredRationale = ShortText


def check_json(value: Any) -> Any:
    """Walk free-form JSON: bounded strings and lists, finite numbers, bounded depth. The
    path to a refused value (`$.a[2].b`) is spelled only when one is refused: building it
    for every member walked was most of the check's cost (every captured payload is
    checked, and every view of one)."""
    found = _json_problem(value, 0)
    if found is not None:
        path, problem = found
        raise ValueError(f"${path}: {problem}")
    return value


def _json_problem(value: Any, depth: int) -> tuple[str, str] | None:
    """(path below `value`, what is wrong) of the first refused value inside it, else
    None. Decoded JSON holds exactly these types, so each is told by its type (an
    isinstance chain cost more than the checks); a subclass of one (a str enum, say) is
    checked as its JSON type, and anything else passes."""
    if depth > MAX_JSON_DEPTH:
        return "", f"nesting deeper than {MAX_JSON_DEPTH}"
    kind = type(value)
    if kind not in _DECODED_TYPES:
        kind = next((t for t in _JSON_TYPES if isinstance(value, t)), type(None))
    if kind is str:
        return None if len(value) <= MAX_STRING else ("", _LONG_STRING)
    if kind is dict:
        return _dict_problem(value, depth)
    if kind is list:
        return _list_problem(value, depth)
    if kind is float:
        return None if math.isfinite(value) else ("", _NOT_FINITE)
    return None  # int, bool, None


_JSON_TYPES = (str, dict, list, float, int)  # bool is an int
_DECODED_TYPES = frozenset({*_JSON_TYPES, bool, type(None)})
_LONG_STRING = f"string longer than {MAX_STRING} characters"
_NOT_FINITE = "NaN and Infinity are not allowed"


def _dict_problem(value: dict[str, Any], depth: int) -> tuple[str, str] | None:
    if len(value) > MAX_LIST:
        return "", f"more than {MAX_LIST} keys"
    for key, item in value.items():
        if len(key) > MAX_TAG_CHARS * 4:
            return "", f"key longer than {MAX_TAG_CHARS * 4} characters"
        found = _json_problem(item, depth + 1)
        if found is not None:
            return f".{key}{found[0]}", found[1]
    return None


def _list_problem(value: list[Any], depth: int) -> tuple[str, str] | None:
    if len(value) > MAX_LIST:
        return "", f"more than {MAX_LIST} items"
    for i, item in enumerate(value):
        found = _json_problem(item, depth + 1)
        if found is not None:
            return f"[{i}]{found[0]}", found[1]
    return None


JsonValue = Annotated[Any, AfterValidator(check_json)]
JsonObject = Annotated[dict[str, Any], AfterValidator(check_json)]


def _unique_tags(tags: list[str]) -> list[str]:
    return list(dict.fromkeys(tags))


Tags = Annotated[list[Tag], Field(max_length=MAX_TAGS), AfterValidator(_unique_tags)]
