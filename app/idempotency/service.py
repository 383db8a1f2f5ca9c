"""Idempotent writes (DESIGN §5): a write sent with an `Idempotency-Key` is done once.

The key is claimed in the write's own transaction, and the answer is kept in that same
transaction, so a commit stores both or neither: a crash or a failed write leaves the key
free for the retry, and a stored key always has its answer. Retries with the same key and
the same request (method, path, JSON body) within the retention window get the first
answer again; the same key with another request is refused (422, as the IETF
Idempotency-Key draft advises). Keys belong to the principal that sent them.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel
from sqlalchemy.orm import Session

from app import clock
from app.errors import Unprocessable
from app.idempotency import repository as idempotency_repo
from app.trust import TrustContext

Answer = TypeVar("Answer", bound=BaseModel)


class IdempotentReplay(Exception):
    """The request repeats an earlier write: answer with what that write answered."""

    def __init__(self, status_code: int, body: Any) -> None:
        super().__init__(f"replay of a {status_code} answer")
        self.status_code = status_code
        self.body = body


def fingerprint(method: str, path: str, body: bytes) -> str:
    """What identifies a request: method, path and its JSON body (key order and spacing
    do not matter; a body that is not JSON counts byte for byte)."""
    try:
        canonical = json.dumps(json.loads(body), sort_keys=True, separators=(",", ":"))
        content = canonical.encode()
    except ValueError:
        content = body
    digest = hashlib.sha256(f"{method} {path}\n".encode())
    digest.update(content)
    return digest.hexdigest()


def caller_identity(actor_id: str, key_sha256: str, trust: TrustContext) -> str:
    """Who a key belongs to: actor, API key and effective trust, as one digest."""
    scopes = ",".join(sorted(trust.scopes)) if trust.scopes is not None else "*"
    raw = f"{actor_id}\n{key_sha256}\n{trust.ceiling.value}\n{scopes}"
    return hashlib.sha256(raw.encode()).hexdigest()


@dataclass
class IdempotentWrite:
    """One write request's idempotency: inert without a key."""

    session: Session
    actor: str
    key: str | None
    fingerprint: str
    retention_s: float

    def begin(self) -> None:
        """Claim the key, or raise IdempotentReplay / 422 when it was used before."""
        if self.key is None:
            return
        now = clock.now()
        earlier = idempotency_repo.claim(
            self.session, self.actor, self.key, self.fingerprint, now, now - self.retention_s
        )
        if earlier is None:
            return
        if earlier.fingerprint != self.fingerprint:
            raise Unprocessable(
                f"Idempotency-Key {self.key!r} was already used for a different request; "
                "use a new key for a new request."
            )
        raise IdempotentReplay(earlier.status_code or 200, json.loads(earlier.response or "null"))

    def answer(self, status_code: int, result: Answer) -> Answer:
        """Keep `result` as this key's answer (in the write's transaction) and return it."""
        if self.key is not None:
            body = json.dumps(result.model_dump(mode="json", by_alias=True))
            idempotency_repo.keep_answer(self.session, self.actor, self.key, status_code, body)
        return result


@dataclass(frozen=True)
class IdempotencyKey:
    """A request's key and identity, for a write that runs several transactions of its
    own (forgetting, one per page): `in_session` gives the key's rules in one of them."""

    actor: str
    key: str | None
    fingerprint: str
    retention_s: float

    def in_session(self, session: Session) -> IdempotentWrite:
        return IdempotentWrite(session, self.actor, self.key, self.fingerprint, self.retention_s)


def purge_expired(session: Session, now: float, retention_s: float) -> int:
    """Forget keys older than the retention window at `now`; how many were forgotten."""
    return idempotency_repo.purge(session, now - retention_s)
