"""PostgreSQL that gains pgvector after its first migration moves to the vector tier.

Migration 0001 gives `record_embeddings` its vector column and HNSW index only when the
server offers pgvector at that moment; a database migrated without it runs at tier 2
(full-text and salience). Once pgvector is installed on the server, `membrane migrate`
(and `membrane serve`, which migrates at start) calls `adopt_pgvector` under the
migration lock: it creates the extension (unless someone already did), adds the column
and the index exactly as 0001 and 0009 make them, and the vectors' `written` column and
trigger as 0018 does, in one transaction. Records captured at
tier 2 were left waiting for a vector (embedding_status 'pending'), so the embedding
worker embeds them once the service restarts on the new tier; nothing else changes.

Creating the extension needs a role allowed to (a superuser, or the database owner
where pgvector is a trusted extension). When that fails the database stays at tier 2 and
one warning says what to run.
"""

from __future__ import annotations

import logging
import os

from sqlalchemy import Connection, text
from sqlalchemy.exc import DBAPIError

log = logging.getLogger("membrane.migrate")

INDEX_OPTIONS = "WITH (m = 32, ef_construction = 200)"  # migration 0009's


def _dimension() -> int:
    """The vector column's size, read as migration 0001 reads it."""
    return int(os.environ.get("MEMBRANE_EMBEDDING__DIMENSION", "384"))


def has_vector_column(conn: Connection) -> bool:
    found = conn.execute(
        text(
            "SELECT 1 FROM information_schema.columns "
            "WHERE table_name = 'record_embeddings' AND column_name = 'embedding'"
        )
    ).first()
    return found is not None


def _pgvector_offered(conn: Connection) -> bool:
    found = conn.execute(
        text("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
    ).first()
    return found is not None


# Migration 0018: each vector row notes the transaction that wrote it (`written`), which
# the API processes' vector matrices read to find what is new (app/retrieve/
# pg_matrix_repository.py). Idempotent: the migration and a later adoption run it alike.
_WRITTEN_INDEX = "ix_record_embeddings_written"
_WRITTEN_FUNCTION = "membrane_vector_written"
_WRITTEN_TRIGGER = "record_embeddings_written"
WRITTEN_DDL = (
    "ALTER TABLE record_embeddings ADD COLUMN IF NOT EXISTS written xid8",
    f"CREATE INDEX IF NOT EXISTS {_WRITTEN_INDEX} ON record_embeddings (written)",
    f"CREATE OR REPLACE FUNCTION {_WRITTEN_FUNCTION}() RETURNS trigger LANGUAGE plpgsql"
    " AS $$ BEGIN NEW.written := pg_current_xact_id(); RETURN NEW; END $$",
    f"DROP TRIGGER IF EXISTS {_WRITTEN_TRIGGER} ON record_embeddings",
    f"CREATE TRIGGER {_WRITTEN_TRIGGER} BEFORE INSERT OR UPDATE OF embedding"
    f" ON record_embeddings FOR EACH ROW EXECUTE FUNCTION {_WRITTEN_FUNCTION}()",
)
WRITTEN_UNDO = (
    f"DROP TRIGGER IF EXISTS {_WRITTEN_TRIGGER} ON record_embeddings",
    f"DROP FUNCTION IF EXISTS {_WRITTEN_FUNCTION}()",
    f"DROP INDEX IF EXISTS {_WRITTEN_INDEX}",
    "ALTER TABLE record_embeddings DROP COLUMN IF EXISTS written",
)


def add_written(conn: Connection) -> None:
    """Migration 0018's column, index and trigger (the vector column must exist)."""
    for statement in WRITTEN_DDL:
        conn.execute(text(statement))


def drop_written(conn: Connection) -> None:
    """Migration 0018 undone (whatever of it is there)."""
    for statement in WRITTEN_UNDO:
        conn.execute(text(statement))


def adopt_pgvector(conn: Connection) -> bool:
    """Move a tier-2 PostgreSQL database at head to tier 3 when the server offers pgvector.
    True when it moved; False when there was nothing to do or it could not (a warning)."""
    if conn.dialect.name != "postgresql":
        return False
    moved = False
    if not has_vector_column(conn) and _pgvector_offered(conn):
        try:
            conn.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
            conn.execute(
                text(f"ALTER TABLE record_embeddings ADD COLUMN embedding vector({_dimension()})")
            )
            conn.execute(
                text(
                    "CREATE INDEX ix_record_embeddings_hnsw ON record_embeddings "
                    f"USING hnsw (embedding vector_cosine_ops) {INDEX_OPTIONS}"
                )
            )
            add_written(conn)
            moved = True
        except DBAPIError as exc:
            conn.rollback()
            log.warning(
                "pgvector is installed on the server but this database could not adopt it "
                "(%s): run CREATE EXTENSION vector as a superuser in this database, then "
                "`membrane migrate`; until then it stays at tier 2 (full-text and salience)",
                str(exc.orig).strip().splitlines()[0] if exc.orig else exc,
            )
            return False
    conn.commit()
    if moved:
        log.info(
            "pgvector found: the database moves to tier 3 (vector search); restart the "
            "service and its embedding worker embeds the records it holds"
        )
    return moved
