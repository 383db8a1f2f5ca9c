"""All SQL about records, their tags and provenance rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import Select, and_, delete, func, or_, select, update
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from app.models import ProvenanceRow, RecordRow, TagRow
from app.salience.repository import current_salience_sql


@dataclass
class Visibility:
    """SQL-side trust filter: rows up to ceiling+1 (the +1 level comes back redacted)."""

    max_rank: int
    scopes: frozenset[str] | None  # None → all scopes


@dataclass
class RecordFilter:
    types: Sequence[str] = ()
    scopes: Sequence[str] = ()
    tags_all: Sequence[str] = ()
    sensitivities: Sequence[int] = ()
    statuses: Sequence[str] = ()
    min_salience: float | None = None
    created_after: float | None = None
    created_before: float | None = None
    ids: Sequence[str] = field(default_factory=tuple)


def visible(vis: Visibility) -> ColumnElement[bool]:
    cond = RecordRow.sensitivity <= vis.max_rank
    if vis.scopes is not None:
        cond = and_(cond, or_(RecordRow.scope.is_(None), RecordRow.scope.in_(sorted(vis.scopes))))
    return cond


def tags_all_clause(tags: Sequence[str]) -> ColumnElement[bool]:
    wanted = sorted(set(tags))
    having = (
        select(TagRow.record_id)
        .where(TagRow.tag.in_(wanted))
        .group_by(TagRow.record_id)
        .having(func.count(TagRow.tag) == len(wanted))
    )
    return RecordRow.id.in_(having)


def filter_clauses(
    flt: RecordFilter, vis: Visibility, dialect: str, now: float
) -> list[ColumnElement[bool]]:
    clauses = [visible(vis)]
    if flt.types:
        clauses.append(RecordRow.type.in_(list(flt.types)))
    if flt.scopes:
        clauses.append(RecordRow.scope.in_(list(flt.scopes)))
    if flt.tags_all:
        clauses.append(tags_all_clause(flt.tags_all))
    if flt.sensitivities:
        clauses.append(RecordRow.sensitivity.in_(list(flt.sensitivities)))
    if flt.statuses:
        clauses.append(RecordRow.status.in_(list(flt.statuses)))
    if flt.min_salience is not None:
        clauses.append(current_salience_sql(dialect, now) >= flt.min_salience)
    if flt.created_after is not None:
        clauses.append(RecordRow.created_at >= flt.created_after)
    if flt.created_before is not None:
        clauses.append(RecordRow.created_at < flt.created_before)
    if flt.ids:
        clauses.append(RecordRow.id.in_(list(flt.ids)))
    return clauses


def add(session: Session, row: RecordRow, provenance: Sequence[ProvenanceRow] = ()) -> None:
    session.add(row)
    session.flush([row])
    for tag in row.tags:
        session.add(TagRow(record_id=row.id, tag=tag))
    for prov in provenance:
        prov.record_id = row.id
        session.add(prov)
    session.flush()


def get(session: Session, record_id: str) -> RecordRow | None:
    return session.get(RecordRow, record_id)


def get_many(session: Session, ids: Sequence[str]) -> dict[str, RecordRow]:
    if not ids:
        return {}
    rows = session.scalars(select(RecordRow).where(RecordRow.id.in_(list(set(ids)))))
    return {r.id: r for r in rows}


def lock(session: Session, ids: Sequence[str]) -> dict[str, RecordRow]:
    """Load rows for update (SELECT … FOR UPDATE on PostgreSQL; SQLite's write lock is
    already held by BEGIN IMMEDIATE). Rows are locked in id order to avoid deadlocks."""
    if not ids:
        return {}
    stmt = (
        select(RecordRow)
        .where(RecordRow.id.in_(sorted(set(ids))))
        .order_by(RecordRow.id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    return {r.id: r for r in session.scalars(stmt)}


def page(
    session: Session,
    flt: RecordFilter,
    vis: Visibility,
    *,
    now: float,
    limit: int,
    after: tuple[float, str] | None,
) -> list[RecordRow]:
    """Newest first, stable order (created_at, id) with keyset pagination."""
    stmt: Select[RecordRow] = select(RecordRow).where(
        *filter_clauses(flt, vis, session.get_bind().dialect.name, now)
    )
    if after is not None:
        created, rid = after
        stmt = stmt.where(
            or_(
                RecordRow.created_at < created,
                and_(RecordRow.created_at == created, RecordRow.id < rid),
            )
        )
    stmt = stmt.order_by(RecordRow.created_at.desc(), RecordRow.id.desc()).limit(limit)
    return list(session.scalars(stmt))


def set_status(session: Session, record_id: str, status: str, now: float) -> None:
    session.execute(
        update(RecordRow).where(RecordRow.id == record_id).values(status=status, updated_at=now)
    )


def delete_record(session: Session, record_id: str) -> None:
    session.execute(delete(RecordRow).where(RecordRow.id == record_id))
