"""SQLAlchemy tables. Timestamps are stored as UNIX epoch seconds (double precision) so the
decay and max-age arithmetic is the same plain SQL on SQLite and PostgreSQL; the API speaks
ISO-8601. Search structures that differ per backend (FTS5 table, tsvector column, pgvector
column) are created by the migration, not declared here (migrations/versions/0001_initial.py).
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Double,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    SmallInteger,
    String,
    Text,
    column,
    table,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from app.decay_math import current_salience, expiry
from app.models.binary_vector import BinaryVector

JsonType = JSON().with_variant(JSONB(), "postgresql")
# SQLite only auto-increments INTEGER PRIMARY KEY, PostgreSQL wants BIGINT for audit ids.
BigId = BigInteger().with_variant(Integer(), "sqlite")


class Base(DeclarativeBase):
    pass


class RecordRow(Base):
    __tablename__ = "records"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    type: Mapped[str] = mapped_column(String(16), nullable=False)
    status: Mapped[str] = mapped_column(String(16), nullable=False, default="active")
    sensitivity: Mapped[int] = mapped_column(SmallInteger, nullable=False)  # rank 0..4
    confidence: Mapped[float] = mapped_column(Double, nullable=False)
    scope: Mapped[str | None] = mapped_column(String(512), nullable=True)
    tags: Mapped[list[str]] = mapped_column(JsonType, nullable=False, default=list)
    created_at: Mapped[float] = mapped_column(Double, nullable=False)
    updated_at: Mapped[float] = mapped_column(Double, nullable=False)
    # Decay state: current salience = f(salience_base, salience_t0, curve, half-life, now).
    salience_base: Mapped[float] = mapped_column(Double, nullable=False)
    salience_t0: Mapped[float] = mapped_column(Double, nullable=False)
    # Last value written by a sweep; informative only, reads always recompute.
    salience_swept: Mapped[float] = mapped_column(Double, nullable=False)
    decay_curve: Mapped[str] = mapped_column(String(16), nullable=False)
    half_life_s: Mapped[float] = mapped_column(Double, nullable=False)
    min_salience: Mapped[float] = mapped_column(Double, nullable=False, default=0.0)
    max_age_s: Mapped[float | None] = mapped_column(Double, nullable=True)
    reinforcement_gain: Mapped[float] = mapped_column(Double, nullable=False)
    pinned: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    deletion_policy: Mapped[str] = mapped_column(String(16), nullable=False)
    created_by: Mapped[str] = mapped_column(String(256), nullable=False)
    provenance: Mapped[dict[str, object]] = mapped_column(JsonType, nullable=False, default=dict)
    interpretation: Mapped[dict[str, object]] = mapped_column(
        JsonType, nullable=False, default=dict
    )
    payload: Mapped[dict[str, object]] = mapped_column(JsonType, nullable=False)
    search_text: Mapped[str] = mapped_column(Text, nullable=False, default="")
    embedding_status: Mapped[str] = mapped_column(String(12), nullable=False, default="pending")
    # An episode's event time as ranking reads it (records.event_time.occurred_at), stored
    # when it is written; NULL for the other types, and where unknown (the payload's JSON
    # is read instead: rows of an earlier release, a payload rewritten by set_payload).
    occurred_at: Mapped[float | None] = mapped_column(Double, nullable=True)

    __table_args__ = (
        Index("ix_records_scope_created_id", "scope", "created_at", "id"),
        # Episodes alone, for the walks to a hit's neighbours (migration 0017): a query
        # names the type as this literal for the planners to take it.
        Index(
            "ix_records_episodes",
            "scope",
            "created_at",
            "id",
            sqlite_where=text("type = 'episodic'"),
            postgresql_where=text("type = 'episodic'"),
        ),
        Index("ix_records_type_created", "type", "created_at"),
        Index("ix_records_created", "created_at", "id"),
        Index("ix_records_status", "status"),
        Index("ix_records_embedding_status", "embedding_status"),
    )

    def salience_at(self, now: float) -> float:
        """Current salience (exact decay, computed on read; its SQL twin is
        app/models/clauses.py:current_salience_sql)."""
        return current_salience(
            self.salience_base,
            self.salience_t0,
            now,
            half_life_s=self.half_life_s,
            curve=self.decay_curve,
            min_salience=self.min_salience,
            pinned=self.pinned,
            expires_at=expiry(self.created_at, self.max_age_s),
        )


class TagRow(Base):
    __tablename__ = "record_tags"

    record_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("records.id", ondelete="CASCADE"), primary_key=True
    )
    tag: Mapped[str] = mapped_column(String(256), primary_key=True)

    __table_args__ = (Index("ix_record_tags_tag", "tag", "record_id"),)


class RelationRow(Base):
    __tablename__ = "relations"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    source_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("records.id", ondelete="CASCADE"), nullable=False
    )
    predicate: Mapped[str] = mapped_column(String(64), nullable=False)
    # A record id, or an external reference (contest accepts either): no foreign key.
    target_id: Mapped[str] = mapped_column(String(1024), nullable=False)
    weight: Mapped[float] = mapped_column(Double, nullable=False, default=1.0)
    created_at: Mapped[float] = mapped_column(Double, nullable=False)

    __table_args__ = (
        Index("ix_relations_source", "source_id", "predicate"),
        Index("ix_relations_target", "target_id", "predicate"),
    )


class ProvenanceRow(Base):
    __tablename__ = "provenance_sources"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    record_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("records.id", ondelete="CASCADE"), nullable=False
    )
    kind: Mapped[str] = mapped_column(String(64), nullable=False)
    ref: Mapped[str | None] = mapped_column(Text, nullable=True)
    hash: Mapped[str | None] = mapped_column(String(128), nullable=True)
    created_by: Mapped[str | None] = mapped_column(String(256), nullable=True)
    timestamp: Mapped[float | None] = mapped_column(Double, nullable=True)

    __table_args__ = (
        Index("ix_provenance_record", "record_id"),
        Index("ix_provenance_hash", "hash"),
    )


class AuditRow(Base):
    """Append-only. No foreign key: entries outlive the records they describe."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    record_id: Mapped[str] = mapped_column(String(36), nullable=False)
    action: Mapped[str] = mapped_column(String(32), nullable=False)
    actor: Mapped[str] = mapped_column(String(256), nullable=False)
    timestamp: Mapped[float] = mapped_column(Double, nullable=False)
    rationale: Mapped[str | None] = mapped_column(Text, nullable=True)
    details: Mapped[dict[str, object]] = mapped_column(JsonType, nullable=False, default=dict)

    __table_args__ = (
        Index("ix_audit_record", "record_id", "id"),
        Index("ix_audit_action_ts", "action", "timestamp"),
    )


class EntityTermRow(Base):
    """Normalized names and aliases of entity records, for resolution within a scope."""

    __tablename__ = "entity_terms"

    record_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("records.id", ondelete="CASCADE"), primary_key=True
    )
    term: Mapped[str] = mapped_column(String(1024), primary_key=True)
    scope: Mapped[str] = mapped_column(String(512), nullable=False, default="")

    __table_args__ = (Index("ix_entity_terms_scope_term", "scope", "term"),)


class JobRunRow(Base):
    __tablename__ = "job_runs"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    job: Mapped[str] = mapped_column(String(64), nullable=False)
    trigger: Mapped[str] = mapped_column(String(16), nullable=False)
    started_at: Mapped[float] = mapped_column(Double, nullable=False)
    finished_at: Mapped[float | None] = mapped_column(Double, nullable=True)
    status: Mapped[str] = mapped_column(String(16), nullable=False)
    counts: Mapped[dict[str, object]] = mapped_column(JsonType, nullable=False, default=dict)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)

    __table_args__ = (Index("ix_job_runs_job_started", "job", "started_at"),)


# system_meta's keys of the pinned embedding model (app/embedding/service.py pins them;
# a repin rewrites their rows, which app/retrieve/pg_matrix_repository.py watches).
EMBEDDING_MODEL_KEY = "embedding.model"
EMBEDDING_DIMENSION_KEY = "embedding.dimension"


class SystemMetaRow(Base):
    """Key/value facts about the store itself (pinned embedding model and dimension)."""

    __tablename__ = "system_meta"

    key: Mapped[str] = mapped_column(String(128), primary_key=True)
    value: Mapped[str] = mapped_column(Text, nullable=False)


class IdempotencyRow(Base):
    """A write made with an Idempotency-Key: who sent it, what it was (fingerprint) and the
    first answer, replayed to retries within the retention window (app/idempotency)."""

    __tablename__ = "idempotency_keys"

    actor: Mapped[str] = mapped_column(String(256), primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[float] = mapped_column(Double, nullable=False)
    status_code: Mapped[int | None] = mapped_column(SmallInteger, nullable=True)
    response: Mapped[str | None] = mapped_column(Text, nullable=True)  # the JSON body

    __table_args__ = (Index("ix_idempotency_created", "created_at"),)


class InterpretationQueueRow(Base):
    """A captured record waiting for LLM interpretation (app/interpret), with the
    capturer's trust as it was at capture time. A row leaves the queue when its record
    is interpreted, given up on or gone; its outcome is the record's `interpretation.llm`.
    `status` is `pending`, or `running` while a worker holds it until `next_attempt_at`."""

    __tablename__ = "interpretation_queue"

    record_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("records.id", ondelete="CASCADE"), primary_key=True
    )
    actor_id: Mapped[str] = mapped_column(String(256), nullable=False)
    ceiling: Mapped[int] = mapped_column(SmallInteger, nullable=False)  # sensitivity rank
    scopes: Mapped[list[str] | None] = mapped_column(JsonType, nullable=True)  # None: all
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    next_attempt_at: Mapped[float] = mapped_column(Double, nullable=False)
    status: Mapped[str] = mapped_column(String(12), nullable=False, default="pending")
    created_at: Mapped[float] = mapped_column(Double, nullable=False)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)

    __table_args__ = (Index("ix_interpretation_queue_due", "next_attempt_at"),)


class EmbeddingRow(Base):
    """Vectors on SQLite (float32 bytes). On PostgreSQL + pgvector the migration adds a
    native `vector` column and an HNSW index to this same table."""

    __tablename__ = "record_embeddings"

    record_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("records.id", ondelete="CASCADE"), primary_key=True
    )
    model: Mapped[str] = mapped_column(String(256), nullable=False)
    vector: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    # The record's scope ('' for none), copied by every writer (a record's scope never
    # changes): a scope's vectors read through their own index (migration 0015). NULL:
    # written by a worker older than 0015 (during a rolling update), so searched with
    # every scope and checked against the filters.
    scope: Mapped[str | None] = mapped_column(String(512), nullable=True)

    __table_args__ = (Index("ix_record_embeddings_scope", "scope"),)


class EmbeddingLeaseRow(Base):
    """A pending record claimed by an embedding worker until `until` (epoch seconds): other
    workers pass it by until then (app/embedding/queue_repository.claim_batch)."""

    __tablename__ = "embedding_leases"

    record_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("records.id", ondelete="CASCADE"), primary_key=True
    )
    until: Mapped[float] = mapped_column(Double, nullable=False)


# The pgvector column is created by the migration, not declared on the ORM model.
pg_embeddings = table(
    "record_embeddings",
    column("record_id", String),
    column("model", String),
    column("embedding", BinaryVector()),
    column("vector"),
    column("scope", String),
    column("written"),  # xid8, PostgreSQL + pgvector only (migration 0018)
)
