"""The service on plain PostgreSQL 15 without pgvector: tier 2, full-text only."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.conftest import auth, make_settings

pytestmark = pytest.mark.plainpg


def test_plain_postgres_runs_as_tier_2(plain_pg_url: str, make_client) -> None:  # type: ignore[no-untyped-def]
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
