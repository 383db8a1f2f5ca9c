"""Retrieval on plain PostgreSQL without pgvector (tier 2): full-text and salience only,
even when an embedding provider is configured."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from tests.conftest import auth, make_settings

pytestmark = pytest.mark.plainpg


def test_tier2_retrieves_lexically_with_a_provider_configured(
    plain_pg_url: str, make_client: Callable[..., TestClient]
) -> None:
    settings = make_settings(
        plain_pg_url,
        embedding={"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
    )
    client = make_client(settings)  # starts: the provider is switched off, not contacted
    ready = client.get("/readyz").json()
    assert ready["tier"] == 2
    assert ready["embedding"] == {"provider": "none", "model": None, "pending": 0}
    for text in ("rotate the database credentials", "water the plants"):
        body = {"source": "a", "source_kind": "event", "summary": text}
        assert client.post("/v1/capture", json=body, headers=auth("writer")).status_code == 201
    body = {"query": "database credentials rotation"}
    result = client.post("/v1/retrieve", json=body, headers=auth("reader")).json()
    assert result["items"][0]["record"]["payload"]["summary"] == "rotate the database credentials"
    assert result["items"][0]["components"]["vector"] is None
    assert "vector" not in result["signals"]
    graph = client.post("/v1/retrieve/graph", json=body, headers=auth("reader"))
    assert graph.status_code == 200
