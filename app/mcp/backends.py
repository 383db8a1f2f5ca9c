"""Where a tool call's REST client comes from, per transport.

In the service (/mcp), the client talks to the app itself, in process, as the MCP
caller: it carries the caller's `Authorization` and `X-Membrane-*` narrowing headers and
client address, so the REST endpoint applies that caller's key, trust, rate limit
bucket and load shedding, and the access log shows one line per tool call. Over stdio
it is one long-lived client of a Membrane base URL, with the configured key.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from mcp.server.mcpserver.exceptions import ToolError
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.mcp.tools import ClientFactory, McpContext
from app.middleware import TOOL_CALL
from app.replicas import TOKEN_HEADER

# Request headers a tool call carries over from the MCP request to its REST request.
FORWARDED = (
    "authorization",
    "x-membrane-max-sensitivity",
    "x-membrane-scopes",
    "x-request-id",
    TOKEN_HEADER.lower(),
)


@asynccontextmanager
async def in_process_client(ctx: McpContext) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the service's own ASGI app, as the caller of this MCP request."""
    request = ctx.request_context.request
    if not isinstance(request, Request):
        raise ToolError("no HTTP request to take the caller's credentials from")
    headers = {name: value for name in FORWARDED if (value := request.headers.get(name))}
    peer = request.client
    transport = httpx.ASGITransport(
        app=as_tool_call(request.scope["app"]),
        raise_app_exceptions=False,  # a 500 is an answer (problem+json), not an exception
        client=(peer.host, peer.port) if peer else ("127.0.0.1", 0),
    )

    async def hand_back_token(response: httpx.Response) -> None:
        # A write's consistency token rides on the /mcp answer (app/request_context.py).
        if token := response.headers.get(TOKEN_HEADER):
            request.state.consistency_token = token

    async with httpx.AsyncClient(
        transport=transport,
        base_url=str(request.base_url),
        headers=headers,
        trust_env=False,
        event_hooks={"response": [hand_back_token]},
    ) as client:
        yield client


def as_tool_call(app: ASGIApp) -> ASGIApp:
    """`app`, with every request marked as a tool call of an /mcp request already charged
    to the caller's rate-limit bucket (a scope key no client can set)."""

    async def marked(scope: Scope, receive: Receive, send: Send) -> None:
        await app({**scope, TOOL_CALL: True}, receive, send)

    return marked


def remote_clients(client: httpx.AsyncClient) -> ClientFactory:
    """Every tool call uses `client` (base URL, key and narrowing headers preset)."""

    @asynccontextmanager
    async def clients(_ctx: McpContext) -> AsyncIterator[httpx.AsyncClient]:
        yield client

    return clients
