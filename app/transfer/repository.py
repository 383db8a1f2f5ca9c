"""All SQL of export and import: pages of records and the rows that hang off them, the
trail of deleted records, and the idempotent writes of an import (which rows are there
already, inserts keeping the source's ids where they are free)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypedDict

import numpy as np
from sqlalchemy import and_, exists, insert, or_, select, text
from sqlalchemy.orm import Session

from app.db import Tier, dialect_of
from app.models import (
    AuditRow,
    EmbeddingRow,
    EntityTermRow,
    ProvenanceRow,
    RecordRow,
    RelationRow,
    TagRow,
    pg_embeddings,
)
from app.records import repository as record_repo
from app.records.clauses import query_clauses
from app.records.filters import RecordQuery

# Tables whose integer ids an import keeps (where free) and whose sequence it advances.
ID_TABLES: dict[str, type[RelationRow] | type[AuditRow] | type[ProvenanceRow]] = {
    "relations": RelationRow,
    "audit_log": AuditRow,
    "provenance_sources": ProvenanceRow,
}


# The rows an import inserts, column for column (app/transfer/convert.py builds them).
class RecordInsert(TypedDict):
    id: str
    type: str
    status: str
    sensitivity: int
    confidence: float
    scope: str | None
    tags: list[str]
    created_at: float
    updated_at: float
    salience_base: float
    salience_t0: float
    salience_swept: float
    decay_curve: str
    half_life_s: float
    min_salience: float
    max_age_s: float | None
    reinforcement_gain: float
    pinned: bool
    deletion_policy: str
    created_by: str
    provenance: dict[str, object]
    interpretation: dict[str, object]
    payload: dict[str, object]
    search_text: str
    embedding_status: str


class IdRowInsert(TypedDict):
    """A row of a table whose integer id an import keeps where free (None: a new id)."""

    id: int | None


class RelationInsert(IdRowInsert):
    source_id: str
    predicate: str
    target_id: str
    weight: float
    created_at: float


class ProvenanceInsert(IdRowInsert):
    record_id: str
    kind: str
    ref: str | None
    hash: str | None
    created_by: str | None
    timestamp: float | None


class AuditInsert(IdRowInsert):
    record_id: str
    action: str
    actor: str
    timestamp: float
    rationale: str | None
    details: dict[str, object]


class TermInsert(TypedDict):
    record_id: str
    term: str
    scope: str


RelationKey = tuple[str, str, str, float]
AuditKey = tuple[str, str, str, float]

# -- export ------------------------------------------------------------------------------


def schema_revision(session: Session) -> str | None:
    value = session.execute(text("SELECT version_num FROM alembic_version")).scalar()
    return str(value) if value is not None else None


def record_page(
    session: Session, query: RecordQuery, after: tuple[float, str] | None, limit: int
) -> list[RecordRow]:
    """Oldest first, in the stable order (created_at, id), from just after `after`."""
    stmt = select(RecordRow).where(*query_clauses(query, dialect_of(session)))
    if after is not None:
        created, rid = after
        stmt = stmt.where(
            or_(
                RecordRow.created_at > created,
                and_(RecordRow.created_at == created, RecordRow.id > rid),
            )
        )
    stmt = stmt.order_by(RecordRow.created_at, RecordRow.id).limit(limit)
    return list(session.scalars(stmt))


def provenance_of(session: Session, ids: Sequence[str]) -> list[ProvenanceRow]:
    stmt = select(ProvenanceRow).where(ProvenanceRow.record_id.in_(list(ids)))
    return list(session.scalars(stmt.order_by(ProvenanceRow.id)))


def terms_of(session: Session, ids: Sequence[str]) -> list[EntityTermRow]:
    stmt = select(EntityTermRow).where(EntityTermRow.record_id.in_(list(ids)))
    return list(session.scalars(stmt.order_by(EntityTermRow.record_id, EntityTermRow.term)))


def audit_of(session: Session, ids: Sequence[str]) -> list[AuditRow]:
    stmt = select(AuditRow).where(AuditRow.record_id.in_(list(ids)))
    return list(session.scalars(stmt.order_by(AuditRow.id)))


def orphan_audit_page(session: Session, after_id: int, limit: int) -> list[AuditRow]:
    """Audit entries of records that no longer exist (their trail and tombstone), by id."""
    live = exists().where(RecordRow.id == AuditRow.record_id)
    stmt = select(AuditRow).where(AuditRow.id > after_id, ~live).order_by(AuditRow.id)
    return list(session.scalars(stmt.limit(limit)))


def vectors_of(
    session: Session, tier: Tier, ids: Sequence[str]
) -> list[tuple[str, str, list[float]]]:
    """(record id, model, vector) of the records of `ids` that have one."""
    if tier is Tier.pgvector:
        col = pg_embeddings.c
        rows = session.execute(
            select(col.record_id, col.model, col.embedding)
            .where(col.record_id.in_(list(ids)), col.embedding.is_not(None))
            .order_by(col.record_id)
        )
        return [(rid, model, [float(x) for x in vec]) for rid, model, vec in rows]
    found = session.execute(
        select(EmbeddingRow.record_id, EmbeddingRow.model, EmbeddingRow.vector)
        .where(EmbeddingRow.record_id.in_(list(ids)), EmbeddingRow.vector.is_not(None))
        .order_by(EmbeddingRow.record_id)
    )
    return [
        (rid, model, np.frombuffer(raw or b"", dtype=np.float32).tolist())
        for rid, model, raw in found
    ]


# -- import ------------------------------------------------------------------------------


def existing_records(session: Session, ids: Iterable[str]) -> set[str]:
    """The ids of `ids` that are records."""
    wanted = sorted(set(ids))
    if not wanted:
        return set()
    return set(session.scalars(select(RecordRow.id).where(RecordRow.id.in_(wanted))))


def record_heads(session: Session, ids: Iterable[str]) -> dict[str, tuple[str, str | None, int]]:
    """(type, scope, sensitivity rank) of the records among `ids`, whoever may see them:
    the import check applies the caller's trust to them itself."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    stmt = select(RecordRow.id, RecordRow.type, RecordRow.scope, RecordRow.sensitivity).where(
        RecordRow.id.in_(wanted)
    )
    return {rid: (kind, scope, rank) for rid, kind, scope, rank in session.execute(stmt)}


def insert_records(session: Session, rows: Sequence[RecordInsert]) -> None:
    """New records and their tag rows. The full-text index follows by itself (SQLite:
    the FTS5 triggers; PostgreSQL: the generated tsvector column)."""
    if not rows:
        return
    record_repo.bulk_insert(session, rows)
    tags = [{"record_id": r["id"], "tag": tag} for r in rows for tag in r["tags"]]
    if tags:
        session.execute(insert(TagRow), tags)


def relation_keys(session: Session, source_ids: Iterable[str]) -> set[RelationKey]:
    wanted = sorted(set(source_ids))
    if not wanted:
        return set()
    stmt = select(
        RelationRow.source_id, RelationRow.predicate, RelationRow.target_id, RelationRow.created_at
    ).where(RelationRow.source_id.in_(wanted))
    return {(s, p, t, c) for s, p, t, c in session.execute(stmt)}


def audit_keys(session: Session, record_ids: Iterable[str]) -> set[AuditKey]:
    wanted = sorted(set(record_ids))
    if not wanted:
        return set()
    stmt = select(AuditRow.record_id, AuditRow.action, AuditRow.actor, AuditRow.timestamp).where(
        AuditRow.record_id.in_(wanted)
    )
    return {(r, a, who, ts) for r, a, who, ts in session.execute(stmt)}


def taken_ids(session: Session, table: str, ids: Iterable[int]) -> set[int]:
    model = ID_TABLES[table]
    wanted = sorted(set(ids))
    if not wanted:
        return set()
    return set(session.scalars(select(model.id).where(model.id.in_(wanted))))


def insert_rows(session: Session, table: str, rows: Sequence[IdRowInsert]) -> None:
    """Rows of an id table. Rows with an `id` keep it; on PostgreSQL the id sequence is
    first moved past them, so the service's own inserts never collide with them."""
    if not rows:
        return
    model = ID_TABLES[table]
    explicit = [r for r in rows if r["id"] is not None]
    if explicit and dialect_of(session) == "postgresql":
        top = max(r["id"] for r in explicit if r["id"] is not None)
        session.execute(
            text(
                "SELECT setval(seq, GREATEST(:top, pg_sequence_last_value(seq::regclass))) "
                "FROM (SELECT pg_get_serial_sequence(:t, 'id') AS seq) AS s"
            ),
            {"t": table, "top": top},
        )
    if explicit:
        session.execute(insert(model), explicit)
    generated = [{k: v for k, v in r.items() if k != "id"} for r in rows if r["id"] is None]
    if generated:
        session.execute(insert(model), generated)


def insert_terms(session: Session, rows: Sequence[TermInsert]) -> None:
    if rows:
        session.execute(insert(EntityTermRow), list(rows))


def refresh_statistics(session: Session) -> None:
    """PostgreSQL planner statistics after a bulk load (autovacuum would come later)."""
    if dialect_of(session) == "postgresql":
        session.execute(
            text(
                "ANALYZE records, record_tags, relations, audit_log, provenance_sources, "
                "entity_terms, record_embeddings"
            )
        )
