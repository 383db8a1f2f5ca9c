"""The one tool layer: every MCP tool is one REST call made with an httpx client.

Where the client comes from is the transport's business (app/mcp/backends.py): in the
service, a client over the app itself carrying the MCP caller's own Authorization and
X-Membrane-* headers; over stdio, a client of a Membrane base URL with a configured key.
Either way the REST endpoint authenticates, narrows trust, rate limits, sheds load,
validates and writes, exactly as for any REST client; this layer only maps arguments to
a request and the answer to a tool result. A problem+json answer becomes a tool error
carrying the problem (status, title, detail, validation errors).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, cast
from urllib.parse import quote

import httpx
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp.types import CallToolResult, TextContent
from pydantic import ConfigDict

from app.errors import PROBLEM_BASE, FieldError, ProblemJson
from app.json_walk import JsonDocument
from app.mcp.contract import input_schema, operation
from app.mcp.operations import OPERATIONS, Operation

McpContext = Context[Any, Any]
# A client for one tool call, ready to send REST requests as the MCP caller.
ClientFactory = Callable[[McpContext], AbstractAsyncContextManager[httpx.AsyncClient]]


class ToolProblem(ProblemJson, total=False):
    """The problem a tool error carries: REST's (or one made here), with the answer's
    Retry-After when it had one."""

    retry_after: str


class PassThrough(ArgModelBase):
    """Arguments go to REST as sent (REST validates them): nothing is coerced or
    defaulted here, so an MCP call and a REST call with the same body behave the same."""

    model_config = ConfigDict(extra="allow", arbitrary_types_allowed=True)

    def model_dump_one_level(self) -> dict[str, object]:
        return {"arguments": dict(self.model_extra or {})}


def build_tools(document: JsonDocument, clients: ClientFactory) -> list[Tool]:
    return [_tool(op, document, clients) for op in OPERATIONS]


def _tool(op: Operation, document: JsonDocument, clients: ClientFactory) -> Tool:
    schema = input_schema(document, op.method, op.path, op.path_params, op.idempotency_key)
    structured = structured_fields(schema)
    described = operation(document, op.method, op.path).get("description")
    description = op.description + (f"\n\n{described}" if described else "")

    async def run(arguments: dict[str, object], ctx: McpContext) -> CallToolResult:
        return await call(op, structured, clients, arguments, ctx)

    return Tool(
        fn=run,
        name=op.name,
        title=op.title,
        description=description,
        parameters=schema,
        fn_metadata=FuncMetadata(arg_model=PassThrough),
        is_async=True,
        context_kwarg="ctx",
        annotations=op.annotations,
    )


async def call(
    op: Operation,
    structured: frozenset[str],
    clients: ClientFactory,
    arguments: Mapping[str, object],
    ctx: McpContext,
) -> CallToolResult:
    """One REST request for one tool call."""
    body = decode_json_strings(arguments, structured)
    headers: dict[str, str] = {}
    if op.idempotency_key and "idempotency_key" in body:
        headers["Idempotency-Key"] = str(body.pop("idempotency_key"))
    path = op.path
    for name in op.path_params:
        value = body.pop(name, None)
        if not isinstance(value, str) or not value:
            return error_result(missing_parameter(name))
        path = path.replace("{" + name + "}", quote(value, safe=""))
    if op.method == "GET" and body:  # no body to carry them: refuse, as REST refuses extras
        return error_result(unexpected_arguments(sorted(body)))
    try:
        async with clients(ctx) as client:
            response = await client.request(
                op.method, path, json=body if op.method != "GET" else None, headers=headers
            )
    except httpx.TransportError as exc:  # stdio: the service is down or unreachable
        return error_result(unreachable(exc))
    return to_result(response)


def decode_json_strings(
    arguments: Mapping[str, object], structured: frozenset[str]
) -> dict[str, object]:
    """Some clients send an object or array argument as a JSON string: decode those, for
    the `structured` fields (a string is never valid there)."""
    decoded_arguments = dict(arguments)
    for name, value in arguments.items():
        if isinstance(value, str) and name in structured:
            try:
                decoded = json.loads(value)
            except ValueError:
                continue
            if isinstance(decoded, dict | list):
                decoded_arguments[name] = decoded
    return decoded_arguments


def structured_fields(schema: Mapping[str, object]) -> frozenset[str]:
    """The fields of a tool's input schema that allow only objects or arrays."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return frozenset()
    return frozenset(
        name
        for name, field in properties.items()
        if isinstance(field, dict) and _structured_only(field)
    )


def _structured_only(field: Mapping[str, object]) -> bool:
    branches = field.get("anyOf", [field])
    if not isinstance(branches, list):
        return False
    kinds = [b.get("type") for b in branches if isinstance(b, dict) and b.get("type") != "null"]
    return bool(kinds) and all(kind in ("object", "array") for kind in kinds)


def to_result(response: httpx.Response) -> CallToolResult:
    """A 2xx answer → its JSON (as text and as structured content); else a tool error."""
    if not response.is_success:
        return error_result(problem_of(response))
    body = _json_body(response)
    structured = body if isinstance(body, dict) else {"result": body}
    text = json.dumps(body, ensure_ascii=False)
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=structured
    )


def problem_of(response: httpx.Response) -> ToolProblem:
    """A failed answer's problem: REST's problem+json, else one made of the status line."""
    body = _json_body(response)
    if isinstance(body, dict) and "status" in body:
        problem = cast(ToolProblem, body)
    else:
        problem = _plain_problem(response)
    retry_after = response.headers.get("Retry-After")
    if retry_after is not None:
        problem = problem.copy()
        problem["retry_after"] = retry_after
    return problem


def _json_body(response: httpx.Response) -> object:
    try:
        body: object = response.json()
    except ValueError:
        body = None
    return body


def _plain_problem(response: httpx.Response) -> ToolProblem:
    return {
        "type": "about:blank",
        "title": response.reason_phrase or "Error",
        "status": response.status_code,
        "detail": response.text[:2000] or None,
    }


def unreachable(exc: httpx.TransportError) -> ToolProblem:
    return {
        "type": "about:blank",
        "title": "Service unavailable",
        "status": 503,
        "detail": f"Membrane could not be reached or did not answer ({type(exc).__name__}: "
        f"{exc}). A write may or may not have happened: retry with the same idempotency_key.",
    }


def missing_parameter(name: str) -> ToolProblem:
    error: FieldError = {
        "loc": ["path", name],
        "msg": "a non-empty string is required",
        "type": "missing",
    }
    return _unprocessable([error])


def unexpected_arguments(names: list[str]) -> ToolProblem:
    msg, kind = "Extra inputs are not permitted", "extra_forbidden"
    return _unprocessable([{"loc": ["body", name], "msg": msg, "type": kind} for name in names])


def _unprocessable(errors: list[FieldError]) -> ToolProblem:
    """A problem like REST's validation problem, for arguments refused before any call."""
    first = errors[0]
    return {
        "type": PROBLEM_BASE + "validation-error",
        "title": "Request validation failed",
        "status": 422,
        "detail": f"{'.'.join(first['loc'])}: {first['msg']}",
        "errors": errors,
    }


def error_result(problem: ToolProblem) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=problem_text(problem))],
        structured_content=dict(problem),
        is_error=True,
    )


def problem_text(problem: ToolProblem) -> str:
    """`422 Unprocessable content: detail` plus one line per validation error."""
    head = f"{problem.get('status')} {problem.get('title')}"
    detail = problem.get("detail")
    lines = [f"{head}: {detail}" if detail else head]
    for error in problem.get("errors") or []:
        where = ".".join(str(part) for part in error.get("loc", []))
        lines.append(f"- {where}: {error.get('msg')}")
    if "retry_after" in problem:
        lines.append(f"Retry after {problem['retry_after']} s.")
    return "\n".join(lines)
