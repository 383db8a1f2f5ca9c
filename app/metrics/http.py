"""Request metrics middleware for Prometheus exposition. Filled in by its issue."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send


class RequestMetricsMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)
