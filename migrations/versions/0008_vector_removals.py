"""SQLite: a counter of removed vectors, so the in-process vector matrix can tell cheaply
whether it is still current.

Each process keeps the SQLite store's vectors in a matrix (app/retrieve/vector_cache.py)
and, before every vector search, asked `count(*)` of record_embeddings to notice rows
removed since it last looked: 24–30 ms a retrieve at 200,000 records. New rows show in
`max(rowid)` (constant time); removals (deletes, cascades from a deleted record,
re-embedding, which deletes and inserts) now bump `vector_removals.n` through a trigger.
PostgreSQL has no such matrix and gets nothing.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24
"""

from __future__ import annotations

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    op.execute(
        "CREATE TABLE vector_removals (id INTEGER PRIMARY KEY CHECK (id = 1), "
        "n INTEGER NOT NULL)"
    )
    op.execute("INSERT INTO vector_removals (id, n) VALUES (1, 0)")
    op.execute(
        "CREATE TRIGGER record_embeddings_removed AFTER DELETE ON record_embeddings "
        "BEGIN UPDATE vector_removals SET n = n + 1 WHERE id = 1; END"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    op.execute("DROP TRIGGER IF EXISTS record_embeddings_removed")
    op.execute("DROP TABLE IF EXISTS vector_removals")
