"""Domain exceptions and the one renderer of RFC 9457 problem+json."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, Required, TypedDict

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as SQLAlchemyTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.logs import current_request_id

log = logging.getLogger("membrane.errors")

PROBLEM_MEDIA_TYPE = "application/problem+json"
PROBLEM_BASE = "https://membrane.dev/problems/"


class FieldError(TypedDict):
    """One validation error of a problem: where (`loc`), what (`msg`), which kind (`type`)."""

    loc: list[str]
    msg: str
    type: str


class ProblemJson(TypedDict, total=False):
    """A problem document as JSON: `Problem` dumped without its nulls."""

    type: Required[str]
    title: Required[str]
    status: Required[int]
    detail: str | None
    instance: str
    errors: list[FieldError]
    request_id: str


class Problem(BaseModel):
    """RFC 9457 problem details."""

    type: str = Field(examples=[PROBLEM_BASE + "not-found"])
    title: str
    status: int
    detail: str | None = None
    instance: str | None = None
    errors: list[dict[str, object]] | None = Field(
        default=None, description="Validation errors: location, message, type."
    )
    request_id: str | None = Field(
        default=None,
        description="The request's id (its X-Request-ID header): quote it to find the "
        "request in the service's logs.",
    )


class DomainError(Exception):
    status = 400
    slug = "bad-request"
    title = "Bad request"

    def __init__(self, detail: str, *, headers: dict[str, str] | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.headers = headers or {}


class NotFound(DomainError):
    status, slug, title = 404, "not-found", "Not found"


class Unauthorized(DomainError):
    status, slug, title = 401, "unauthorized", "Unauthorized"


class Forbidden(DomainError):
    status, slug, title = 403, "forbidden", "Forbidden"


class Conflict(DomainError):
    status, slug, title = 409, "conflict", "Conflict"


class Unprocessable(DomainError):
    status, slug, title = 422, "unprocessable", "Unprocessable content"


class Overloaded(DomainError):
    """The service is saturated: the client should retry after Retry-After seconds."""

    status, slug, title = 503, "overloaded", "Service unavailable"

    def __init__(self, detail: str, *, retry_after_s: int = 1) -> None:
        super().__init__(detail, headers={"Retry-After": str(retry_after_s)})


_TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    413: "Payload too large",
    415: "Unsupported media type",
    422: "Unprocessable content",
    429: "Too many requests",
    500: "Internal server error",
    503: "Service unavailable",
}


def problem_response(
    status: int,
    detail: str | None,
    *,
    slug: str | None = None,
    title: str | None = None,
    instance: str | None = None,
    errors: Sequence[Mapping[str, object]] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    title = title or _TITLES.get(status, "Error")
    request_id = current_request_id()
    body = Problem(
        type=PROBLEM_BASE + (slug or title.lower().replace(" ", "-")),
        title=title,
        status=status,
        detail=detail,
        instance=instance,
        errors=None if errors is None else [dict(error) for error in errors],
        request_id=request_id,
    )
    if request_id is not None:  # a 500 is sent from outside the request id middleware
        headers = {**(headers or {}), "X-Request-ID": request_id}
    return JSONResponse(
        body.model_dump(exclude_none=True),
        status_code=status,
        media_type=PROBLEM_MEDIA_TYPE,
        headers=headers,
    )


def _validation_errors(exc: RequestValidationError) -> list[FieldError]:
    return [
        {
            "loc": [str(p) for p in err.get("loc", ())],
            "msg": str(err.get("msg", "")),
            "type": str(err.get("type", "")),
        }
        for err in exc.errors()
    ]


UNAVAILABLE_SLUG = "database-unavailable"
# PostgreSQL SQLSTATEs of a server that cannot serve now: connection exceptions (08),
# too many connections (53300), shutting down, starting up or crashed (57P).
_UNAVAILABLE_SQLSTATES = ("08", "53300", "57P")


def database_unavailable(exc: OperationalError) -> bool:
    """The database could not serve the request (unreachable, restarting, connection
    lost): its transaction is gone, nothing was written, and a retry can succeed."""
    if exc.connection_invalidated:
        return True
    orig: Any = exc.orig
    if not hasattr(orig, "sqlstate"):  # SQLite: its other operational errors are faults
        return False
    sqlstate: str | None = orig.sqlstate
    # psycopg: no SQLSTATE at all means the server never answered (refused, gone, lost).
    return sqlstate is None or sqlstate.startswith(_UNAVAILABLE_SQLSTATES)


STORAGE_FULL_SLUG = "storage-full"
TIMEOUT_SLUG = "database-timeout"
STORAGE_FULL_RETRY_S = 30  # space comes back when an operator frees it, not in a second
# PostgreSQL: disk_full (53100); query_canceled (57014: statement_timeout or the request
# deadline's cancel) and lock_not_available (55P03: lock_timeout).
_FULL_SQLSTATES = ("53100",)
_TIMEOUT_SQLSTATES = ("57014", "55P03")


def _sqlstate(exc: OperationalError) -> str:
    return str(getattr(exc.orig, "sqlstate", None) or "")


def storage_full(exc: OperationalError) -> bool:
    """The database ran out of space: the write's transaction was rolled back whole, reads
    still work, and the same write succeeds once space is back."""
    return "database or disk is full" in str(exc.orig) or _sqlstate(exc) in _FULL_SQLSTATES


def timed_out(exc: OperationalError) -> bool:
    """A statement ran past its deadline or a lock wait past lock_timeout (PostgreSQL), or a
    request's statement was interrupted (SQLite): rolled back, a retry can succeed."""
    return _sqlstate(exc) in _TIMEOUT_SQLSTATES or str(exc.orig) == "interrupted"


def install_handlers(app: FastAPI) -> None:
    @app.exception_handler(DomainError)
    async def _domain(request: Request, exc: DomainError) -> JSONResponse:
        return problem_response(
            exc.status,
            exc.detail,
            slug=exc.slug,
            title=exc.title,
            instance=request.url.path,
            headers=exc.headers,
        )

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = _validation_errors(exc)
        where = ".".join(errors[0]["loc"]) if errors else ""
        message = str(errors[0]["msg"]) if errors else "invalid request"
        return problem_response(
            422,
            f"{where}: {message}" if where else message,
            slug="validation-error",
            title="Request validation failed",
            instance=request.url.path,
            errors=errors,
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return problem_response(
            exc.status_code,
            str(exc.detail) if exc.detail is not None else None,
            instance=request.url.path,
            headers=dict(exc.headers or {}),
        )

    @app.exception_handler(SQLAlchemyTimeout)
    async def _pool_exhausted(request: Request, exc: SQLAlchemyTimeout) -> JSONResponse:
        log.warning("no database connection within the pool timeout: %s", exc)
        return _overloaded(request, "No database connection is free; retry shortly.")

    @app.exception_handler(OperationalError)
    async def _operational(request: Request, exc: OperationalError) -> JSONResponse:
        return operational_response(request, exc)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        return _internal_error(request, exc)


def operational_response(request: Request, exc: OperationalError) -> JSONResponse:
    """503 with Retry-After for a database that is busy, full, past its deadline or gone;
    any other operational error is a fault (500)."""
    where = f"{request.method} {request.url.path}"
    if "database is locked" in str(exc.orig):  # SQLite: another process held the lock
        return _overloaded(request, "The database is busy; retry shortly.")
    if storage_full(exc):
        log.error("storage full on %s: %s", where, exc.orig)
        return _overloaded(
            request,
            "The database has no space left; nothing of this request was written. Reads "
            "still work; retry the write once space is freed.",
            slug=STORAGE_FULL_SLUG,
            retry_after_s=STORAGE_FULL_RETRY_S,
        )
    if timed_out(exc):
        log.warning("deadline on %s: %s", where, exc.orig)
        return _overloaded(
            request,
            "The database did not answer within the deadline; this request's transaction "
            "was rolled back. Retry shortly.",
            slug=TIMEOUT_SLUG,
        )
    if database_unavailable(exc):  # the transaction died with the connection: retry
        log.warning("database unavailable on %s: %s", where, exc)
        return _overloaded(
            request, "The database is unavailable; retry shortly.", slug=UNAVAILABLE_SLUG
        )
    return _internal_error(request, exc)


def _internal_error(request: Request, exc: Exception) -> JSONResponse:
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return problem_response(
        500, "An unexpected error occurred.", slug="internal", instance=request.url.path
    )


def _overloaded(
    request: Request, detail: str, *, slug: str = Overloaded.slug, retry_after_s: int = 1
) -> JSONResponse:
    return problem_response(
        503,
        detail,
        slug=slug,
        title=Overloaded.title,
        instance=request.url.path,
        headers={"Retry-After": str(retry_after_s)},
    )


_RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait before retrying.",
        "required": True,
        "schema": {"type": "integer", "minimum": 1},
    }
}


def error_responses(*statuses: int) -> dict[int | str, dict[str, object]]:
    """OpenAPI `responses` entries documenting problem+json errors (503 always: any
    /v1 operation may be shed under load). 429 and 503 carry Retry-After."""
    return {
        s: {
            "model": Problem,
            "description": _TITLES.get(s, "Error"),
            "content": {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
            **({"headers": _RETRY_AFTER} if s in (429, 503) else {}),
        }
        for s in sorted({*statuses, 503})
    }
