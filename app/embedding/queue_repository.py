"""SQL of the embedding queue: which records wait for a vector, and storing vectors.

SQLite keeps float32 bytes in record_embeddings.vector; PostgreSQL + pgvector keeps them
in the `embedding vector(d)` column (app.models.pg_embeddings). Search is retrieval's
(app/retrieve/vector_repository.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import (
    delete,
    exists,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.db import Tier, dialect_of
from app.embedding.unit import unit_vector
from app.models import EmbeddingLeaseRow, EmbeddingRow, RecordRow, pg_embeddings

# -- queue -------------------------------------------------------------------------------


def count_pending(session: Session) -> int:
    stmt = (
        select(func.count()).select_from(RecordRow).where(RecordRow.embedding_status == "pending")
    )
    return int(session.scalar(stmt) or 0)


@dataclass(frozen=True)
class PendingRecord:
    id: str
    type: str
    payload: Mapping[str, object]
    search_text: str


def claim_batch(session: Session, limit: int, now: float, lease_s: float) -> list[PendingRecord]:
    """Claim the oldest pending records no other worker holds (no lease, or one that ran
    out: its worker died) for `lease_s`. Two workers never claim the same record: each
    lease is taken with one INSERT … ON CONFLICT that only replaces a lease that ran
    out, so a record another worker is claiming at the same moment (PostgreSQL: waits for
    its commit, then sees its fresh lease) is left out of this batch."""
    held = exists().where(
        EmbeddingLeaseRow.record_id == RecordRow.id, EmbeddingLeaseRow.until > now
    )
    candidates = (
        select(RecordRow.id, RecordRow.type, RecordRow.payload, RecordRow.search_text)
        .where(RecordRow.embedding_status == "pending", ~held)
        .order_by(RecordRow.created_at, RecordRow.id)
        .limit(limit)
        # PostgreSQL: a worker claiming at the same moment takes the next records instead
        # of waiting for the same ones (SQLite: claims are writes, one at a time). NO KEY
        # UPDATE (`key_share`), as for every lock of the worker: see `still_pending`.
        .with_for_update(skip_locked=True, key_share=True)
    )
    found = [PendingRecord(*row) for row in session.execute(candidates)]
    if not found:
        return []
    dialect_insert = sqlite.insert if dialect_of(session) == "sqlite" else postgresql.insert
    insert_lease = dialect_insert(EmbeddingLeaseRow).values(
        [{"record_id": r.id, "until": now + lease_s} for r in found]
    )
    taken = insert_lease.on_conflict_do_update(
        index_elements=[EmbeddingLeaseRow.record_id],
        set_={"until": insert_lease.excluded.until},
        where=EmbeddingLeaseRow.until <= now,
    ).returning(EmbeddingLeaseRow.record_id)
    claimed = set(session.scalars(taken))
    return [r for r in found if r.id in claimed]


def release(session: Session, ids: Sequence[str], until: float) -> None:
    """Drop the leases of `ids` that this worker took (their `until` is the one it set: a
    lease that ran out and was taken over by another worker stays theirs)."""
    if ids:
        session.execute(
            delete(EmbeddingLeaseRow).where(
                EmbeddingLeaseRow.record_id.in_(list(ids)), EmbeddingLeaseRow.until == until
            )
        )


def still_pending(session: Session, ids: Sequence[str]) -> set[str]:
    """Ids of the batch that still exist and are still pending, locked until commit
    against other writers of those rows (an edit, a forget). FOR NO KEY UPDATE on
    PostgreSQL, not FOR UPDATE: a capture that mentions one of these records (an entity)
    writes an edge from it, whose foreign-key check takes a KEY SHARE lock that FOR UPDATE
    would hold until this transaction, with its HNSW inserts, commits (or the capture's
    lock timeout answers 503). tests/test_worker_row_locks_pg.py."""
    if not ids:
        return set()
    stmt = (
        select(RecordRow.id)
        .where(RecordRow.id.in_(list(ids)), RecordRow.embedding_status == "pending")
        .order_by(RecordRow.id)
        .with_for_update(key_share=True)
    )
    return set(session.scalars(stmt))


def mark(session: Session, ids: Sequence[str], status: str) -> None:
    if ids:
        session.execute(
            update(RecordRow).where(RecordRow.id.in_(list(ids))).values(embedding_status=status)
        )


def requeue_missing(session: Session, model: str) -> int:
    """Queue every record with text but without a vector of `model`."""
    has_vector = exists().where(EmbeddingRow.record_id == RecordRow.id, EmbeddingRow.model == model)
    stmt = (
        update(RecordRow)
        .where(RecordRow.embedding_status != "pending", RecordRow.search_text != "", ~has_vector)
        .values(embedding_status="pending")
    )
    return int(session.execute(stmt).rowcount or 0)  # type: ignore[attr-defined]


def drop_all_vectors(session: Session) -> int:
    """Forget every stored vector and queue every record with text again. A record with
    a vector but no text (an import's, or one whose text forget scrubbed) keeps its status
    but has its row written too: every dropped vector moves its record's version, which
    PostgreSQL's vector cache compares (app/retrieve/pg_vector_cache.py)."""
    had_vector = RecordRow.id.in_(select(EmbeddingRow.record_id))
    touch = update(RecordRow).where(RecordRow.search_text == "", had_vector)
    session.execute(touch.values(embedding_status=RecordRow.embedding_status))
    session.execute(delete(EmbeddingRow))
    stmt = update(RecordRow).where(RecordRow.search_text != "").values(embedding_status="pending")
    return int(session.execute(stmt).rowcount or 0)  # type: ignore[attr-defined]


# -- vectors -----------------------------------------------------------------------------


def store_vectors(
    session: Session, tier: Tier, model: str, items: Sequence[tuple[str, Sequence[float]]]
) -> None:
    """Write unit-length vectors (replacing older ones) for existing records, and mark
    those records embedded. The mark is an UPDATE of each record's row in the same
    transaction: on PostgreSQL the row's new version (xmin) is how the retrieval's vector
    cache (app/retrieve/pg_vector_cache.py) tells that the vector changed. Each vector
    row carries its record's scope ('' for none), which the mark reads back (migration
    0015)."""
    if not items:
        return
    scopes = _mark_embedded(session, [rid for rid, _ in items])
    # (id, scope, unit vector) of the records still there (one may be gone meanwhile)
    kept = [(rid, scopes[rid] or "", unit_vector(v)) for rid, v in items if rid in scopes]
    if not kept:
        return
    if tier is Tier.pgvector:
        # Rows as executemany parameters: the statement compiles once and is cached (a
        # VALUES list of the batch was compiled anew each time, ~7 % of the worker's
        # time), and psycopg sends the rows in one pipeline.
        stmt = postgresql.insert(pg_embeddings)
        stmt = stmt.on_conflict_do_update(
            index_elements=["record_id"],
            set_={
                "model": stmt.excluded.model,
                "embedding": stmt.excluded.embedding,
                "scope": stmt.excluded.scope,
            },
        )
        rows = [
            {"record_id": rid, "model": model, "scope": scope, "embedding": vec}
            for rid, scope, vec in kept
        ]
        session.execute(stmt, rows)
        return
    # Delete + insert (not update): new rowids are how the SQLite cache notices changes.
    session.execute(delete(EmbeddingRow).where(EmbeddingRow.record_id.in_([r for r, *_ in kept])))
    session.execute(
        insert(EmbeddingRow),
        [
            {"record_id": rid, "model": model, "scope": scope, "vector": vec.tobytes()}
            for rid, scope, vec in kept
        ],
    )


def _mark_embedded(session: Session, ids: Sequence[str]) -> dict[str, str | None]:
    """Mark the records of `ids` embedded; record id → scope of those that exist."""
    stmt = (
        update(RecordRow)
        .where(RecordRow.id.in_(list(ids)))
        .values(embedding_status="done")
        .returning(RecordRow.id, RecordRow.scope)
        .execution_options(synchronize_session=False)
    )
    return {rid: scope for rid, scope in session.execute(stmt)}


def fill_missing_scopes(session: Session, limit: int) -> int:
    """Give up to `limit` vector rows without a scope their record's ('' for none): rows
    written by a worker of a release before migration 0015 while this one rolled out,
    which every scoped vector search reads until then. How many were filled."""
    missing = select(EmbeddingRow.record_id).where(EmbeddingRow.scope.is_(None)).limit(limit)
    scope = (
        select(func.coalesce(RecordRow.scope, ""))
        .where(RecordRow.id == EmbeddingRow.record_id)
        .scalar_subquery()
    )
    stmt = (
        update(EmbeddingRow)
        # still NULL when its turn comes: a second worker blocked on the first's rows
        # finds them filled and writes nothing
        .where(EmbeddingRow.record_id.in_(missing.scalar_subquery()), EmbeddingRow.scope.is_(None))
        .values(scope=scope)
        .execution_options(synchronize_session=False)
    )
    return int(session.execute(stmt).rowcount or 0)  # type: ignore[attr-defined]
