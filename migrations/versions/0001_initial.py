"""Initial schema: records, tags, relations, provenance, audit log, entity terms, job runs,
system meta, embeddings; FTS5 (SQLite) or tsvector/GIN (PostgreSQL); pgvector when available.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import os

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
BIGID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _embedding_dimension() -> int:
    return int(os.environ.get("MEMBRANE_EMBEDDING__DIMENSION", "384"))


def _pgvector_available(bind: sa.Connection) -> bool:
    row = bind.execute(
        sa.text("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
    ).first()
    return row is not None


def upgrade() -> None:
    bind = op.get_bind()
    op.create_table(
        "records",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("type", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("sensitivity", sa.SmallInteger(), nullable=False),
        sa.Column("confidence", sa.Double(), nullable=False),
        sa.Column("scope", sa.String(512), nullable=True),
        sa.Column("tags", JSON, nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.Column("updated_at", sa.Double(), nullable=False),
        sa.Column("salience_base", sa.Double(), nullable=False),
        sa.Column("salience_t0", sa.Double(), nullable=False),
        sa.Column("salience_swept", sa.Double(), nullable=False),
        sa.Column("decay_curve", sa.String(16), nullable=False),
        sa.Column("half_life_s", sa.Double(), nullable=False),
        sa.Column("min_salience", sa.Double(), nullable=False),
        sa.Column("max_age_s", sa.Double(), nullable=True),
        sa.Column("reinforcement_gain", sa.Double(), nullable=False),
        sa.Column("pinned", sa.Boolean(), nullable=False),
        sa.Column("deletion_policy", sa.String(16), nullable=False),
        sa.Column("created_by", sa.String(256), nullable=False),
        sa.Column("provenance", JSON, nullable=False),
        sa.Column("interpretation", JSON, nullable=False),
        sa.Column("payload", JSON, nullable=False),
        sa.Column("search_text", sa.Text(), nullable=False),
        sa.Column("embedding_status", sa.String(12), nullable=False),
    )
    op.create_index("ix_records_scope_created", "records", ["scope", "created_at"])
    op.create_index("ix_records_type_created", "records", ["type", "created_at"])
    op.create_index("ix_records_created", "records", ["created_at", "id"])
    op.create_index("ix_records_status", "records", ["status"])
    op.create_index("ix_records_embedding_status", "records", ["embedding_status"])

    op.create_table(
        "record_tags",
        sa.Column(
            "record_id",
            sa.String(36),
            sa.ForeignKey("records.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("tag", sa.String(256), primary_key=True),
    )
    op.create_index("ix_record_tags_tag", "record_tags", ["tag", "record_id"])

    op.create_table(
        "relations",
        sa.Column("id", BIGID, primary_key=True, autoincrement=True),
        sa.Column(
            "source_id",
            sa.String(36),
            sa.ForeignKey("records.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("predicate", sa.String(64), nullable=False),
        sa.Column("target_id", sa.String(1024), nullable=False),
        sa.Column("weight", sa.Double(), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
    )
    op.create_index("ix_relations_source", "relations", ["source_id", "predicate"])
    op.create_index("ix_relations_target", "relations", ["target_id", "predicate"])

    op.create_table(
        "provenance_sources",
        sa.Column("id", BIGID, primary_key=True, autoincrement=True),
        sa.Column(
            "record_id",
            sa.String(36),
            sa.ForeignKey("records.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("ref", sa.Text(), nullable=True),
        sa.Column("hash", sa.String(128), nullable=True),
        sa.Column("created_by", sa.String(256), nullable=True),
        sa.Column("timestamp", sa.Double(), nullable=True),
    )
    op.create_index("ix_provenance_record", "provenance_sources", ["record_id"])
    op.create_index("ix_provenance_hash", "provenance_sources", ["hash"])

    op.create_table(
        "audit_log",
        sa.Column("id", BIGID, primary_key=True, autoincrement=True),
        sa.Column("record_id", sa.String(36), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("actor", sa.String(256), nullable=False),
        sa.Column("timestamp", sa.Double(), nullable=False),
        sa.Column("rationale", sa.Text(), nullable=True),
        sa.Column("details", JSON, nullable=False),
    )
    op.create_index("ix_audit_record", "audit_log", ["record_id", "id"])
    op.create_index("ix_audit_action_ts", "audit_log", ["action", "timestamp"])

    op.create_table(
        "entity_terms",
        sa.Column(
            "record_id",
            sa.String(36),
            sa.ForeignKey("records.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("term", sa.String(1024), primary_key=True),
        sa.Column("scope", sa.String(512), nullable=False),
    )
    op.create_index("ix_entity_terms_scope_term", "entity_terms", ["scope", "term"])

    op.create_table(
        "job_runs",
        sa.Column("id", BIGID, primary_key=True, autoincrement=True),
        sa.Column("job", sa.String(64), nullable=False),
        sa.Column("trigger", sa.String(16), nullable=False),
        sa.Column("started_at", sa.Double(), nullable=False),
        sa.Column("finished_at", sa.Double(), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("counts", JSON, nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
    )
    op.create_index("ix_job_runs_job_started", "job_runs", ["job", "started_at"])

    op.create_table(
        "system_meta",
        sa.Column("key", sa.String(128), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
    )

    op.create_table(
        "record_embeddings",
        sa.Column(
            "record_id",
            sa.String(36),
            sa.ForeignKey("records.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("model", sa.String(256), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=True),
    )

    if bind.dialect.name == "sqlite":
        _sqlite_fts_up()
    else:
        _postgres_search_up(bind)


def _sqlite_fts_up() -> None:
    # FTS rows are keyed by the records table's implicit rowid (never VACUUMed by the
    # service); triggers keep the index in step with every insert, update and delete.
    op.execute(
        "CREATE VIRTUAL TABLE records_fts USING fts5("
        "search_text, tokenize='porter unicode61')"
    )
    op.execute(
        "CREATE TRIGGER records_fts_ai AFTER INSERT ON records BEGIN "
        "INSERT INTO records_fts(rowid, search_text) VALUES (new.rowid, new.search_text); END"
    )
    op.execute(
        "CREATE TRIGGER records_fts_ad AFTER DELETE ON records BEGIN "
        "DELETE FROM records_fts WHERE rowid = old.rowid; END"
    )
    op.execute(
        "CREATE TRIGGER records_fts_au AFTER UPDATE OF search_text ON records BEGIN "
        "DELETE FROM records_fts WHERE rowid = old.rowid; "
        "INSERT INTO records_fts(rowid, search_text) VALUES (new.rowid, new.search_text); END"
    )


def _postgres_search_up(bind: sa.Connection) -> None:
    op.execute(
        "ALTER TABLE records ADD COLUMN search_tsv tsvector "
        "GENERATED ALWAYS AS (to_tsvector('english', search_text)) STORED"
    )
    op.execute("CREATE INDEX ix_records_search_tsv ON records USING gin (search_tsv)")
    if _pgvector_available(bind):
        op.execute("CREATE EXTENSION IF NOT EXISTS vector")
        dim = _embedding_dimension()
        op.execute(f"ALTER TABLE record_embeddings ADD COLUMN embedding vector({dim})")
        op.execute(
            "CREATE INDEX ix_record_embeddings_hnsw ON record_embeddings "
            "USING hnsw (embedding vector_cosine_ops)"
        )


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS records_fts_au")
        op.execute("DROP TRIGGER IF EXISTS records_fts_ad")
        op.execute("DROP TRIGGER IF EXISTS records_fts_ai")
        op.execute("DROP TABLE IF EXISTS records_fts")
    for table in (
        "record_embeddings",
        "system_meta",
        "job_runs",
        "entity_terms",
        "audit_log",
        "provenance_sources",
        "relations",
        "record_tags",
        "records",
    ):
        op.drop_table(table)
