"""One reading of each header that decides who a request is and what it carries.

Starlette's `request.headers.get` reads the first of repeated headers, a plain
`dict(scope["headers"])` the last: with two `Content-Type` or two `Authorization`
headers, one layer (the text guard, the rate limiter) would judge a value that another
(the parser, the principal) never uses. HTTP allows a header to repeat only when its
values form a comma-separated list (RFC 9110 §5.3), which none of these are, so a request
that repeats one answers 400 before anything reads it.
"""

from __future__ import annotations

from collections import Counter

from starlette.types import ASGIApp, Receive, Scope, Send

from app.middleware import send_problem

SINGLE_VALUED = frozenset(
    {
        b"authorization",
        b"content-type",
        b"content-length",
        b"host",
        b"idempotency-key",
        b"x-membrane-max-sensitivity",
        b"x-membrane-scopes",
    }
)


def repeated_header(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The first single-valued header that appears more than once, or None."""
    counts = Counter(name.lower() for name, _ in headers if name.lower() in SINGLE_VALUED)
    for name, count in counts.items():
        if count > 1:
            return name.decode("latin-1")
    return None


class HeaderGuardMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            name = repeated_header(scope.get("headers") or [])
            if name is not None:
                detail = f"The {name} header appears more than once; send it once."
                await send_problem(send, 400, "Bad request", "repeated-header", detail)
                return
        await self.app(scope, receive, send)
