"""SQL of contradictions (app/records/contradictions.py): the active facts that share a
new fact's scope, subject and predicate, and the per-key locks that make settling them
one writer at a time on PostgreSQL.

The look-up goes through migration 0012's partial index (ix_records_fact_key), spelled
exactly as the index is built: on SQLite the JSON paths themselves, on PostgreSQL their
md5 (a subject may be longer than a btree entry may hold); the text is compared too."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Select, String, bindparam, func, literal_column, or_, select
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from app.db import dialect_of, lock_texts
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
    two contradicting facts written at once the second sees the first."""
    lock_texts(session, _FACT_LOCK_SPACE, [(scope or "", s, p) for scope, s, p in keys])


def active_facts(
    session: Session, key: FactKey, vis: Visibility, other_than: Sequence[str]
) -> list[RecordRow]:
    """The active semantic records of `key` that `vis` may read, but `other_than`,
    locked for update (oldest first)."""
    scope, subject, predicate = key
    dialect = dialect_of(session)
    if not _any_active(session, dialect, key, vis, other_than):
        return []  # the usual case: a new fact's key has no other active fact
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
        .with_for_update(key_share=True)  # as `repository.lock`
        .execution_options(populate_existing=True)
    )
    if other_than:
        stmt = stmt.where(RecordRow.id.not_in(list(other_than)))
    # Sorted here: an ORDER BY on created_at made SQLite walk the (type, created_at)
    # index over every fact instead of this key's few.
    return sorted(session.scalars(stmt), key=lambda r: (r.created_at, r.id))


def _any_active(
    session: Session, dialect: str, key: FactKey, vis: Visibility, other_than: Sequence[str]
) -> bool:
    """Whether `active_facts` would find anything: the same conditions through the same
    index, as one statement built once (building the full query cost more than running
    it)."""
    scope, subject, predicate = key
    probe = _probe(dialect, scope is not None, vis.scopes is not None)
    params: dict[str, Any] = {
        "subject": subject,
        "predicate": predicate,
        "max_rank": vis.max_rank,
        "scope": scope,
        "scopes": sorted(vis.scopes or ()),
        "other_than": list(other_than) or [""],
    }
    if dialect == "postgresql":
        params.update(subject_md5=_md5(subject), predicate_md5=_md5(predicate))
    return session.execute(probe, params).first() is not None


@functools.cache
def _probe(dialect: str, scoped: bool, scopes_filter: bool) -> Select[str]:
    """`active_facts`' conditions with parameters: `visible()` spelled with the
    caller's ceiling (`max_rank`) and scopes as parameters."""
    subject_of, predicate_of = fact_field(dialect, "subject"), fact_field(dialect, "predicate")
    where: list[ColumnElement[bool]] = [
        RecordRow.type == literal_column("'semantic'"),
        RecordRow.scope == bindparam("scope") if scoped else RecordRow.scope.is_(None),
        subject_of == bindparam("subject", type_=String),
        predicate_of == bindparam("predicate", type_=String),
        status_of(dialect, [Status.active.value]) == Status.active.value,
        RecordRow.sensitivity <= bindparam("max_rank"),
        RecordRow.id.not_in(bindparam("other_than", expanding=True)),
    ]
    if dialect == "postgresql":
        where += [
            func.md5(subject_of) == bindparam("subject_md5", type_=String),
            func.md5(predicate_of) == bindparam("predicate_md5", type_=String),
        ]
    if scopes_filter:
        listed = RecordRow.scope.in_(bindparam("scopes", expanding=True))
        where.append(or_(RecordRow.scope.is_(None), listed))
    return select(RecordRow.id).where(*where).limit(1)


def _md5(value: str) -> str:
    return hashlib.md5(value.encode()).hexdigest()  # an index key, not a secret
