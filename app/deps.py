"""FastAPI dependencies: the app state, the principal, trust, the consistency token."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request, Security
from fastapi.openapi.models import HTTPBearer as HTTPBearerModel
from fastapi.security.base import SecurityBase

from app.enums import Role, Sensitivity
from app.replicas import parse_lsn
from app.request_headers import (
    CONSISTENCY,
    MAX_SENSITIVITY,
    SCOPES,
    authenticates,
    reads_headers,
)
from app.security import Principal, require_role, trust_for
from app.state import AppState
from app.trust import Narrowing, TrustContext

# The dependencies below only look at the request, so they are `async def`: FastAPI runs
# a plain `def` dependency on the thread pool, and each such hop costs a request ~0.1 ms
# of CPU plus a wait for a thread and the interpreter lock. A request's database work is
# no dependency: the endpoint hands it to app/request_work.py, one trip to the pool.


def state_of(request: Request) -> AppState:
    state: AppState = request.app.state.membrane
    return state


async def get_state(request: Request) -> AppState:
    return state_of(request)


StateDep = Annotated[AppState, Depends(get_state)]


def position_of(token: str | None) -> int | None:
    """The WAL position a read must see (app/replicas.py), or None."""
    return parse_lsn(token) if token is not None else None


@reads_headers(CONSISTENCY)
async def get_consistency(request: Request) -> int | None:
    return position_of(CONSISTENCY.read(request))


ConsistencyDep = Annotated[int | None, Depends(get_consistency)]


class CallerWithRole(SecurityBase):
    """`Authorization: Bearer <key>`, declared in the OpenAPI document as the HTTP bearer
    scheme `bearerAuth` on every operation that depends on it, resolved to the calling
    principal, who must hold `role` (401 / 403 otherwise). app.security parses and checks
    the header (so its rules, not FastAPI's, apply).

    The caller is this one dependency, not a principal dependency, the app state's and a
    role check: FastAPI resolves every dependency of the tree on each request, ~0.1 ms of
    a GET for the three this replaced. The read and write dependencies call `check`
    first themselves (no sub-dependency for FastAPI to solve); the admin routes depend on
    it as a security dependency. Either way a request answers 401 / 403 before its
    headers are validated."""

    def __init__(self, role: Role) -> None:
        self.model = HTTPBearerModel(
            bearerFormat="API key",
            description="An API key of MEMBRANE_API_KEYS. With no keys configured (open "
            "mode, loopback only) the header is not needed.",
        )
        self.scheme_name = "bearerAuth"
        self.role = role

    async def __call__(self, request: Request) -> Principal:
        return self.check(request)

    def check(self, request: Request) -> Principal:
        """The calling principal, who holds the role (else 401 / 403)."""
        state = state_of(request)
        principal = state.keys.authenticate(request.headers.get("Authorization"))
        request.state.principal = principal
        require_role(principal, self.role)
        return principal


# The read and write dependencies below check their callers themselves (`check`), marked
# for the document by `authenticates`: as security sub-dependencies they were one more
# dependency FastAPI solved on every request (~0.17 M instructions of a GET). The admin
# routes keep the sub-dependency (cold paths).
READER = CallerWithRole(Role.read)
WRITER = CallerWithRole(Role.write)
Admin = Annotated[Principal, Security(CallerWithRole(Role.admin))]


def narrowing_of(max_sensitivity: Sensitivity | None, scopes: str | None) -> Narrowing:
    scope_list = [s.strip() for s in scopes.split(",") if s.strip()] if scopes is not None else None
    return Narrowing(max_sensitivity=max_sensitivity, scopes=scope_list)


def narrowing_from(request: Request) -> Narrowing:
    """The request's narrowing headers, read and validated by app/request_headers.py."""
    return narrowing_of(MAX_SENSITIVITY.read(request), SCOPES.read(request))


@reads_headers(MAX_SENSITIVITY, SCOPES)
async def _narrowing(request: Request) -> Narrowing:
    return narrowing_from(request)


NarrowingDep = Annotated[Narrowing, Depends(_narrowing)]


@dataclass(frozen=True, slots=True)
class Writing:
    """What a write without an Idempotency-Key needs besides its own parameters: the app
    state and the caller's trust (narrowed by the request's headers)."""

    state: AppState
    trust: TrustContext


@reads_headers(MAX_SENSITIVITY, SCOPES)
@authenticates(WRITER)
async def writing_context(request: Request) -> Writing:
    principal = WRITER.check(request)  # first: 401 / 403 before a header's 422
    return Writing(state_of(request), trust_for(principal, narrowing_from(request)))


WritingDep = Annotated[Writing, Depends(writing_context)]


@dataclass(frozen=True, slots=True)
class Reading:
    """What a read operation needs besides its own parameters: the app state, the
    caller's trust (narrowed by the request's headers) and the WAL position the read must
    see (None without a consistency token)."""

    state: AppState
    trust: TrustContext
    position: int | None


@reads_headers(CONSISTENCY, MAX_SENSITIVITY, SCOPES)
@authenticates(READER)
async def reading_context(request: Request) -> Reading:
    """One dependency for the three (the state, the consistency token and read trust had
    one each): FastAPI solves every dependency of a request's tree apart, parameters and
    all, and each cost a GET ~2 % of its instructions. The caller is checked first, so a
    request answers 401 / 403 before its headers are validated."""
    principal = READER.check(request)
    trust = trust_for(principal, narrowing_from(request))
    return Reading(state_of(request), trust, position_of(CONSISTENCY.read(request)))


ReadingDep = Annotated[Reading, Depends(reading_context)]
