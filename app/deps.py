"""FastAPI dependencies: the app state, the principal, trust, the consistency token."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Header, Request, Security
from fastapi.openapi.models import HTTPBearer as HTTPBearerModel
from fastapi.security.base import SecurityBase

from app.enums import Role, Sensitivity
from app.replicas import TOKEN_HEADER, TOKEN_PATTERN, parse_lsn
from app.schema_base import MAX_QUERY_TEXT
from app.security import Principal, require_role, trust_for
from app.state import AppState
from app.trust import Narrowing, TrustContext

# The dependencies below only look at the request, so they are `async def`: FastAPI runs
# a plain `def` dependency on the thread pool, and each such hop costs a request ~0.1 ms
# of CPU plus a wait for a thread and the interpreter lock. A request's database work is
# no dependency: the endpoint hands it to app/request_work.py, one trip to the pool.


async def get_state(request: Request) -> AppState:
    state: AppState = request.app.state.membrane
    return state


StateDep = Annotated[AppState, Depends(get_state)]


async def get_consistency(
    token: Annotated[
        str | None,
        Header(
            alias=TOKEN_HEADER,
            pattern=TOKEN_PATTERN,
            description="The token a write answered with: with read replicas, this read "
            "is served by one that has replayed that write, else by the primary.",
        ),
    ] = None,
) -> int | None:
    """The WAL position a read must see (app/replicas.py), or None."""
    return parse_lsn(token) if token is not None else None


ConsistencyDep = Annotated[int | None, Depends(get_consistency)]


class BearerKey(SecurityBase):
    """`Authorization: Bearer <key>`, declared in the OpenAPI document as the HTTP bearer
    scheme `bearerAuth` on every operation that depends on it. It hands the raw header to
    app.security, which parses and checks it (so its rules, not FastAPI's, apply)."""

    def __init__(self) -> None:
        self.model = HTTPBearerModel(
            bearerFormat="API key",
            description="An API key of MEMBRANE_API_KEYS. With no keys configured (open "
            "mode, loopback only) the header is not needed.",
        )
        self.scheme_name = "bearerAuth"

    async def __call__(self, request: Request) -> str | None:
        return request.headers.get("Authorization")


bearer_key = BearerKey()


async def get_principal(
    request: Request,
    state: StateDep,
    authorization: Annotated[str | None, Security(bearer_key)],
) -> Principal:
    principal = state.keys.authenticate(authorization)
    request.state.principal = principal
    return principal


PrincipalDep = Annotated[Principal, Depends(get_principal)]


def _role(role: Role) -> Any:
    async def check(principal: PrincipalDep) -> Principal:
        require_role(principal, role)
        return principal

    return check


Reader = Annotated[Principal, Depends(_role(Role.read))]
Writer = Annotated[Principal, Depends(_role(Role.write))]
Admin = Annotated[Principal, Depends(_role(Role.admin))]


async def _narrowing(
    max_sensitivity: Sensitivity | None = Header(
        default=None,
        alias="X-Membrane-Max-Sensitivity",
        description="Narrow this request's sensitivity ceiling (never widens it).",
    ),
    scopes: str | None = Header(
        default=None,
        max_length=MAX_QUERY_TEXT,
        alias="X-Membrane-Scopes",
        description="Comma-separated scopes to narrow this request to (never widens).",
    ),
) -> Narrowing:
    scope_list = [s.strip() for s in scopes.split(",") if s.strip()] if scopes is not None else None
    return Narrowing(max_sensitivity=max_sensitivity, scopes=scope_list)


NarrowingDep = Annotated[Narrowing, Depends(_narrowing)]


async def read_trust(principal: Reader, narrowing: NarrowingDep) -> TrustContext:
    return trust_for(principal, narrowing)


async def write_trust(principal: Writer, narrowing: NarrowingDep) -> TrustContext:
    return trust_for(principal, narrowing)


ReadTrust = Annotated[TrustContext, Depends(read_trust)]
WriteTrust = Annotated[TrustContext, Depends(write_trust)]
