"""The HTTP side of idempotent writes: the `Idempotency-Key` header dependency and the
replayed answer (app/idempotency/service.py has the rules)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request
from fastapi.responses import JSONResponse

from app.deps import SessionDep, StateDep, Writer, WriteTrust
from app.idempotency.service import (
    IdempotencyKey,
    IdempotentReplay,
    IdempotentWrite,
    caller_identity,
    fingerprint,
)

REPLAYED_HEADER = "Idempotent-Replayed"


async def _request_fingerprint(request: Request) -> str:
    """The request's fingerprint, computed only when it carries a key."""
    if "idempotency-key" not in request.headers:
        return ""
    return fingerprint(request.method, request.url.path, await request.body())


KeyHeader = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        pattern=r"^[\x21-\x7e]{1,255}$",
        description=(
            "Makes this write idempotent: a retry with the same key and request within "
            "the retention window (24 h by default) answers the first response again "
            f"(with `{REPLAYED_HEADER}: true`) and writes nothing; the same key with a "
            "different request answers 422. Keys are per API key and effective trust "
            "(ceiling and scopes after narrowing headers)."
        ),
    ),
]


def idempotent_write(
    state: StateDep,
    session: SessionDep,
    principal: Writer,
    trust: WriteTrust,
    request_fingerprint: Annotated[str, Depends(_request_fingerprint)],
    key: KeyHeader = None,
) -> IdempotentWrite:
    write = IdempotentWrite(
        session=session,
        actor=caller_identity(principal.actor_id, principal.key_sha256, trust),
        key=key,
        fingerprint=request_fingerprint,
        retention_s=state.settings.idempotency.retention_s,
    )
    write.begin()
    return write


IdempotencyDep = Annotated[IdempotentWrite, Depends(idempotent_write)]


async def idempotency_key(
    state: StateDep,
    principal: Writer,
    trust: WriteTrust,
    request_fingerprint: Annotated[str, Depends(_request_fingerprint)],
    key: KeyHeader = None,
) -> IdempotencyKey:
    """The Idempotency-Key of a write that opens its own transactions (no request
    session): claimed and answered by the write itself (`IdempotencyKey.in_session`)."""
    return IdempotencyKey(
        actor=caller_identity(principal.actor_id, principal.key_sha256, trust),
        key=key,
        fingerprint=request_fingerprint,
        retention_s=state.settings.idempotency.retention_s,
    )


IdempotencyKeyDep = Annotated[IdempotencyKey, Depends(idempotency_key)]


async def replay_response(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, IdempotentReplay)
    return JSONResponse(exc.body, status_code=exc.status_code, headers={REPLAYED_HEADER: "true"})
