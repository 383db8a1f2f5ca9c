"""Alembic upgrade/downgrade on both stores; the models and the migrations agree."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from fastapi.testclient import TestClient
from sqlalchemy import inspect, text

from app.db import Database, Tier, make_engine
from app.embedding import queue_repository as queue_repo
from app.migrate import downgrade, upgrade
from app.models import Base
from tests.conftest import auth, make_settings

# Backend-specific search structures live only in the migration (see app/models docstring).
MIGRATION_ONLY_TABLES = {"alembic_version", "vector_removals", "fts_deferred"}  # SQLite only
MIGRATION_ONLY_COLUMNS = {
    ("records", "search_tsv"),
    ("record_embeddings", "embedding"),
    ("record_embeddings", "written"),  # PostgreSQL + pgvector: migration 0018's xid8
}
MIGRATION_ONLY_INDEXES = {
    "ix_records_search_tsv",
    "ix_record_embeddings_hnsw",
    "ix_record_embeddings_written",
    "ix_records_fact_object",  # dialect-specific expression (hash on PostgreSQL)
    "ix_records_fact_key",  # dialect-specific expression (md5 on PostgreSQL)
    "ix_entity_terms_term",  # hash on PostgreSQL, btree on SQLite
}


def _include(obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any) -> bool:
    if type_ == "table":
        return not (name or "").startswith("records_fts") and name not in MIGRATION_ONLY_TABLES
    if type_ == "column":
        return (obj.table.name, name) not in MIGRATION_ONLY_COLUMNS
    if type_ == "index":
        return name not in MIGRATION_ONLY_INDEXES
    return True


@pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")
@pytest.mark.filterwarnings("ignore:Did not recognize type 'xid8'")
def test_models_match_migrations(db_url: str) -> None:
    engine = make_engine(db_url)
    with engine.connect() as conn:
        ctx = MigrationContext.configure(
            conn, opts={"compare_type": True, "include_object": _include}
        )
        diff = compare_metadata(ctx, Base.metadata)
    engine.dispose()
    assert diff == []


def test_downgrade_to_base_and_upgrade_again(db_url: str) -> None:
    downgrade(db_url, "base")
    engine = make_engine(db_url)
    tables = set(inspect(engine).get_table_names())
    assert tables <= {"alembic_version"}
    engine.dispose()
    upgrade(db_url, "head")
    engine = make_engine(db_url)
    tables = set(inspect(engine).get_table_names())
    engine.dispose()
    assert {
        "records",
        "record_tags",
        "relations",
        "provenance_sources",
        "audit_log",
        "entity_terms",
        "job_runs",
        "system_meta",
        "idempotency_keys",
        "record_embeddings",
    } <= tables


def _scalar(url: str, sql: str) -> Any:
    """The one value `sql` gives, in a transaction of its own (committed)."""
    engine = make_engine(url)
    with engine.begin() as conn:
        value = conn.execute(text(sql)).scalar()
    engine.dispose()
    return value


def _execute(url: str, sql: str) -> None:
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text(sql))
    engine.dispose()


def _hnsw_options(url: str) -> list[str] | None:
    sql = "SELECT reloptions FROM pg_class WHERE relname = 'ix_record_embeddings_hnsw'"
    options = _scalar(url, sql)
    return list(options) if options is not None else None


def test_hnsw_index_is_built_for_clustered_memory(pg_url: str) -> None:
    """Migration 0009: m 32 / ef_construction 200 (pgvector's defaults missed a third of
    the exact neighbours at a million records); its downgrade restores the defaults."""
    assert _hnsw_options(pg_url) == ["m=32", "ef_construction=200"]
    downgrade(pg_url, "0008")
    assert _hnsw_options(pg_url) is None  # pgvector's defaults: no options stored
    upgrade(pg_url, "head")
    assert _hnsw_options(pg_url) == ["m=32", "ef_construction=200"]


def _pending_pages_merged(url: str) -> int:
    """Merge the full-text index's pending list into the index; how many pages it held."""
    pages = _scalar(url, "SELECT gin_clean_pending_list('ix_records_search_tsv'::regclass)")
    return int(pages or 0)


def test_full_text_searches_read_a_short_pending_list(
    pg_url: str, make_client: Callable[..., TestClient]
) -> None:
    """Migration 0011: the GIN index of `search_tsv` merges its pending list once it
    passes 64 kB, so a search reads at most eight pending pages however much was
    captured since (PostgreSQL's 4 MB default let it grow to hundreds, read by every
    search). Its downgrade restores the default."""
    client = make_client(make_settings(pg_url))
    items = [{"source": "t", "source_kind": "event", "summary": _sentence(i)} for i in range(1000)]
    r = client.post("/v1/capture/batch", json={"items": items}, headers=auth("writer"))
    assert r.status_code == 200 and r.json()["created"] == 1000, r.text
    assert _pending_pages_merged(pg_url) <= 8

    downgrade(pg_url, "0010")  # the default limit: the same captures stay pending
    # This release's captures write `occurred_at` (migration 0016): the column alone
    # comes back for them, and goes before the upgrade adds it again.
    _execute(pg_url, "ALTER TABLE records ADD COLUMN occurred_at double precision")
    r = client.post("/v1/capture/batch", json={"items": items}, headers=auth("writer"))
    assert r.status_code == 200 and r.json()["created"] == 1000, r.text
    assert _pending_pages_merged(pg_url) > 20
    _execute(pg_url, "ALTER TABLE records DROP COLUMN occurred_at")
    upgrade(pg_url, "head")


def _sentence(i: int) -> str:
    """A capture with words of its own, as real memories have (each new word is a new
    entry in the index)."""
    words = ("colleague", "venue", "project", "budget", "vendor", "ticket", "release", "office")
    return f"note {i}: " + " ".join(f"{word}{i}" for word in words)


def test_vectors_of_an_existing_store_gain_their_records_scope(
    db_url: str, make_client: Callable[..., TestClient]
) -> None:
    """Migration 0015 copies each record's scope onto its vector row ('' for none: a
    scope's vectors are then read through their own index); on PostgreSQL the HNSW index it rebuilds
    around the fill keeps migration 0009's parameters."""
    client = make_client(make_settings(db_url))
    items = [
        {"source": "t", "source_kind": "event", "summary": f"note {i}"}
        | ({"scope": f"s{i % 3}"} if i % 5 else {})  # every fifth without a scope
        for i in range(30)
    ]
    r = client.post("/v1/capture/batch", json={"items": items}, headers=auth("writer"))
    assert r.status_code == 200, r.text
    ids = [x["result"]["primary_record"]["id"] for x in r.json()["results"]]
    db = Database(db_url)
    try:
        with db.transaction() as s:
            vectors = [(rid, [1.0] + [0.0] * 383) for rid in ids]
            queue_repo.store_vectors(s, db.tier, "m", vectors)
        downgrade(db_url, "0014")
        columns = {c["name"] for c in inspect(db.engine).get_columns("record_embeddings")}
        assert "scope" not in columns
        upgrade(db_url, "head")
        pairs = _scalar(
            db_url,
            "SELECT count(*) FROM record_embeddings e JOIN records r ON r.id = e.record_id "
            "WHERE e.scope = coalesce(r.scope, '')",  # '': a record without a scope
        )
        assert pairs == 30
        if db.tier is Tier.pgvector:
            assert _hnsw_options(db_url) == ["m=32", "ef_construction=200"]
    finally:
        db.dispose()


def test_existing_episodes_gain_their_stored_event_time(
    db_url: str, make_client: Callable[..., TestClient]
) -> None:
    """Migration 0016 fills `occurred_at` of every episode from its first timeline event
    (its capture time when the timeline gives none) and leaves the other types NULL."""
    client = make_client(make_settings(db_url))
    event = {"source": "t", "source_kind": "event"}
    triple = {"subject": "fence", "predicate": "has_colour", "object": "green"}
    items: list[dict[str, Any]] = [
        {**event, "summary": "dated", "timestamp": "2026-03-02T10:00:00+02:00"},
        {**event, "summary": "undated"},
        {"source": "t", "source_kind": "observation", "content": triple},
    ]
    r = client.post("/v1/capture/batch", json={"items": items}, headers=auth("writer"))
    assert r.status_code == 200 and r.json()["created"] == 3, r.text
    dated, undated, _ = (x["result"]["primary_record"]["id"] for x in r.json()["results"])
    downgrade(db_url, "0015")
    assert "occurred_at" not in {c["name"] for c in _columns(db_url, "records")}
    upgrade(db_url, "head")
    engine = make_engine(db_url)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT id, type, occurred_at, created_at FROM records"))
        stored = {rid: (typ, at, created) for rid, typ, at, created in rows}
    engine.dispose()
    assert stored[dated][1] == 1772438400.0  # 2026-03-02T08:00:00Z
    assert stored[undated][1] == stored[undated][2]
    others = [at for typ, at, _ in stored.values() if typ != "episodic"]  # the fact, …
    assert others and all(at is None for at in others)


def _columns(url: str, table: str) -> list[Any]:
    engine = make_engine(url)
    try:
        return list(inspect(engine).get_columns(table))
    finally:
        engine.dispose()
