"""Request metrics middleware: counts and times every HTTP request by route template
(never the raw path, which would explode label cardinality) and status."""

from __future__ import annotations

import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.metrics.registry import HTTP_LATENCY, HTTP_REQUESTS

UNMATCHED = "unmatched"


class RequestMetricsMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def record_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, record_status)
        finally:
            # The router stores the matched route in the (shared) scope.
            route = scope.get("route")
            template = str(getattr(route, "path", UNMATCHED)) if route else UNMATCHED
            labels = (str(scope.get("method", "")), template, str(status))
            HTTP_REQUESTS.inc(*labels)
            HTTP_LATENCY.observe(time.perf_counter() - start, *labels)
