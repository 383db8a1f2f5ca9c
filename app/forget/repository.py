"""All SQL of forgetting: which records match, and deleting one page of them with their
edges and audit tombstones (set-based: a few statements a page, whatever its size).

Rows that refer to a record by foreign key (tags, provenance, vectors, entity names,
the embedding and interpretation queues) go with it (ON DELETE CASCADE; SQLite runs with
foreign_keys on). Edges have no foreign key on their target, so both directions are
deleted here."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    CursorResult,
    Double,
    String,
    and_,
    bindparam,
    delete,
    exists,
    func,
    insert,
    literal,
    literal_column,
    null,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from app.db import dialect_of
from app.models import AuditRow, Base, IdempotencyRow, RecordRow, RelationRow
from app.models.clauses import among, checked_only, visible, writable
from app.records.clauses import tags_all_clause
from app.trust import Visibility

# What ties a record to an entity for the `entity` filter.
ABOUT_ENTITY = ("mentions_entity", "subject_entity", "object_entity")
_AUDIT_COLUMNS = ["record_id", "action", "actor", "timestamp", "rationale", "details"]
# The tables whose rows go with their record (ON DELETE CASCADE) but edges. On SQLite a
# page deletes them set-based before the records and runs without the cascades, which go
# row by row (read from the models, so that a table added later is not left behind).
# PostgreSQL runs its foreign-key triggers row by row whatever the page does (they cannot
# be turned off without superuser rights), so there the cascades delete them: deleting
# them first as well cost 3 s more per 100,000 records (bench/forget.py --statements).
_CHILDREN: tuple[Any, ...] = tuple(
    sorted(
        (
            m.class_
            for m in Base.registry.mappers
            if m.class_ is not RelationRow
            and any(fk.column.table.name == "records" for fk in m.local_table.foreign_keys)
        ),
        key=lambda c: str(c.__tablename__),
    )
)


@dataclass(frozen=True)
class ForgetMatch:
    """The records a forget request names, within the caller's write reach (`reach` is
    its `reading()` visibility; `writable` adds the rule on unscoped records)."""

    reach: Visibility
    scope: str | None = None
    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    created_after: float | None = None
    created_before: float | None = None
    entity: str | None = None


def _where(m: ForgetMatch) -> list[ColumnElement[bool]]:
    clauses = [writable(m.reach)]
    if m.scope is not None:
        clauses.append(RecordRow.scope == m.scope)
    if m.types:
        clauses.append(RecordRow.type.in_(list(m.types)))
    if m.tags:
        clauses.append(tags_all_clause(m.tags))
    if m.created_after is not None:
        clauses.append(RecordRow.created_at >= m.created_after)
    if m.created_before is not None:
        clauses.append(RecordRow.created_at < m.created_before)
    if m.entity is not None:
        about = exists().where(
            RelationRow.source_id == RecordRow.id,
            RelationRow.predicate.in_(ABOUT_ENTITY),
            RelationRow.target_id == m.entity,
        )
        clauses.append(or_(RecordRow.id == m.entity, about))
    return clauses


def entity_readable(session: Session, entity_id: str, vis: Visibility) -> bool:
    stmt = select(RecordRow.id).where(
        RecordRow.id == entity_id, RecordRow.type == "entity", visible(vis)
    )
    return session.scalar(stmt) is not None


def counts(session: Session, m: ForgetMatch) -> tuple[int, int, int]:
    """(records that would be deleted, their edges in either direction, records kept
    for their `never` deletion policy)."""
    where = _where(m)
    doomed = select(RecordRow.id).where(*where, RecordRow.deletion_policy != "never")
    records = session.scalar(select(func.count()).select_from(doomed.subquery())) or 0
    kept = session.scalar(select(func.count()).where(*where, RecordRow.deletion_policy == "never"))
    edge_count = select(func.count()).where(
        or_(RelationRow.source_id.in_(doomed), RelationRow.target_id.in_(doomed))
    )
    return int(records), int(session.scalar(edge_count) or 0), int(kept or 0)


def doomed_ids(
    session: Session, m: ForgetMatch, among_ids: Sequence[str] | None = None
) -> list[str]:
    """The records to delete (not those kept by policy), or those of `among_ids` that
    still are (a page re-checks its ids in its own transaction)."""
    dialect = dialect_of(session)
    where = and_(*_where(m), RecordRow.deletion_policy != "never")
    stmt = select(RecordRow.id)
    if among_ids is None:
        stmt = stmt.where(where)
    else:
        # Found by id: SQLite's planner would otherwise walk the whole scope's index
        # for every page (the filter, under a unary +, is only checked on the rows).
        checked = checked_only(where) if dialect == "sqlite" else where
        stmt = stmt.where(_ids(RecordRow.id, among_ids, dialect), checked)
    # In the order rows were written (SQLite: the rowid), so that a page deletes from
    # neighbouring pages of the table and its time indexes rather than all over them.
    order = literal_column("records.rowid") if dialect == "sqlite" else RecordRow.created_at
    return list(session.scalars(stmt.order_by(order)))


def remove(
    session: Session,
    ids: Sequence[str],
    *,
    actor: str,
    now: float,
    rationale: str | None,
    erase: bool,
) -> tuple[int, int, list[str | None]]:
    """Delete the records `ids` with their edges and every row that refers to them (the
    caller's transaction may run without cascades), each leaving a `delete` tombstone
    (erased: ids, action, actor and time only, and the records' earlier entries lose
    rationale and details). Returns (edges deleted, audit entries erased, and, when
    erasing, the scopes the records were in). One statement a table, whatever the page's
    size."""
    dialect = dialect_of(session)
    scopes: list[str | None] = []
    if erase:  # only erasing looks for records that borrowed the forgotten ones' words
        in_page = select(RecordRow.scope).where(_ids(RecordRow.id, ids, dialect)).distinct()
        scopes = list(session.scalars(in_page))
    edges = _delete(session, RelationRow, _ids(RelationRow.target_id, ids, dialect))
    edges += _delete(session, RelationRow, _ids(RelationRow.source_id, ids, dialect))
    for child in _CHILDREN if dialect == "sqlite" else ():
        _delete(session, child, _ids(child.record_id, ids, dialect))
    erased = 0
    if erase:
        blank = update(AuditRow).where(_ids(AuditRow.record_id, ids, dialect))
        erased = _rowcount(session.execute(blank.values(rationale=None, details={})))
    details = _erased(dialect) if erase else _tombstone(dialect)
    constants = [
        literal("delete").label("action"),
        literal(actor).label("actor"),
        literal(now, Double).label("timestamp"),
        (null() if erase else literal(rationale, String)).label("rationale"),
    ]
    tombstones = select(RecordRow.id, *constants, details).where(_ids(RecordRow.id, ids, dialect))
    session.execute(insert(AuditRow).from_select(_AUDIT_COLUMNS, tombstones))
    _delete(session, RecordRow, _ids(RecordRow.id, ids, dialect))
    return edges, erased, scopes


def _delete(session: Session, row: Any, cond: ColumnElement[bool]) -> int:
    """DELETE the rows of `row`'s table where `cond`. SQLite: found through the index
    `cond` uses, deleted in rowid order (the table's pages one after the other, not in
    the order of an index on random ids)."""
    if dialect_of(session) == "sqlite":
        rowid: ColumnElement[int] = literal_column(f"{row.__tablename__}.rowid")
        inner = select(rowid).select_from(row.__table__).where(cond).correlate(None)
        cond = rowid.in_(inner.scalar_subquery())
    stmt = delete(row).where(cond).execution_options(synchronize_session=False)
    return _rowcount(session.execute(stmt))


def _ids(column: Any, ids: Sequence[str], dialect: str) -> ColumnElement[bool]:
    """`column` is one of `ids`: on SQLite one JSON parameter (a page's 10,000 ids as
    separate parameters cost more to bind than the statement takes to run)."""
    if dialect != "sqlite":
        return among(column, ids, dialect)
    listed = func.json_each(bindparam(None, json.dumps(ids), type_=String)).table_valued("value")
    cond: ColumnElement[bool] = column.in_(select(listed.c.value))
    return cond


def _tombstone(dialect: str) -> ColumnElement[Any]:
    """What a `delete` entry keeps of the record (as a single delete keeps: its trail
    stays trust-checked by this scope and sensitivity)."""
    build = func.json_object if dialect == "sqlite" else func.jsonb_build_object
    return build(
        "type",
        RecordRow.type,
        "scope",
        RecordRow.scope,
        "status",
        RecordRow.status,
        "sensitivity",
        RecordRow.sensitivity,
        "deletion_policy",
        RecordRow.deletion_policy,
        "created_at",
        RecordRow.created_at,
        "created_by",
        RecordRow.created_by,
        "forget",
        literal_column("1" if dialect == "sqlite" else "true"),
    ).label("details")


def _erased(dialect: str) -> ColumnElement[Any]:
    if dialect == "sqlite":
        return func.json_object("erased", literal_column("1")).label("details")
    return func.jsonb_build_object("erased", literal_column("true")).label("details")


# -- erase: what else holds a forgotten record's words ----------------------------------


def stored_answers(session: Session) -> list[tuple[str, str, str]]:
    """(actor, key, answer) of every kept Idempotency-Key answer (kept for the retention
    window only)."""
    stmt = select(IdempotencyRow.actor, IdempotencyRow.key, IdempotencyRow.response).where(
        IdempotencyRow.response.is_not(None)
    )
    return [(a, k, r or "") for a, k, r in session.execute(stmt)]


def replace_answer(session: Session, actor: str, key: str, status_code: int, body: str) -> None:
    session.execute(
        update(IdempotencyRow)
        .where(IdempotencyRow.actor == actor, IdempotencyRow.key == key)
        .values(status_code=status_code, response=body)
    )


def borrowers(
    session: Session, scopes: Sequence[str]
) -> list[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    """(id, type, payload, interpretation) of the records of `scopes` whose search text
    borrowed another record's questions (app/capture/replies.py: `questions_from`)."""
    if not scopes:
        return []
    borrowed: ColumnElement[Any]
    if dialect_of(session) == "postgresql":
        borrowed = RecordRow.interpretation.op("->>")(literal_column("'questions_from'"))
    else:
        borrowed = func.json_extract(RecordRow.interpretation, literal_column("'$.questions_from'"))
    stmt = select(RecordRow.id, RecordRow.type, RecordRow.payload, RecordRow.interpretation).where(
        RecordRow.scope.in_(list(scopes)), borrowed.is_not(None)
    )
    return [(r[0], r[1], r[2], r[3]) for r in session.execute(stmt)]


def set_search_text(
    session: Session, record_id: str, search_text: str, interpretation: dict[str, Any]
) -> None:
    session.execute(
        update(RecordRow)
        .where(RecordRow.id == record_id)
        .values(search_text=search_text, interpretation=interpretation)
        .execution_options(synchronize_session=False)
    )


def secure_delete(session: Session, on: bool) -> None:
    """SQLite: overwrite deleted content with zeros in this connection (erase), or not
    (some builds do by default: a forget without erase need not pay for it)."""
    if dialect_of(session) == "sqlite":
        session.execute(text(f"PRAGMA secure_delete={'ON' if on else 'OFF'}"))


# SQLite's page cache while a forget's pages run: deleting a page of records rewrites
# pages all over the table's nine indexes, its full-text index and the edges' indexes,
# which the default 2 MB cache keeps reading back from the OS (2.3x slower at 100,000).
BULK_CACHE_KIB = 131_072
DEFAULT_CACHE_KIB = 2_000  # SQLite's default (cache_size = -2000)


def bulk_cache(session: Session, on: bool) -> None:
    """SQLite: a large page cache for this connection while it forgets, or the default
    back (the connection returns to the pool; its cache is released on shrinking)."""
    if dialect_of(session) == "sqlite":
        kib = BULK_CACHE_KIB if on else DEFAULT_CACHE_KIB
        session.execute(text(f"PRAGMA cache_size=-{kib}"))


def merge_full_text(session: Session) -> None:
    """SQLite: rewrite the full-text index in one segment, so no deleted record's terms
    linger in its older segments (erase)."""
    if dialect_of(session) == "sqlite":
        session.execute(text("INSERT INTO records_fts(records_fts) VALUES ('optimize')"))


def _rowcount(result: object) -> int:
    return result.rowcount if isinstance(result, CursorResult) else 0
