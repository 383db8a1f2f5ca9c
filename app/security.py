"""Principals and API keys: who is calling, with which roles and trust."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from app.config import ApiPrincipal, Settings
from app.enums import Role, Sensitivity
from app.errors import Forbidden, Unauthorized
from app.trust import Narrowing, TrustContext


@dataclass(frozen=True)
class Principal:
    actor_id: str
    max_sensitivity: Sensitivity
    scopes: frozenset[str]  # empty → every scope
    roles: frozenset[Role]
    key_sha256: str = ""  # which key authenticated (empty in open mode)

    def has(self, role: Role) -> bool:
        return role in self.roles or Role.admin in self.roles


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
        key_sha256=entry.key_sha256.lower(),
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
        token = bearer_token(authorization)
        if token is None:
            raise Unauthorized(
                "Missing bearer token: this service has API keys (MEMBRANE_API_KEYS); send "
                "the header Authorization: Bearer <key>.",
                headers={"WWW-Authenticate": 'Bearer realm="membrane"'},
            )
        found = self.find(token)
        if found is None:
            raise Unauthorized(
                "Invalid API key: its SHA-256 is in no entry of the service's MEMBRANE_API_KEYS.",
                headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
            )
        return found

    def find(self, token: str) -> Principal | None:
        """The principal holding `token`, or None."""
        digest = hash_key(token)
        found: Principal | None = None
        # Compare against every entry so timing does not reveal which prefix matched.
        for stored, principal in self._entries:
            if hmac.compare_digest(stored, digest):
                found = principal
        return found


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header (scheme case-insensitive,
    surrounding whitespace ignored, RFC 9110 §11.1), or None."""
    parts = (authorization or "").split(None, 1)
    if len(parts) != 2 or parts[0].lower() != "bearer":
        return None
    return parts[1].strip() or None


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
