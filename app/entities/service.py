"""Entity resolution: which entity record a name means, for capture and for LLM
interpretation (which resolves through capture's `resolve_entities`).

A name resolves to the oldest live entity of its scope that the caller may read
(`TrustContext.reading()`, app/trust.py): resolution must not reveal entities above the
caller's ceiling or outside its scopes. One `EntityResolver` serves one capture request
or batch, and remembers what it already knows, so it needs no query per name:
- a batch looks up every name of its items in one query up front (`prefetch`): those
  (scope, term) keys are then answered from memory;
- entities this request or batch creates are staged, not yet written, so they are
  remembered here and a later mention of the same name resolves to them.
A failed item's entities are forgotten again (`forget_since`).

Known keys stay valid for the transaction: on SQLite it holds the write lock, on
PostgreSQL the request holds the advisory locks of every name it will resolve
(`lock_names`), taken before resolving."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from app.entities import repository as entity_repo
from app.entities.clauses import NameMatch
from app.entities.repository import normalize
from app.models import RecordRow
from app.trust import TrustContext

__all__ = ["EntityResolver", "NameMatch", "add_names", "lock_names", "names_matching", "normalize"]

Key = tuple[str, str]  # (scope or "", normalized term)
Name = tuple[str | None, str]  # (scope, name as written)


def lock_names(session: Session, names: Iterable[Name]) -> None:
    """Serialize resolve-then-create per (scope, name) until the transaction ends, so
    concurrent writers naming the same entity create it once (no-op on SQLite)."""
    entity_repo.lock_names(session, names)


def add_names(session: Session, entity: RecordRow, names: Iterable[str]) -> None:
    """Index `entity` (an entity record being written) under each of its `names`."""
    entity_repo.add_terms(session, entity.id, entity.scope, names)


def names_matching(
    session: Session, terms: Sequence[str], scopes: Sequence[str] | None, trust: TrustContext
) -> list[NameMatch]:
    """The entity records named by any of `terms` (normalized) in `scopes` (None: any),
    each saying whether `trust` may read it."""
    return entity_repo.matching_terms(session, terms, scopes, trust.reading())


@dataclass(frozen=True, order=True)
class KnownEntity:
    created_at: float
    record_id: str
    sensitivity: int


@dataclass
class EntityResolver:
    session: Session
    _known: dict[Key, list[KnownEntity]] = field(default_factory=dict)
    _complete: set[Key] = field(default_factory=set)  # keys whose stored entities are all known
    _added: list[tuple[Key, KnownEntity]] = field(default_factory=list)  # created here

    def lock(self, names: Iterable[Name]) -> None:
        lock_names(self.session, names)

    def prefetch(self, names: Iterable[Name]) -> None:
        keys = {k for scope, name in names if (k := _key(scope, name))[1]} - self._complete
        if not keys:
            return
        for key, rid, created_at, sensitivity in entity_repo.live_entities_named(
            self.session, sorted(keys)
        ):
            self._known.setdefault(key, []).append(KnownEntity(created_at, rid, sensitivity))
        self._complete |= keys

    def resolve(self, scope: str | None, names: list[str], trust: TrustContext) -> str | None:
        """The entity record `names` (a name and its aliases) mean in `scope`, or None."""
        keys = [k for k in (_key(scope, n) for n in names) if k[1]]
        if not all(k in self._complete for k in keys):
            stored = entity_repo.resolve(self.session, scope, names, trust.reading())
            if stored is not None:  # older than any entity created here
                return stored
        readable = [
            e for k in keys for e in self._known.get(k, ()) if trust.can_read(e.sensitivity, scope)
        ]
        return min(readable).record_id if readable else None

    def created(self, row: RecordRow, names: list[str]) -> None:
        """`row`, an entity record just created (maybe not yet written), is named `names`."""
        entity = KnownEntity(row.created_at, row.id, row.sensitivity)
        for key in {k for k in (_key(row.scope, n) for n in names) if k[1]}:
            self._known.setdefault(key, []).append(entity)
            self._added.append((key, entity))

    def mark(self) -> int:
        return len(self._added)

    def forget_since(self, mark: int) -> None:
        for key, entity in self._added[mark:]:
            self._known[key].remove(entity)
        del self._added[mark:]


def _key(scope: str | None, name: str) -> Key:
    return (scope or "", normalize(name))
