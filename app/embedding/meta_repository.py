"""The pinned embedding model: key/value rows of system_meta, and the dimension the
pgvector column was migrated with."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, insert, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.db import dialect_of
from app.models import SystemMetaRow


def get_meta(session: Session, keys: Sequence[str]) -> dict[str, str]:
    rows = session.execute(
        select(SystemMetaRow.key, SystemMetaRow.value).where(SystemMetaRow.key.in_(list(keys)))
    )
    return {k: v for k, v in rows}


def put_meta_if_absent(session: Session, values: dict[str, str]) -> None:
    """Insert keys that are not there yet; concurrent first starts do not collide."""
    rows = [{"key": k, "value": v} for k, v in values.items()]
    dialect = dialect_of(session)
    stmt = (sqlite.insert if dialect == "sqlite" else postgresql.insert)(SystemMetaRow)
    session.execute(stmt.values(rows).on_conflict_do_nothing(index_elements=["key"]))


def put_meta(session: Session, values: dict[str, str]) -> None:
    session.execute(delete(SystemMetaRow).where(SystemMetaRow.key.in_(list(values))))
    session.execute(
        insert(SystemMetaRow).values([{"key": k, "value": v} for k, v in values.items()])
    )


def pgvector_dimension(session: Session) -> int | None:
    """The dimension of the pgvector column (fixed by the migration), if there is one."""
    typmod = session.scalar(
        text(
            "SELECT atttypmod FROM pg_attribute "
            "WHERE attrelid = 'record_embeddings'::regclass AND attname = 'embedding' "
            "AND NOT attisdropped"
        )
    )
    return int(typmod) if typmod is not None and typmod > 0 else None
