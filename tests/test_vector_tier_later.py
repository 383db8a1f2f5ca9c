"""A PostgreSQL database that gains pgvector after its first migration: `membrane migrate`
moves it to the vector tier, and the records it held at tier 2 are embedded and found by
meaning (app/vector_tier.py). On the plain PostgreSQL 15 (no pgvector) the same command
leaves the database at tier 2 and succeeds."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import psycopg
import pytest
from fastapi.testclient import TestClient

from app.embedding.worker import embed_pending
from tests.conftest import app_state, auth, make_settings
from tests.embedding_support import FakeOpenAI, openai_settings
from tests.fault_support import ROOT, START_TIMEOUT_S, service_env


def migrate(url: str) -> subprocess.CompletedProcess[str]:
    """`membrane migrate` on `url`, as an operator runs it."""
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "migrate"],
        cwd=ROOT,
        env=service_env(url),
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT_S,
    )


def _without_pgvector(url: str) -> None:
    """The database as migration 0001 leaves it on a server without pgvector: no
    extension, no vector column, no HNSW index (DROP EXTENSION takes both with it)."""
    with psycopg.connect(url) as conn:
        conn.execute("DROP EXTENSION vector CASCADE")


def _ready(client: TestClient) -> dict[str, object]:
    ready: dict[str, object] = client.get("/readyz").json()
    return ready


@pytest.mark.postgres
def test_a_database_that_gains_pgvector_moves_to_the_vector_tier(
    pg_url: str, fake_openai: FakeOpenAI, make_client: Callable[..., TestClient]
) -> None:
    _without_pgvector(pg_url)
    settings = openai_settings(pg_url, fake_openai)
    before = make_client(settings)
    assert _ready(before)["tier"] == 2
    body = {"source": "chat", "source_kind": "event", "summary": "Caroline adopted a puppy"}
    created = before.post("/v1/capture", json=body, headers=auth("writer"))
    assert created.status_code == 201, created.text
    record_id = created.json()["primary_record"]["id"]

    # pgvector is on the server (pgserver has it); the operator runs the documented command
    done = migrate(pg_url)
    assert done.returncode == 0, done.stderr
    assert "moves to tier 3" in done.stderr

    after = make_client(settings)  # the restarted service
    ready = _ready(after)
    assert ready["tier"] == 3
    assert ready["embedding"] == {"provider": "openai", "model": "fake-bow", "pending": 1}
    state = app_state(after)
    assert state.embedding is not None
    assert embed_pending(state.db, state.embedding.embedder, 16, max_passages=0) == 1
    query = {"query": "Caroline puppy", "expand_context": False}
    found = after.post("/v1/retrieve", json=query, headers=auth("reader")).json()
    assert "vector" in found["signals"]
    assert found["items"][0]["record"]["id"] == record_id
    assert found["items"][0]["components"]["vector"] > 0

    with psycopg.connect(pg_url) as conn:  # migration 0018's trigger, added on adoption
        written = conn.execute(
            "SELECT written IS NOT NULL FROM record_embeddings WHERE record_id = %s",
            (record_id,),
        ).fetchone()
    assert written == (True,)

    again = migrate(pg_url)  # nothing left to do
    assert again.returncode == 0 and "tier 3" not in again.stderr, again.stderr


@pytest.mark.plainpg
def test_migrate_on_postgres_without_pgvector_stays_at_tier_2(
    plain_pg_url: str, make_client: Callable[..., TestClient]
) -> None:
    done = migrate(plain_pg_url)
    assert done.returncode == 0, done.stderr
    assert "tier" not in done.stderr and "WARNING" not in done.stderr
    assert _ready(make_client(make_settings(plain_pg_url)))["tier"] == 2
