"""The OpenAPI document, made to say what the service does (issue 10, finding 7).

FastAPI derives most of it from the routes; this pass adds what it cannot see:
- `Problem` is a named component even before a route references it;
- a header or query parameter is never JSON null: an absent optional parameter is simply
  not sent, so its schema drops the `null` branch FastAPI gives `X | None` (a generator
  or fuzzer would otherwise send the literal text "null", which is no valid value);
- answers the middleware gives on every /v1 operation are declared there: 422 (text no
  store can hold, app/text_guard.py) and 413 on operations that take a body.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.errors import error_responses


def refine(schema: dict[str, Any], problem_schema: dict[str, Any]) -> dict[str, Any]:
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components.setdefault("Problem", problem_schema)
    for path, operations in schema.get("paths", {}).items():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter.get("in") in ("header", "query"):
                    parameter["schema"] = _without_null(parameter.get("schema", {}))
            if path.startswith("/v1"):
                _declare_middleware_answers(operation)
    return schema


def _without_null(schema: dict[str, Any]) -> dict[str, Any]:
    branches = schema.get("anyOf")
    if not isinstance(branches, list):
        return schema
    kept = [b for b in branches if b != {"type": "null"}]
    if len(kept) == len(branches):
        return schema
    rest = {k: v for k, v in schema.items() if k != "anyOf"}
    return {**kept[0], **rest} if len(kept) == 1 else {**rest, "anyOf": kept}


def _declare_middleware_answers(operation: dict[str, Any]) -> None:
    statuses = [422, 413] if "requestBody" in operation else [422]
    responses = operation.setdefault("responses", {})
    for status, entry in error_responses(*statuses).items():
        if str(status) in responses:
            continue
        responses[str(status)] = {
            "description": entry["description"],
            "content": entry["content"],
        }


def install(app: Any, problem_schema: dict[str, Any]) -> None:
    """Wrap the app's document builder (the result is cached by FastAPI)."""
    original: Callable[[], dict[str, Any]] = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = refine(original(), problem_schema)
        return app.openapi_schema  # type: ignore[no-any-return]

    app.openapi = openapi
