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
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any
from urllib.parse import quote

import httpx
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp.types import CallToolResult, TextContent
from pydantic import ConfigDict

from app.errors import PROBLEM_BASE
from app.mcp.contract import input_schema
from app.mcp.operations import OPERATIONS, Operation

McpContext = Context[Any, Any]
# A client for one tool call, ready to send REST requests as the MCP caller.
ClientFactory = Callable[[McpContext], AbstractAsyncContextManager[httpx.AsyncClient]]


class PassThrough(ArgModelBase):
    """Arguments go to REST as sent (REST validates them): nothing is coerced or
    defaulted here, so an MCP call and a REST call with the same body behave the same."""

    model_config = ConfigDict(extra="allow", arbitrary_types_allowed=True)

    def model_dump_one_level(self) -> dict[str, Any]:
        return {"arguments": dict(self.model_extra or {})}


def build_tools(document: dict[str, Any], clients: ClientFactory) -> list[Tool]:
    return [_tool(op, document, clients) for op in OPERATIONS]


def _tool(op: Operation, document: dict[str, Any], clients: ClientFactory) -> Tool:
    schema = input_schema(document, op.method, op.path, op.path_params, op.idempotency_key)
    described = document["paths"][op.path][op.method.lower()].get("description")
    description = op.description + (f"\n\n{described}" if described else "")

    async def run(arguments: dict[str, Any], ctx: McpContext) -> CallToolResult:
        return await call(op, schema, clients, arguments, ctx)

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
    schema: dict[str, Any],
    clients: ClientFactory,
    arguments: dict[str, Any],
    ctx: McpContext,
) -> CallToolResult:
    """One REST request for one tool call."""
    body = decode_json_strings(dict(arguments), schema)
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


def decode_json_strings(arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Some clients send an object or array argument as a JSON string: decode those, for
    fields whose schema allows only objects or arrays (a string is never valid there)."""
    properties: dict[str, Any] = schema.get("properties", {})
    for name, value in arguments.items():
        if isinstance(value, str) and _structured_only(properties.get(name, {})):
            try:
                decoded = json.loads(value)
            except ValueError:
                continue
            if isinstance(decoded, dict | list):
                arguments[name] = decoded
    return arguments


def _structured_only(field: dict[str, Any]) -> bool:
    branches = field.get("anyOf", [field])
    kinds = [b.get("type") for b in branches if b.get("type") != "null"]
    return bool(kinds) and all(kind in ("object", "array") for kind in kinds)


def to_result(response: httpx.Response) -> CallToolResult:
    """A 2xx answer → its JSON (as text and as structured content); else a tool error."""
    try:
        body: Any = response.json()
    except ValueError:
        body = None
    if response.is_success:
        structured = body if isinstance(body, dict) else {"result": body}
        text = json.dumps(body, ensure_ascii=False)
        return CallToolResult(
            content=[TextContent(type="text", text=text)], structured_content=structured
        )
    problem = body if isinstance(body, dict) and "status" in body else _problem_of(response)
    retry_after = response.headers.get("Retry-After")
    if retry_after is not None:
        problem = {**problem, "retry_after": retry_after}
    return error_result(problem)


def _problem_of(response: httpx.Response) -> dict[str, Any]:
    return {
        "type": "about:blank",
        "title": response.reason_phrase or "Error",
        "status": response.status_code,
        "detail": response.text[:2000] or None,
    }


def unreachable(exc: httpx.TransportError) -> dict[str, Any]:
    return {
        "type": "about:blank",
        "title": "Service unavailable",
        "status": 503,
        "detail": f"Membrane could not be reached or did not answer ({type(exc).__name__}: "
        f"{exc}). A write may or may not have happened: retry with the same idempotency_key.",
    }


def missing_parameter(name: str) -> dict[str, Any]:
    error = {"loc": ["path", name], "msg": "a non-empty string is required", "type": "missing"}
    return _unprocessable([error])


def unexpected_arguments(names: list[str]) -> dict[str, Any]:
    msg, kind = "Extra inputs are not permitted", "extra_forbidden"
    return _unprocessable([{"loc": ["body", name], "msg": msg, "type": kind} for name in names])


def _unprocessable(errors: list[dict[str, Any]]) -> dict[str, Any]:
    """A problem like REST's validation problem, for arguments refused before any call."""
    first = errors[0]
    return {
        "type": PROBLEM_BASE + "validation-error",
        "title": "Request validation failed",
        "status": 422,
        "detail": f"{'.'.join(first['loc'])}: {first['msg']}",
        "errors": errors,
    }


def error_result(problem: dict[str, Any]) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=problem_text(problem))],
        structured_content=problem,
        is_error=True,
    )


def problem_text(problem: dict[str, Any]) -> str:
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
