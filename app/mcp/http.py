"""/mcp: the MCP streamable HTTP transport inside the service.

The endpoint authenticates like /v1 (a valid bearer key, or open mode with no keys
configured; else 401 problem+json, and a request without a valid key draws from its
address's rate-limit bucket first, as on /v1). Every /mcp request then takes one token
from its principal's bucket (429 when empty), and at most `McpLimits` of them run at once
per process, in all and per principal (503 beyond). It is handed to the SDK's session
manager, stateless and answering JSON: no session lives in one process, so any replica or
worker can answer any request, and there is nothing to stream: GET (a server-sent event
stream) answers 405, as the MCP transport allows. Each tool call then makes one REST
request to the app in process as the caller (app/mcp/backends.py), which is where trust
and load shedding apply; that request is not charged a second token.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from app.errors import Unauthorized, problem_response
from app.logs import current_request_id
from app.mcp.backends import in_process_client
from app.mcp.server import build_server
from app.middleware import TokenBuckets, refused_by_rate_limit, send_problem
from app.security import KeyStore, Principal

PATH = "/mcp"
BUSY = "Too many MCP requests in flight; retry after the delay in Retry-After."
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
# With any port (`:*`) or none; an absent Origin (not a browser) is always allowed.
LOOPBACK_HOSTS = [*LOOPBACK, *(f"{host}:*" for host in LOOPBACK)]
LOOPBACK_ORIGINS = [
    f"{scheme}://{host}{port}"
    for scheme in ("http", "https")
    for host in LOOPBACK
    for port in ("", ":*")
]


@dataclass(frozen=True)
class McpLimits:
    """/mcp requests in flight per process: in all, and per principal."""

    max_in_flight: int = 32
    max_per_principal: int = 8


class McpEndpoint:
    """The ASGI app routed at /mcp. `running()` belongs in the app's lifespan."""

    def __init__(
        self,
        keys: KeyStore,
        buckets: TokenBuckets | None = None,
        max_body_bytes: int = 10 << 20,
        limits: McpLimits | None = None,
    ) -> None:
        self.keys = keys
        self.buckets = buckets
        self.max_body_bytes = max_body_bytes  # as /v1's (the SDK's own default is 4 MiB)
        self.limits = limits or McpLimits()
        self.in_flight: Counter[str] = Counter()  # by principal (actor id)
        self.server = build_server(in_process_client)
        self._manager: StreamableHTTPSessionManager | None = None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run a fresh session manager (one can run only once) for the app's lifetime."""
        self.server.streamable_http_app(
            streamable_http_path=PATH,
            stateless_http=True,
            json_response=True,
            transport_security=self._transport_security(),
            max_request_body_size=self.max_body_bytes,
        )
        manager = self.server.session_manager
        async with manager.run():
            self._manager = manager
            try:
                yield
            finally:
                self._manager = None

    def route(self) -> Route:
        """/mcp, every method (the SDK answers the ones it does not serve), not in the
        OpenAPI document (MCP describes itself: tools/list)."""
        return Route(PATH, self, include_in_schema=False)

    def _transport_security(self) -> TransportSecuritySettings:
        """Open mode (loopback only, no key): the SDK's DNS-rebinding guard, so a web page
        cannot reach /mcp through a rebound name. With keys, the bearer key is the guard
        (no cookies: a page cannot send a key it does not have)."""
        if self.keys.open_mode:
            return TransportSecuritySettings(
                enable_dns_rebinding_protection=True,
                allowed_hosts=LOOPBACK_HOSTS,
                allowed_origins=LOOPBACK_ORIGINS,
            )
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers") or [])
        try:
            principal = self.keys.authenticate(headers.get(b"authorization", b"").decode("latin-1"))
        except Unauthorized as exc:
            await self._refuse(scope, receive, send, exc)
            return
        scope.setdefault("state", {})["principal"] = principal  # for the access log line
        if scope.get("method") == "GET":
            await send_problem(
                send,
                405,
                "Method not allowed",
                "method-not-allowed",
                "This MCP endpoint is stateless and offers no event stream; POST messages.",
                {"Allow": "POST"},
            )
            return
        if self.buckets is not None and await refused_by_rate_limit(
            scope, send, self.buckets, self.keys
        ):
            return
        await self._within_limits(principal, scope, receive, send)

    async def _within_limits(
        self, principal: Principal, scope: Scope, receive: Receive, send: Send
    ) -> None:
        manager = self._manager
        who = principal.actor_id
        if manager is None or self._busy(who):
            detail = "The MCP endpoint is not running." if manager is None else BUSY
            await send_problem(
                send, 503, "Service unavailable", "overloaded", detail, {"Retry-After": "1"}
            )
            return
        self.in_flight[who] += 1
        try:
            await manager.handle_request(_with_request_id(scope), receive, send)
        finally:
            self.in_flight[who] -= 1
            if not self.in_flight[who]:
                del self.in_flight[who]

    def _busy(self, who: str) -> bool:
        """Whether the process, or this principal, has as many /mcp requests in flight as
        it may."""
        total = sum(self.in_flight.values())
        return (
            total >= self.limits.max_in_flight
            or self.in_flight[who] >= self.limits.max_per_principal
        )

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, exc: Unauthorized) -> None:
        if self.buckets is not None and await refused_by_rate_limit(
            scope, send, self.buckets, self.keys
        ):
            return
        response = problem_response(
            exc.status,
            exc.detail,
            slug=exc.slug,
            title=exc.title,
            instance=PATH,
            headers=exc.headers,
        )
        await response(scope, receive, send)


def _with_request_id(scope: Scope) -> Scope:
    """The request's id as its X-Request-ID header, so the tool calls it makes carry it
    (their access log lines then share the /mcp request's id)."""
    request_id = current_request_id()
    if request_id is None:
        return scope
    headers = [(k, v) for k, v in scope.get("headers") or [] if k != b"x-request-id"]
    headers.append((b"x-request-id", request_id.encode("ascii")))
    return {**scope, "headers": headers}
