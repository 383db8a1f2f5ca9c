"""record_embeddings gains its record's scope, with an index.

A one-scope retrieve on PostgreSQL ranks the scope's vectors exactly when the scope is
larger than the candidate pool (app/retrieve/pg_vector_repository.py). Without the scope
beside the vector, that scan walked the scope's records and probed `record_embeddings`
by primary key once per record: at a million records, a 1,000-record scope read 4,851
buffers for 967 rows, 10.3 ms of the request's ~21 ms of server time. With the column
the scope's vectors are read through its own index, and only the nearest of them are
checked against the filters by key. A record's scope never changes after it is created,
and `store_vectors` (every writer of vectors) copies it ('' for a record without one), so
the column needs no trigger. A row left NULL (written by a worker of the previous release
while this one rolls out) is searched with every scope, then checked by its record's.

Filling the column rewrites every vector row. On PostgreSQL those rows fill their pages,
so each new row version would also be a new entry in the HNSW index, far slower than a
rebuild: the index is dropped before the fill and built again after it (about 13 minutes
per million vectors on two cores, as migration 0009). On a large store run this migration
as its own step (`python -m app.migrate`, the Kubernetes Job); the migration raises
maintenance_work_mem for its own transaction to what the graph needs, up to 2 GB (set it
higher on the server for a larger store). Adding the column locks `record_embeddings`
until the migration commits: for that time, retrieves with a query and the embedding
worker wait on it (and answer 503 past their deadlines), so schedule it as downtime, and
give the Job the time (`activeDeadlineSeconds`: 3,600 s in deploy/kubernetes; ~13 minutes
a million vectors while the graph fits maintenance_work_mem). The fill leaves each row's
old version for autovacuum to reclaim (no VACUUM runs inside a migration's transaction).
SQLite keeps the column (one schema) and does not read it: its vector search is the
process's matrix (app/retrieve/vector_cache.py).

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

HNSW = "ix_record_embeddings_hnsw"
HNSW_OPTIONS = "WITH (m = 32, ef_construction = 200)"  # migration 0009's
SCOPE_INDEX = "ix_record_embeddings_scope"
GRAPH_KB_PER_VECTOR = 2.3  # the HNSW graph's memory at m = 32, 384 dimensions
GRAPH_MEMORY_CAP_KB = 2 * 1024 * 1024  # 2 GB: about 900,000 vectors' graph


def _has_hnsw(bind: sa.Connection) -> bool:
    return bind.execute(sa.text(f"SELECT to_regclass('{HNSW}')")).scalar() is not None


def upgrade() -> None:
    bind = op.get_bind()
    op.add_column("record_embeddings", sa.Column("scope", sa.String(512), nullable=True))
    if bind.dialect.name != "postgresql":
        op.execute(
            "UPDATE record_embeddings SET scope = coalesce("
            "(SELECT scope FROM records WHERE records.id = record_embeddings.record_id), '')"
        )
        op.create_index(SCOPE_INDEX, "record_embeddings", ["scope"])
        return
    hnsw = _has_hnsw(bind)
    if hnsw:
        op.execute(f"DROP INDEX {HNSW}")
    op.execute(
        "UPDATE record_embeddings AS e SET scope = coalesce(r.scope, '') FROM records AS r "
        "WHERE r.id = e.record_id"
    )
    op.create_index(SCOPE_INDEX, "record_embeddings", ["scope"])
    if hnsw:
        _hold_the_graph(bind)
        op.execute(
            f"CREATE INDEX {HNSW} ON record_embeddings "
            f"USING hnsw (embedding vector_cosine_ops) {HNSW_OPTIONS}"
        )
    op.execute("ANALYZE record_embeddings")  # the new column's statistics, for its index


def _hold_the_graph(bind: sa.Connection) -> None:
    """maintenance_work_mem raised, for this transaction, to what the HNSW graph of the
    store's vectors needs (~2.3 kB a vector at m = 32), at most GRAPH_MEMORY_CAP_KB:
    beyond maintenance_work_mem pgvector builds on disk, many times slower (100,000
    vectors on two cores: 609 s of migration at the 64 MB default)."""
    vectors = bind.execute(
        sa.text("SELECT count(*) FROM record_embeddings WHERE embedding IS NOT NULL")
    ).scalar_one()
    current = bind.execute(
        sa.text("SELECT setting::bigint FROM pg_settings WHERE name = 'maintenance_work_mem'")
    ).scalar_one()
    wanted = min(int(vectors * GRAPH_KB_PER_VECTOR), GRAPH_MEMORY_CAP_KB)
    if wanted > current:
        op.execute(f"SET LOCAL maintenance_work_mem = '{wanted}kB'")


def downgrade() -> None:
    op.drop_index(SCOPE_INDEX, table_name="record_embeddings")
    op.drop_column("record_embeddings", "scope")
