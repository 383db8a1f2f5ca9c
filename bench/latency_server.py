"""The API as `python -m app.serve` runs it (one process, settings from MEMBRANE_*), plus
what bench/latency.py measures from outside: every answer carries `X-Bench-Statements`,
the SQL statements its request executed (transaction control left out; an engine event
counts them per request, in
whichever thread the request's work runs). Benchmarks only: the service has no such hook.

    python bench/latency_server.py      # MEMBRANE_PORT, MEMBRANE_DATABASE_URL, ...
"""

from __future__ import annotations

import contextvars
import os
from typing import Any

import uvicorn
from sqlalchemy import event
from sqlalchemy.engine import Engine
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config import get_settings
from app.main import app

_statements: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar(
    "bench_statements", default=None
)


# Transaction control is not counted: SQLite's BEGIN is a statement the driver sends,
# PostgreSQL's is implicit in psycopg, so counting it would make the stores differ.
_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


@event.listens_for(Engine, "before_cursor_execute")
def _count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
    box = _statements.get()
    if box is not None and not statement.lstrip().upper().startswith(_CONTROL):
        box[0] += 1


class CountStatements:
    """Outermost: a fresh counter per request (the thread pool copies the context, so a
    sync endpoint's statements land in it too), reported as a response header."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        box = [0]
        token = _statements.set(box)

        async def send_counted(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), (b"x-bench-statements", b"%d" % box[0])]
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, send_counted)
        finally:
            _statements.reset(token)


def main() -> None:
    settings = get_settings()
    uvicorn.run(
        CountStatements(app),
        host="127.0.0.1",
        port=int(os.environ["MEMBRANE_PORT"]),
        log_level="warning",
        timeout_keep_alive=settings.keep_alive_s,
    )


if __name__ == "__main__":
    main()
