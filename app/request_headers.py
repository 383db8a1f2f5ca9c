"""Request headers that the dependencies (app/deps.py, app/idempotency/http.py) read
from the request themselves, declared in the OpenAPI document by app/openapi.py instead of
as FastAPI header parameters and security dependencies.

FastAPI resolves each declared parameter of a request's dependencies through its own
machinery on every request: the narrowing headers and the consistency token cost a GET
/v1/records/{id} ~0.3 M instructions (3.13 → 2.82 M of its work in the app) though most
requests send none of them. Read here they cost a dictionary look-up each when absent, and
validate as FastAPI would when present: the same rules (pydantic), a 422 whose errors name
`["header", <name>]` as FastAPI's did, and the same parameter objects in the document. One
difference: a bad header answers its 422 at once, so its errors are not listed beside the
body's (FastAPI listed both in one answer); the status is the same.
The caller (`Authorization`) is checked the same way (`authenticates`): a security
sub-dependency was a second dependency FastAPI solved on every request.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from fastapi.exceptions import RequestValidationError
from fastapi.security.base import SecurityBase
from pydantic import StringConstraints, TypeAdapter, ValidationError
from starlette.requests import Request

from app.enums import Sensitivity
from app.idempotency.names import IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER
from app.replicas import TOKEN_HEADER, TOKEN_PATTERN
from app.schema_base import MAX_QUERY_TEXT

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class DocumentedHeader:
    """A header read by `read`; `parameter` is its OpenAPI parameter object, as FastAPI
    wrote it for the header parameter it replaces."""

    name: str
    adapter: TypeAdapter[Any]
    parameter: dict[str, object]

    def read(self, request: Request) -> Any:
        """The header's validated value, None when the request does not send it."""
        raw = request.headers.get(self.name)
        if raw is None:
            return None
        try:
            return self.adapter.validate_python(raw)
        except ValidationError as exc:
            errors = exc.errors(include_url=False)
            located = [{**e, "loc": ("header", self.name, *e["loc"])} for e in errors]
            raise RequestValidationError(located) from None


def _header(
    name: str, adapter: TypeAdapter[Any], description: str, schema: dict[str, object]
) -> DocumentedHeader:
    parameter: dict[str, object] = {  # keys in FastAPI's order
        "name": name,
        "in": "header",
        "required": False,
        "schema": {**schema, "description": description, "title": name},
        "description": description,
    }
    return DocumentedHeader(name, adapter, parameter)


CONSISTENCY = _header(
    TOKEN_HEADER,
    TypeAdapter(Annotated[str, StringConstraints(pattern=TOKEN_PATTERN)]),
    "The token a write answered with: with read replicas, this read is served by one that "
    "has replayed that write, else by the primary.",
    {"type": "string", "pattern": TOKEN_PATTERN},
)
MAX_SENSITIVITY = _header(
    "X-Membrane-Max-Sensitivity",
    TypeAdapter(Sensitivity),
    "Narrow this request's sensitivity ceiling (never widens it).",
    {"$ref": "#/components/schemas/Sensitivity"},
)
SCOPES = _header(
    "X-Membrane-Scopes",
    TypeAdapter(Annotated[str, StringConstraints(max_length=MAX_QUERY_TEXT)]),
    "Comma-separated scopes to narrow this request to (never widens).",
    {"type": "string", "maxLength": MAX_QUERY_TEXT},
)

IDEMPOTENCY_KEY_PATTERN = r"^[\x21-\x7e]{1,255}$"
IDEMPOTENCY_KEY = _header(
    IDEMPOTENCY_KEY_HEADER,
    TypeAdapter(Annotated[str, StringConstraints(pattern=IDEMPOTENCY_KEY_PATTERN)]),
    "Makes this write idempotent: a retry with the same key and request within the "
    "retention window (24 h by default) answers the first response again (with "
    f"`{REPLAYED_HEADER}: true`) and writes nothing; the same key with a different request "
    "answers 422. Keys are per API key and effective trust (ceiling and scopes after "
    "narrowing headers).",
    {"type": "string", "pattern": IDEMPOTENCY_KEY_PATTERN},
)


def reads_headers(*headers: DocumentedHeader) -> Callable[[F], F]:
    """Mark a dependency as reading `headers` itself (in this order in the document)."""

    def mark(dependency: F) -> F:
        dependency.documented_headers = headers  # type: ignore[attr-defined]
        return dependency

    return mark


def documented_headers(dependency: Callable[..., Any] | None) -> tuple[DocumentedHeader, ...]:
    headers: tuple[DocumentedHeader, ...] = getattr(dependency, "documented_headers", ())
    return headers


def authenticates(caller: SecurityBase) -> Callable[[F], F]:
    """Mark a dependency as checking `caller` itself (the document lists the operations
    depending on it under `caller`'s security scheme, as FastAPI lists a security
    dependency's)."""

    def mark(dependency: F) -> F:
        dependency.documented_caller = caller  # type: ignore[attr-defined]
        return dependency

    return mark


def documented_caller(dependency: Callable[..., Any] | None) -> SecurityBase | None:
    caller: SecurityBase | None = getattr(dependency, "documented_caller", None)
    return caller
