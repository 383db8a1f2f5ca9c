"""PostgreSQL: each stored vector notes the transaction that wrote it (`written`, xid8),
with an index, so that an API process can keep a store's vectors as one matrix and read
only the vectors written since it last looked (app/retrieve/pg_matrix_repository.py).

A trigger sets the column on every INSERT, and on every UPDATE of the vector, to
`pg_current_xact_id()`: every writer is covered, a worker of the previous release during
a rolling update included. Adding the column without a default changes only the catalog
(no row is rewritten, so the HNSW index is untouched): the rows written before this
migration keep NULL, which the matrix reads when it loads the whole store and never
looks for afterwards. The index holds NULLs too, which a million-row store builds in a
few seconds; the ALTER TABLE locks `record_embeddings` for the migration's (short) time.

SQLite and PostgreSQL without pgvector have no such column: SQLite's matrix follows its
rowids (app/retrieve/vector_cache.py), and a store without pgvector keeps no vectors.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from app.vector_tier import add_written

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

INDEX = "ix_record_embeddings_written"  # as app.vector_tier.WRITTEN_DDL names them
FUNCTION = "membrane_vector_written"
TRIGGER = "record_embeddings_written"


def _has_vectors(bind: sa.Connection) -> bool:
    found = bind.execute(
        sa.text(
            "SELECT 1 FROM pg_attribute WHERE attrelid = 'record_embeddings'::regclass "
            "AND attname = 'embedding' AND NOT attisdropped"
        )
    ).scalar()
    return found is not None


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql" or not _has_vectors(bind):
        return  # a database that adopts pgvector later gets them then (app/vector_tier.py)
    add_written(bind)


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql" or not _has_vectors(bind):
        return
    op.execute(f"DROP TRIGGER IF EXISTS {TRIGGER} ON record_embeddings")
    op.execute(f"DROP FUNCTION IF EXISTS {FUNCTION}()")
    op.execute(f"DROP INDEX IF EXISTS {INDEX}")
    op.execute("ALTER TABLE record_embeddings DROP COLUMN IF EXISTS written")
