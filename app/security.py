"""Principals, API keys and trust contexts (DESIGN §5 'Trust is server-side')."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from app.config import ApiPrincipal, Settings
from app.errors import Forbidden, Unauthorized
from app.enums import Role, Sensitivity


@dataclass(frozen=True)
class Principal:
    actor_id: str
    max_sensitivity: Sensitivity
    scopes: frozenset[str]  # empty → every scope
    roles: frozenset[Role]

    def has(self, role: Role) -> bool:
        return role in self.roles or Role.admin in self.roles


@dataclass(frozen=True)
class TrustContext:
    """What one request may see: the principal's trust, possibly narrowed."""

    ceiling: Sensitivity
    scopes: frozenset[str] | None = None  # None → every scope
    actor_id: str = "anonymous"

    def narrowed(
        self, max_sensitivity: Sensitivity | None, scopes: list[str] | None
    ) -> TrustContext:
        """This trust, narrowed; asking for more than it has never widens it."""
        ceiling = self.ceiling
        if max_sensitivity is not None and max_sensitivity.rank < ceiling.rank:
            ceiling = max_sensitivity
        allowed = self.scopes
        if scopes is not None:
            asked = frozenset(scopes)
            allowed = asked if allowed is None else asked & allowed
        return TrustContext(ceiling=ceiling, scopes=allowed, actor_id=self.actor_id)

    @property
    def ceiling_rank(self) -> int:
        return self.ceiling.rank

    def scope_allowed(self, scope: str | None) -> bool:
        """Unscoped records are visible to every principal."""
        return scope is None or self.scopes is None or scope in self.scopes


@dataclass(frozen=True)
class Narrowing:
    max_sensitivity: Sensitivity | None = None
    scopes: list[str] | None = None


OPEN_PRINCIPAL = Principal(
    actor_id="anonymous",
    max_sensitivity=Sensitivity.hyper,
    scopes=frozenset(),
    roles=frozenset({Role.read, Role.write, Role.admin}),
)


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _to_principal(entry: ApiPrincipal) -> Principal:
    return Principal(
        actor_id=entry.actor_id,
        max_sensitivity=entry.max_sensitivity,
        scopes=frozenset(entry.scopes),
        roles=frozenset(Role(r) for r in entry.roles),
    )


class KeyStore:
    def __init__(self, settings: Settings) -> None:
        self._entries = [(e.key_sha256.lower(), _to_principal(e)) for e in settings.api_keys]

    @property
    def open_mode(self) -> bool:
        return not self._entries

    def authenticate(self, authorization: str | None) -> Principal:
        if self.open_mode:
            return OPEN_PRINCIPAL
        if not authorization or not authorization.lower().startswith("bearer "):
            raise Unauthorized(
                "Missing bearer token.", headers={"WWW-Authenticate": 'Bearer realm="membrane"'}
            )
        digest = hash_key(authorization[7:].strip())
        found: Principal | None = None
        # Compare against every entry so timing does not reveal which prefix matched.
        for stored, principal in self._entries:
            if hmac.compare_digest(stored, digest):
                found = principal
        if found is None:
            raise Unauthorized(
                "Invalid API key.", headers={"WWW-Authenticate": 'Bearer error="invalid_token"'}
            )
        return found


def trust_for(principal: Principal, narrowing: Narrowing | None = None) -> TrustContext:
    """Narrow the principal's trust; a request can never widen it."""
    trust = TrustContext(
        ceiling=principal.max_sensitivity,
        scopes=principal.scopes or None,
        actor_id=principal.actor_id,
    )
    if narrowing is None:
        return trust
    return trust.narrowed(narrowing.max_sensitivity, narrowing.scopes)


def require_role(principal: Principal, role: Role) -> None:
    if not principal.has(role):
        raise Forbidden(f"This operation needs the {role.value!r} role.")


def check_write_target(trust: TrustContext, scope: str | None, sensitivity: Sensitivity) -> None:
    """Writes outside the principal's scopes or above its ceiling are refused."""
    if sensitivity.rank > trust.ceiling_rank:
        raise Forbidden(
            f"Sensitivity {sensitivity.value!r} is above your ceiling {trust.ceiling.value!r}."
        )
    if scope is not None and not trust.scope_allowed(scope):
        raise Forbidden(f"Scope {scope!r} is outside your scopes.")
    if scope is None and trust.scopes is not None:
        raise Forbidden("A principal restricted to scopes must write into one of them.")
