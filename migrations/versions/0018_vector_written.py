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

from alembic import op

from app.vector_tier import add_written, drop_written, has_vector_column

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql" or not has_vector_column(bind):
        return  # a database that adopts pgvector later gets them then (app/vector_tier.py)
    add_written(bind)


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        drop_written(bind)
