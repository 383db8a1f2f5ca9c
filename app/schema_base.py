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


def check_json(value: Any, path: str = "$", depth: int = 0) -> Any:
    """Walk free-form JSON: bounded strings and lists, finite numbers, bounded depth."""
    if depth > MAX_JSON_DEPTH:
        raise ValueError(f"{path}: nesting deeper than {MAX_JSON_DEPTH}")
    if isinstance(value, str):
        if len(value) > MAX_STRING:
            raise ValueError(f"{path}: string longer than {MAX_STRING} characters")
    elif isinstance(value, bool) or value is None or isinstance(value, int):
        pass
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{path}: NaN and Infinity are not allowed")
    elif isinstance(value, list):
        if len(value) > MAX_LIST:
            raise ValueError(f"{path}: more than {MAX_LIST} items")
        for i, item in enumerate(value):
            check_json(item, f"{path}[{i}]", depth + 1)
    elif isinstance(value, dict):
        if len(value) > MAX_LIST:
            raise ValueError(f"{path}: more than {MAX_LIST} keys")
        for key, item in value.items():
            if len(key) > MAX_TAG_CHARS * 4:
                raise ValueError(f"{path}: key longer than {MAX_TAG_CHARS * 4} characters")
            check_json(item, f"{path}.{key}", depth + 1)
    return value


JsonValue = Annotated[Any, AfterValidator(check_json)]
JsonObject = Annotated[dict[str, Any], AfterValidator(check_json)]


def _unique_tags(tags: list[str]) -> list[str]:
    return list(dict.fromkeys(tags))


Tags = Annotated[list[Tag], Field(max_length=MAX_TAGS), AfterValidator(_unique_tags)]
