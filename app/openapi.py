"""The OpenAPI document, made to say what the service does (issue 10, finding 7).

FastAPI derives most of it from the routes; this pass adds what it cannot see:
- `Problem` is a named component even before a route references it;
- a header or query parameter is never JSON null: an absent optional parameter is simply
  not sent, so its schema drops the `null` branch FastAPI gives `X | None` (a generator
  or fuzzer would otherwise send the literal text "null", which is no valid value);
- answers given before a route runs are declared on every /v1 operation: 422 (text no
  store can hold, app/text_guard.py), 413 on operations that take a body, and the HTTP
  server's own 400 for malformed requests (a request line or header section over 64 KiB,
  for one: uvicorn's parser refuses it as plain text before the service sees it);
- every 422 is the service's problem+json, not FastAPI's default validation schema;
- the HTTP server's 400 is declared on the operations outside /v1 too, and the 503 of a
  database that cannot serve on GET /metrics (it reads the database; it is never shed);
- the tags, one per operation, are described in the order clients list their modules;
- every operation takes an optional `X-Request-ID` header and every answer carries one
  (app/request_context.py: the client's when sane, else a fresh one).

The bearer scheme comes from app.deps (FastAPI declares it on every operation that
depends on the principal); record payloads are typed in app.records.payloads.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.encoders import jsonable_encoder
from fastapi.routing import APIRoute
from fastapi.security.base import SecurityBase

from app.errors import error_responses
from app.json_walk import JsonDocument, integral_bounds
from app.request_headers import DocumentedHeader, documented_caller, documented_headers

# One tag per operation: a generated client's module (openapi-python-client: api/<tag>/).
TAGS: list[dict[str, str]] = [
    {"name": "capture", "description": "Raw experience in; typed records, entities, edges out."},
    {
        "name": "ingest",
        "description": "Typed ingestion: events, observations, tool outputs, working states, "
        "episodes, and the outcome of an episode.",
    },
    {"name": "records", "description": "Create, list, read and delete records; audit, edges."},
    {"name": "retrieve", "description": "Ranked and graph retrieval, trust-filtered."},
    {"name": "revise", "description": "Supersede, fork, retract, contest and merge records."},
    {"name": "salience", "description": "Reinforce, penalize, pin and unpin a record."},
    {"name": "embeddings", "description": "Admin: the embedding backfill."},
    {"name": "jobs", "description": "Admin: run a background job now; job-run history."},
    {"name": "transfer", "description": "Admin: export and import memory as NDJSON."},
    {"name": "metrics", "description": "Domain snapshot and Prometheus exposition."},
    {"name": "health", "description": "Liveness and readiness (no authentication)."},
]
REQUEST_ID_PARAMETER: dict[str, object] = {
    "name": "X-Request-ID",
    "in": "header",
    "required": False,
    "description": "Your id for this request, echoed back and written in every log line and "
    "problem document of the request; 1 to 128 visible ASCII characters (anything else is "
    "replaced by a fresh id, never refused).",
    "schema": {"type": "string"},
}
REQUEST_ID_HEADER: dict[str, object] = {
    "description": "The request's id: the client's X-Request-ID when sane, else a fresh one.",
    "schema": {"type": "string"},
}
# Public operations that read the database: they answer 503 when it cannot serve.
READS_DATABASE = {("/metrics", "get")}


@dataclass
class SelfRead:
    """What an operation's dependencies read from the request themselves
    (app/request_headers.py): the headers, and the callers they check."""

    headers: list[DocumentedHeader] = field(default_factory=list)
    callers: list[SecurityBase] = field(default_factory=list)


def refine(
    schema: JsonDocument,
    problem_schema: Mapping[str, object],
    self_read: Mapping[tuple[str, str], SelfRead] | None = None,
) -> JsonDocument:
    """FastAPI's document with the service's own declarations: the problem responses,
    the request id, and what each operation's dependencies read themselves (`self_read`,
    by path and method)."""
    for operation_key, read in (self_read or {}).items():
        _declare_callers(schema, *operation_key, read.callers)
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components.setdefault("Problem", problem_schema)
    schema["tags"] = [dict(tag) for tag in TAGS]
    for path, operations in schema.get("paths", {}).items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                if parameter.get("in") in ("header", "query"):
                    parameter["schema"] = _without_null(parameter.get("schema", {}))
            declared = (self_read or {}).get((path, method))
            _declare_headers(operation, declared.headers if declared is not None else ())
            if path.startswith("/v1"):
                _declare_middleware_answers(operation)
            else:
                _declare_public_answers(operation, (path, method) in READS_DATABASE)
            _declare_request_id(operation)
    if "HTTPValidationError" not in json.dumps(schema["paths"]):
        components.pop("HTTPValidationError", None)
        components.pop("ValidationError", None)
    integral_bounds(schema)
    return schema


def _declare_headers(operation: JsonDocument, headers: Sequence[DocumentedHeader]) -> None:
    """`headers` where FastAPI would have listed them as header parameters: after the
    path and query parameters, before its own header parameters (an operation with none
    gets its `parameters` where FastAPI puts them, before the request body)."""
    if not headers:
        return
    if "parameters" not in operation:
        _insert_before(operation, ("requestBody", "responses"), "parameters", [])
    parameters = operation["parameters"]
    at = next((i for i, p in enumerate(parameters) if p.get("in") == "header"), len(parameters))
    parameters[at:at] = [copy.deepcopy(h.parameter) for h in headers]


def _insert_before(
    operation: JsonDocument, following: Sequence[str], key: str, value: object
) -> None:
    """In place: `key` added to `operation` before the first of `following` it holds."""
    keys = list(operation)
    at = next((i for i, k in enumerate(keys) if k in following), len(keys))
    rest = {k: operation.pop(k) for k in keys[at:]}
    operation[key] = value
    operation.update(rest)


def self_read_by_operation(app: FastAPI) -> dict[tuple[str, str], SelfRead]:
    """(path, method) → the headers its dependencies read themselves and the callers they
    check (app/request_headers.py), in the order the dependencies are declared."""
    found: dict[tuple[str, str], SelfRead] = {}
    for route in app.routes:
        if isinstance(route, APIRoute) and route.include_in_schema:
            read = SelfRead()
            _collect(route.dependant, read)
            if read.headers or read.callers:
                for method in sorted(route.methods or ()):
                    # keyed as the document keys its paths (a `{rest:path}` is `{rest}`)
                    found[(route.path_format, method.lower())] = read
    return found


def _collect(dependant: Dependant, read: SelfRead) -> None:
    for sub in dependant.dependencies:
        _collect(sub, read)
        read.headers += documented_headers(sub.call)
        caller = documented_caller(sub.call)
        if caller is not None:
            read.callers.append(caller)


def _declare_callers(
    schema: JsonDocument, path: str, method: str, callers: Sequence[SecurityBase]
) -> None:
    """`callers`' security schemes, where FastAPI would have declared a security
    dependency's: the operation's `security` after its metadata (tags, summary,
    description, operationId), before its parameters and body; the scheme among the
    components."""
    operation = schema.get("paths", {}).get(path, {}).get(method)
    if not callers or operation is None:
        return
    needed: list[dict[str, list[str]]] = [{c.scheme_name: []} for c in callers]
    if "security" in operation:
        operation["security"] += needed
    else:
        _insert_before(operation, ("parameters", "requestBody", "responses"), "security", needed)
    schemes = schema.setdefault("components", {}).setdefault("securitySchemes", {})
    for caller in callers:
        schemes.setdefault(
            caller.scheme_name, jsonable_encoder(caller.model, by_alias=True, exclude_none=True)
        )


def _without_null(schema: dict[str, object]) -> dict[str, object]:
    branches = schema.get("anyOf")
    if not isinstance(branches, list):
        return schema
    kept = [b for b in branches if b != {"type": "null"}]
    if len(kept) == len(branches):
        return schema
    rest = {k: v for k, v in schema.items() if k != "anyOf"}
    return {**kept[0], **rest} if len(kept) == 1 else {**rest, "anyOf": kept}


MALFORMED_HTTP_CONTENT: dict[str, object] = {"text/plain": {"schema": {"type": "string"}}}
MALFORMED_HTTP: dict[str, object] = {
    "description": "Malformed HTTP, refused by the HTTP server before the service runs "
    "(for example a request line or headers over 64 KiB).",
    "content": MALFORMED_HTTP_CONTENT,
}


def _declare_middleware_answers(operation: JsonDocument) -> None:
    statuses = [422, 413] if "requestBody" in operation else [422]
    responses = operation.setdefault("responses", {})
    for status, entry in error_responses(*statuses).items():
        problem = {"description": entry["description"], "content": entry["content"]}
        if str(status) not in responses or _is_fastapi_default(responses[str(status)]):
            responses[str(status)] = problem
    if "400" in responses:  # the service's own 400 (problem+json) and the server's
        responses["400"].setdefault("content", {}).update(MALFORMED_HTTP_CONTENT)
    else:
        responses["400"] = copy.deepcopy(MALFORMED_HTTP)


def _declare_public_answers(operation: JsonDocument, reads_database: bool) -> None:
    responses = operation.setdefault("responses", {})
    responses.setdefault("400", copy.deepcopy(MALFORMED_HTTP))
    if reads_database:
        unavailable = error_responses()[503]
        responses.setdefault(
            "503",
            {
                "description": "The database cannot serve now (unreachable, restarting, "
                "or no connection free in time); retry after Retry-After.",
                "content": unavailable["content"],
                "headers": unavailable["headers"],
            },
        )


def _declare_request_id(operation: JsonDocument) -> None:
    parameters = operation.setdefault("parameters", [])
    if not any(p.get("name") == "X-Request-ID" for p in parameters):
        parameters.append(copy.deepcopy(REQUEST_ID_PARAMETER))
    for response in operation.get("responses", {}).values():
        response.setdefault("headers", {})["X-Request-ID"] = copy.deepcopy(REQUEST_ID_HEADER)


def _is_fastapi_default(response: Mapping[str, object]) -> bool:
    return "HTTPValidationError" in str(response.get("content", {}))


def install(app: FastAPI, problem_schema: Mapping[str, object]) -> None:
    """Wrap the app's document builder (the result is cached by FastAPI)."""
    original: Callable[[], JsonDocument] = app.openapi

    def openapi() -> JsonDocument:
        if app.openapi_schema is None:
            app.openapi_schema = refine(original(), problem_schema, self_read_by_operation(app))
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
