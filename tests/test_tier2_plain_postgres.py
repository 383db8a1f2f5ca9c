"""The service on plain PostgreSQL 15 without pgvector: tier 2, full-text only."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest
from fastapi.testclient import TestClient

from app.migrate import upgrade
from tests.conftest import PLAIN_PG_URL, auth, make_settings


@pytest.fixture
def plain_pg_url() -> Iterator[str]:
    try:
        admin = psycopg.connect(PLAIN_PG_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        pytest.skip(f"plain PostgreSQL at {PLAIN_PG_URL} is not reachable: {exc}")
    name = f"membrane_tier2_{uuid.uuid4().hex[:8]}"
    with admin:
        has_vector = admin.execute(
            "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
        ).fetchone()
        if has_vector:
            pytest.skip("this PostgreSQL has pgvector; the tier-2 test needs one without")
        admin.execute(f'CREATE DATABASE "{name}"')
    url = PLAIN_PG_URL.rsplit("/", 1)[0] + "/" + name
    yield url
    with psycopg.connect(PLAIN_PG_URL, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_plain_postgres_runs_as_tier_2(plain_pg_url: str, make_client) -> None:  # type: ignore[no-untyped-def]
    upgrade(plain_pg_url)
    client: TestClient = make_client(make_settings(plain_pg_url))
    ready = client.get("/readyz").json()
    assert (ready["tier"], ready["tier_name"], ready["dialect"]) == (2, "postgres", "postgresql")
    r = client.post(
        "/v1/capture",
        json={
            "source": "a",
            "source_kind": "observation",
            "content": {"subject": "Ada", "predicate": "wrote", "object": "notes"},
        },
        headers=auth("writer"),
    )
    assert r.status_code == 201, r.text
    rid = r.json()["primary_record"]["id"]
    assert client.get(f"/v1/records/{rid}", headers=auth("reader")).status_code == 200
    items = client.get("/v1/records", headers=auth("reader")).json()["items"]
    assert len(items) == 3  # episodic + entity + semantic
