"""ASGI middleware: body size limit (before parsing), per-principal rate limiting, and
load shedding (a bounded number of requests in flight, a bounded wait for a turn)."""

from __future__ import annotations

import asyncio
import json
import math
import threading
import time
from collections import OrderedDict
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.backlog import moving_mean, retry_after_s
from app.errors import PROBLEM_BASE, PROBLEM_MEDIA_TYPE
from app.logs import current_request_id
from app.security import KeyStore, bearer_token
from app.text_guard import body_problem, text_problem


async def send_problem(
    send: Send,
    status: int,
    title: str,
    slug: str,
    detail: str,
    headers: dict[str, str] | None = None,
) -> None:
    problem: dict[str, object] = {
        "type": PROBLEM_BASE + slug,
        "title": title,
        "status": status,
        "detail": detail,
    }
    request_id = current_request_id()
    if request_id is not None:
        problem["request_id"] = request_id
    body = json.dumps(problem).encode()
    raw_headers = [
        (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
        (b"content-length", str(len(body)).encode()),
    ] + [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": body})


# Bodies read as a stream by their endpoint, which enforces its own limit and checks the
# text line by line (POST /v1/import: an export file can be far larger than any request).
STREAMED_BODIES = frozenset({"/v1/import"})


class BodyLimitMiddleware:
    """Refuses bodies over the limit with 413 before anything parses them."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") in STREAMED_BODIES:
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                too_big = int(declared) > self.max_bytes
            except ValueError:
                too_big = False
            if too_big:
                await self._refuse(send)
                return
            await self.app(scope, receive, send)
            return
        # No declared length (chunked): buffer up to the limit, then replay.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._refuse(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        await self.app(scope, _replaying(b"".join(chunks), receive), send)

    async def _refuse(self, send: Send) -> None:
        await send_problem(
            send,
            413,
            "Payload too large",
            "payload-too-large",
            f"The request body exceeds {self.max_bytes} bytes.",
        )


def _is_api_request(scope: Scope) -> bool:
    """/v1 HTTP requests: the ones guarded, rate limited and shed (never health or
    /metrics)."""
    return scope["type"] == "http" and str(scope.get("path", "")).startswith("/v1")


async def _read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replaying(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


class TextGuardMiddleware:
    """422 for /v1 requests carrying text no store can hold (app/text_guard.py) in the
    path, query, headers or JSON body, and for bodies that are not UTF-8."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not _is_api_request(scope):
            await self.app(scope, receive, send)
            return
        problem = _request_line_problem(scope)
        if problem is None and _has_json_body(scope) and scope["path"] not in STREAMED_BODIES:
            body = await _read_body(receive)
            problem = body_problem(body)
            receive = _replaying(body, receive)
        if problem is not None:
            await send_problem(send, 422, "Unprocessable content", "unprocessable", problem)
            return
        await self.app(scope, receive, send)


def _request_line_problem(scope: Scope) -> str | None:
    problem = text_problem(str(scope.get("path", "")), "path")
    query: bytes = scope.get("query_string", b"")
    if problem is None and b"%00" in query:
        problem = "query: NUL characters (U+0000) are not accepted."
    for name, value in scope.get("headers") or []:
        if problem is None and b"\x00" in value:
            problem = f"header.{name.decode('latin-1')}: NUL characters are not accepted."
    return problem


def _has_json_body(scope: Scope) -> bool:
    if scope.get("method") not in ("POST", "PUT", "PATCH"):
        return False
    headers = dict(scope.get("headers") or [])
    content_type = headers.get(b"content-type", b"application/json").lower()
    return b"json" in content_type


class TokenBuckets:
    """One token bucket per caller, at most `max_callers` of them: the least recently seen
    is forgotten first (a forgotten caller starts again with a full bucket, which is what
    its bucket would hold after an idle burst/rate seconds anyway)."""

    def __init__(self, rate: float, burst: int, max_callers: int = 10_000) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.max_callers = max_callers
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._buckets)

    def take(self, key: str, now: float | None = None) -> float:
        """0 when allowed, else seconds until a token is available."""
        now = time.monotonic() if now is None else now
        with self._lock:
            tokens, last = self._buckets.pop(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            allowed = tokens >= 1.0
            self._buckets[key] = (tokens - 1.0 if allowed else tokens, now)
            while len(self._buckets) > self.max_callers:
                self._buckets.popitem(last=False)
            return 0.0 if allowed else (1.0 - tokens) / self.rate


# Scope key of a REST request made in process by an /mcp tool call (app/mcp/backends.py):
# the /mcp request paid its token already.
TOOL_CALL = "membrane.tool_call"


class RateLimitMiddleware:
    """429 + Retry-After once a caller's bucket is empty. A caller is the principal of a
    valid key (however the Authorization header is spelled); requests without a valid key
    share their client address's bucket, so random keys cannot mint fresh buckets."""

    def __init__(self, app: ASGIApp, buckets: TokenBuckets, keys: KeyStore) -> None:
        self.app = app
        self.buckets = buckets
        self.keys = keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not _is_api_request(scope) or scope.get(TOOL_CALL):
            await self.app(scope, receive, send)
            return
        if await refused_by_rate_limit(scope, send, self.buckets, self.keys):
            return
        await self.app(scope, receive, send)


async def refused_by_rate_limit(
    scope: Scope, send: Send, buckets: TokenBuckets, keys: KeyStore
) -> bool:
    """Take a token from the caller's bucket; with none left, answer 429 with Retry-After
    and return True. Shared by /v1 and the /mcp endpoint."""
    wait = buckets.take(rate_limit_caller(scope, keys))
    if wait <= 0:
        return False
    await send_problem(
        send,
        429,
        "Too many requests",
        "rate-limited",
        "Rate limit exceeded for this principal.",
        {"Retry-After": str(max(1, math.ceil(wait)))},
    )
    return True


def rate_limit_caller(scope: Scope, keys: KeyStore) -> str:
    """The bucket a request draws from: its principal's, or its client address's when it
    has no valid key (and in open mode). Shared by /v1 and the /mcp endpoint."""
    headers: dict[bytes, bytes] = dict(scope.get("headers") or [])
    token = bearer_token(headers.get(b"authorization", b"").decode("latin-1"))
    principal = keys.find(token) if token and not keys.open_mode else None
    if principal is not None:
        return "principal:" + principal.actor_id
    client: Any = scope.get("client") or ("unknown", 0)
    return f"addr:{client[0]}"


class CapacityMiddleware:
    """At most `max_in_flight` /v1 requests run at once; up to `max_queued` more wait at
    most `queue_timeout_s` for a turn. Anything beyond answers 503 + Retry-After at once,
    so a saturated service sheds load in milliseconds instead of queueing requests until
    their clients time out. Retry-After is the time the waiting requests take to drain
    (between `retry_after_s` and `max_retry_after_s`). Health, readiness and /metrics are
    never shed.

    `rebalance`: an answer to a request that found every slot taken (it queued, or was
    shed) closes its keep-alive connection, so that the client's next connection lands on
    whichever process (or, through an L4 balancer such as kube-proxy, pod) accepts it
    first, and an idle one accepts first. Without it a burst of connections that one
    process accepted stays pinned to it while its siblings idle (docs/scaling.md)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_in_flight: int,
        max_queued: int,
        queue_timeout_s: float,
        retry_after_s: int,
        max_retry_after_s: int,
        rebalance: bool = True,
    ) -> None:
        self.app = app
        self.rebalance = rebalance
        self.max_in_flight = max_in_flight
        self.slots = asyncio.Semaphore(max_in_flight)
        self.max_queued = max_queued
        self.queue_timeout_s = queue_timeout_s
        self.retry_after_s = retry_after_s
        self.max_retry_after_s = max(max_retry_after_s, retry_after_s)
        self.queued = 0
        self.mean_service_s: float | None = None  # of the requests this process finished

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not _is_api_request(scope):
            await self.app(scope, receive, send)
            return
        saturated = self.rebalance and self.slots.locked()
        if not await self._take_turn():
            headers = {"Retry-After": str(self._retry_after_s())}
            if saturated:
                headers["Connection"] = "close"
            await send_problem(
                send,
                503,
                "Service unavailable",
                "overloaded",
                "The service is at capacity; retry after the delay in Retry-After.",
                headers,
            )
            return
        started = time.monotonic()
        try:
            await self.app(scope, receive, _closing(send) if saturated else send)
        finally:
            self.slots.release()
            # Capped: one long request (an import) must not hold every client off for long.
            took = min(time.monotonic() - started, self.max_retry_after_s)
            self.mean_service_s = moving_mean(self.mean_service_s, took)

    def _retry_after_s(self) -> int:
        """The time the requests waiting now take to drain (app/backlog.py), within the
        configured bounds; the floor while nothing has finished yet."""
        return retry_after_s(
            self.queued,
            self.max_in_flight,
            self.mean_service_s or 0.0,
            self.retry_after_s,
            self.max_retry_after_s,
        )

    async def _take_turn(self) -> bool:
        if not self.slots.locked():
            await self.slots.acquire()
            return True
        if self.queued >= self.max_queued:
            return False
        self.queued += 1
        try:
            await asyncio.wait_for(self.slots.acquire(), self.queue_timeout_s)
            return True
        except TimeoutError:
            return False
        finally:
            self.queued -= 1


def _closing(send: Send) -> Send:
    """`send` with `Connection: close` added to the response's headers."""

    async def closing(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [h for h in message.get("headers", []) if h[0].lower() != b"connection"]
            message = {**message, "headers": [*headers, (b"connection", b"close")]}
        await send(message)

    return closing
