"""PostgreSQL + pgvector: rebuild the HNSW index with m = 32, ef_construction = 200.

pgvector's defaults (m = 16, ef_construction = 64) found 59 % of the exact top 10 at
ef_search 400 on bench/scale.py's million records, whose vectors come in hundreds of
close variants per base text, as an agent's memory of a recurring topic does. Embedding
40,000 such texts for real gave the same recall as the derived vectors (0.70 against
0.69), so the index, not the benchmark, was short. With m = 32 and ef_construction = 200
the same 40,000 real vectors reach 0.93 (ef_search 400) and 0.96 (ef_search 1000).
Figures and build times: DESIGN.md §9.

The rebuild reads every vector (about 13 minutes per million on two cores): on a large
store run this migration as its own step (`python -m app.migrate`, the Kubernetes Job)
with maintenance_work_mem large enough to hold the graph (about 2.2 GB per million
384-dimension vectors at m = 32; less makes pgvector build on disk, many times slower).
Retrieval keeps reading meanwhile; new vectors wait. SQLite and tier-2 PostgreSQL have
no such index and get nothing.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

INDEX = "ix_record_embeddings_hnsw"


def _has_index(bind: sa.Connection) -> bool:
    return bind.execute(sa.text(f"SELECT to_regclass('{INDEX}')")).scalar() is not None


def _rebuild(options: str) -> None:
    """Build the new index beside the old one, then swap them. CREATE INDEX lets reads go
    on (writes to record_embeddings wait); DROP INDEX locks the table out entirely, so it
    comes last, just before the migration commits."""
    bind = op.get_bind()
    if bind.dialect.name != "postgresql" or not _has_index(bind):
        return
    op.execute(
        f"CREATE INDEX {INDEX}_new ON record_embeddings "
        f"USING hnsw (embedding vector_cosine_ops){options}"
    )
    op.execute(f"DROP INDEX {INDEX}")
    op.execute(f"ALTER INDEX {INDEX}_new RENAME TO {INDEX}")


def upgrade() -> None:
    _rebuild(" WITH (m = 32, ef_construction = 200)")


def downgrade() -> None:
    _rebuild("")
