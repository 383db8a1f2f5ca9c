"""SQL of contradictions (app/records/contradictions.py): the active facts that share a
new fact's scope, subject and predicate, and the per-key locks that make settling them
one writer at a time on PostgreSQL.

The look-up goes through migration 0012's partial index (ix_records_fact_key), spelled
exactly as the index is built: on SQLite the JSON paths themselves, on PostgreSQL their
md5 (a subject may be longer than a btree entry may hold); the text is compared too."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import func, literal_column, select, text
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from app.db import dialect_of
from app.enums import Status
from app.models import RecordRow
from app.models.clauses import visible
from app.records.clauses import status_of
from app.trust import Visibility

# The first half of the two-key advisory locks per fact key ("FACT"); entity names use
# their own space.
_FACT_LOCK_SPACE = 0x46414354

FactKey = tuple[str | None, str, str]  # (scope, subject, predicate)


def fact_field(dialect: str, name: str) -> ColumnElement[Any]:
    """A fact's `subject` or `predicate` as text, as the index spells it."""
    if dialect == "postgresql":
        return RecordRow.payload.op("->>")(literal_column(f"'{name}'"))
    return func.json_extract(RecordRow.payload, literal_column(f"'$.{name}'"))


def lock_keys(session: Session, keys: Iterable[FactKey]) -> None:
    """Serialize look-up-then-settle per fact key until the transaction ends, so that of
    two contradicting facts written at once the second sees the first. Sorted keys: two
    writers never wait for each other in a cycle. SQLite runs one writer at a time."""
    if dialect_of(session) != "postgresql":
        return
    for key in sorted({_lock_key(k) for k in keys}):
        session.execute(
            text("SELECT pg_advisory_xact_lock(:space, :key)"),
            {"space": _FACT_LOCK_SPACE, "key": key},
        )


def _lock_key(key: FactKey) -> int:
    scope, subject, predicate = key
    raw = f"{scope or ''}\x00{subject}\x00{predicate}".encode()
    return int.from_bytes(hashlib.sha256(raw).digest()[:4], "big", signed=True)


def active_facts(
    session: Session, key: FactKey, vis: Visibility, other_than: Sequence[str]
) -> list[RecordRow]:
    """The active semantic records of `key` that `vis` may read, but `other_than`,
    locked for update (oldest first)."""
    scope, subject, predicate = key
    dialect = dialect_of(session)
    subject_of, predicate_of = fact_field(dialect, "subject"), fact_field(dialect, "predicate")
    if dialect == "postgresql":
        keyed = [
            func.md5(subject_of) == _md5(subject),
            func.md5(predicate_of) == _md5(predicate),
        ]
    else:
        keyed = []
    stmt = (
        select(RecordRow)
        .where(
            # a literal, not a parameter: it is the partial index's predicate (0012)
            RecordRow.type == literal_column("'semantic'"),
            RecordRow.scope.is_(None) if scope is None else RecordRow.scope == scope,
            *keyed,
            subject_of == subject,
            predicate_of == predicate,
            status_of(dialect, [Status.active.value]) == Status.active.value,
            visible(vis),
        )
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    if other_than:
        stmt = stmt.where(RecordRow.id.not_in(list(other_than)))
    # Sorted here: an ORDER BY on created_at made SQLite walk the (type, created_at)
    # index over every fact instead of this key's few.
    return sorted(session.scalars(stmt), key=lambda r: (r.created_at, r.id))


def _md5(value: str) -> str:
    return hashlib.md5(value.encode()).hexdigest()  # an index key, not a secret
