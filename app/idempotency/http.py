"""The HTTP side of idempotent writes: the `Idempotency-Key` header dependency and the
replayed answer (app/idempotency/service.py has the rules)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from fastapi.responses import JSONResponse
from sqlalchemy.orm import Session

from app.deps import WRITER, narrowing_from, state_of
from app.idempotency.names import REPLAYED_HEADER
from app.idempotency.service import (
    Answer,
    IdempotencyKey,
    IdempotentReplay,
    caller_identity,
    fingerprint,
)
from app.request_headers import (
    IDEMPOTENCY_KEY,
    MAX_SENSITIVITY,
    SCOPES,
    authenticates,
    reads_headers,
)
from app.request_work import writing
from app.security import Principal, trust_for
from app.state import AppState
from app.trust import TrustContext


@dataclass(frozen=True, slots=True)
class KeyedWrite:
    """What a write that may carry an Idempotency-Key needs besides its own parameters:
    the app state, the calling principal, its trust (narrowed by the request's headers)
    and the key (app/idempotency/service.py)."""

    state: AppState
    principal: Principal
    trust: TrustContext
    key: IdempotencyKey


@reads_headers(MAX_SENSITIVITY, SCOPES, IDEMPOTENCY_KEY)
@authenticates(WRITER)
async def keyed_write(request: Request) -> KeyedWrite:
    """One dependency for what were three (the state, write trust and the key, which
    depended on both again): FastAPI solves every dependency's tree apart, each time it
    is named. The caller is checked first (401 / 403), then the key, then the narrowing
    headers. The request's fingerprint is computed only when it carries a key."""
    principal = WRITER.check(request)
    key: str | None = IDEMPOTENCY_KEY.read(request)
    state = state_of(request)
    trust = trust_for(principal, narrowing_from(request))
    body_print = ""
    if key is not None:
        body_print = fingerprint(request.method, request.url.path, await request.body())
    idempotency = IdempotencyKey(
        actor=caller_identity(principal.actor_id, principal.key_sha256, trust),
        key=key,
        fingerprint=body_print,
        retention_s=state.settings.idempotency.retention_s,
    )
    return KeyedWrite(state, principal, trust, idempotency)


KeyedWriteDep = Annotated[KeyedWrite, Depends(keyed_write)]


async def writing_once(
    state: AppState,
    request: Request,
    key: IdempotencyKey,
    status_code: int,
    work: Callable[[Session], Answer],
) -> Answer:
    """`work` as `request_work.writing` runs it, under the key's rules in the same
    transaction: the key claimed first (a replay or a reused key answers instead), the
    answer kept with the write."""

    def once(session: Session) -> Answer:
        write = key.in_session(session)
        write.begin()
        return write.answer(status_code, work(session))

    return await writing(state, request, once)


async def replay_response(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, IdempotentReplay)
    return JSONResponse(exc.body, status_code=exc.status_code, headers={REPLAYED_HEADER: "true"})
