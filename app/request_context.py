"""The outermost middleware: the request's id (`X-Request-ID`, taken from the client when
it is a sane token, else generated) bound for every log line and problem document of the
request and returned on every answer, and the one access log line of the request."""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Mapping

from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config_http import CorsSettings
from app.deadline import serving_request
from app.logs import bind_request_id
from app.replicas import TOKEN_HEADER

REQUEST_ID_HEADER = "X-Request-ID"
_HEADER = REQUEST_ID_HEADER.lower().encode()
_TOKEN = TOKEN_HEADER.lower().encode()
# Sane: 1–128 visible ASCII characters (no spaces, no control characters), so an id
# copied into a log line or a header can never split or forge either.
_SANE = re.compile(rb"[\x21-\x7e]{1,128}")
# Probes and scrapes come every few seconds from the platform: their lines are debug.
_QUIET_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})

access_log = logging.getLogger("membrane.access")


def request_id_from(headers: list[tuple[bytes, bytes]]) -> str:
    """The client's X-Request-ID when sane, else a fresh uuid4 hex."""
    for name, value in headers:
        if name.lower() == _HEADER:
            if _SANE.fullmatch(value):
                return value.decode("ascii")
            break
    return uuid.uuid4().hex


class RequestContextMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = request_id_from(scope.get("headers") or [])
        bind_request_id(request_id)
        started = time.perf_counter()
        status = 500  # unless an answer starts: an exception escaped (rendered outside)

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                headers = list(message.get("headers") or [])
                if not any(name.lower() == _HEADER for name, _ in headers):
                    headers.append((_HEADER, request_id.encode("ascii")))
                token = (scope.get("state") or {}).get("consistency_token")
                if token:  # a write's commit position, with read replicas (request_work)
                    headers.append((_TOKEN, token.encode("ascii")))
                message = {**message, "headers": headers}
            await send(message)

        try:
            with serving_request():  # the request's database work has deadlines
                await self.app(scope, receive, send_with_id)
        finally:
            _log_access(scope, status, time.perf_counter() - started)


def _log_access(scope: Scope, status: int, elapsed_s: float) -> None:
    path = str(scope.get("path", ""))
    level = logging.DEBUG if path in _QUIET_PATHS else logging.INFO
    if not access_log.isEnabledFor(level):
        return
    state: Mapping[str, object] = scope.get("state") or {}
    route = scope.get("route")
    method = str(scope.get("method", ""))
    access_log.log(
        level,
        "%s %s %d",
        method,
        path,
        status,
        extra={
            "principal": getattr(state.get("principal"), "actor_id", None),
            "method": method,
            "route": getattr(route, "path", None) if route is not None else None,
            "path": path,
            "status": status,
            "latency_ms": round(elapsed_s * 1000, 1),
        },
    )


def add_cors(app: Starlette, cors: CorsSettings) -> None:
    """Starlette's CORS middleware when origins are allowed; none at all otherwise (no CORS
    header is ever sent). Keys travel in Authorization, never in cookies: no credentials."""
    if not cors.allow_origins:
        return
    app.add_middleware(
        CORSMiddleware,
        allow_origins=cors.allow_origins,
        allow_methods=cors.allow_methods,
        allow_headers=cors.allow_headers,
        expose_headers=cors.expose_headers,
        allow_credentials=False,
        max_age=cors.max_age_s,
    )
