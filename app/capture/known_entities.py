"""Entity resolution for one capture request or batch, with what it already knows.

A capture resolves each name it mentions to the oldest live entity of its scope that the
caller may read (app/entities/repository.resolve). Two things make that cheaper or
possible without a query per name:
- a batch looks up every name of its items in one query up front (`prefetch`): those
  (scope, term) keys are then answered from memory;
- entities this request or batch creates are staged, not yet written, so they are
  remembered here and a later mention of the same name resolves to them.
A failed item's entities are forgotten again (`forget_since`).

Known keys stay valid for the transaction: on SQLite it holds the write lock, on
PostgreSQL the batch holds the advisory locks of every name it will resolve."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from app.entities import repository as entity_repo
from app.models import RecordRow

Key = tuple[str, str]  # (scope or "", normalized term)


@dataclass(frozen=True, order=True)
class KnownEntity:
    created_at: float
    record_id: str
    sensitivity: int


@dataclass
class KnownEntities:
    session: Session
    _known: dict[Key, list[KnownEntity]] = field(default_factory=dict)
    _complete: set[Key] = field(default_factory=set)  # keys whose stored entities are all known
    _added: list[tuple[Key, KnownEntity]] = field(default_factory=list)  # created here

    def prefetch(self, names: Iterable[tuple[str | None, str]]) -> None:
        keys = {k for scope, name in names if (k := _key(scope, name))[1]} - self._complete
        if not keys:
            return
        for key, rid, created_at, sensitivity in entity_repo.live_entities_named(
            self.session, sorted(keys)
        ):
            self._known.setdefault(key, []).append(KnownEntity(created_at, rid, sensitivity))
        self._complete |= keys

    def resolve(self, scope: str | None, names: list[str], max_rank: int) -> str | None:
        keys = [k for k in (_key(scope, n) for n in names) if k[1]]
        if not all(k in self._complete for k in keys):
            stored = entity_repo.resolve(self.session, scope, names, max_rank)
            if stored is not None:  # older than any entity created here
                return stored
        readable = [e for k in keys for e in self._known.get(k, ()) if e.sensitivity <= max_rank]
        return min(readable).record_id if readable else None

    def created(self, row: RecordRow, names: list[str]) -> None:
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
    return (scope or "", entity_repo.normalize(name))
