"""PostgreSQL: the statements of the hot requests stay short enough for psycopg to keep
their conversion to `$n` placeholders. psycopg caches it only for statements up to
MAX_CACHED_STATEMENT_LENGTH bytes (4,096 by default, raised by the service:
app/pg_statement_cache.py) and 50 parameters; a longer one is parsed again in Python on
every call: the no-query retrieve's statement (5,041 bytes, its salience expression
written twice) cost 2 M of its 16 M instructions a request."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from psycopg import _queries
from sqlalchemy import event

from app.pg_statement_cache import STATEMENT_CACHE_BYTES
from tests.conftest import app_state, auth, make_settings

pytestmark = pytest.mark.postgres
A = auth("admin")


@pytest.fixture
def statement_sizes(
    pg_url: str, make_client: Callable[..., TestClient]
) -> Iterator[tuple[TestClient, dict[str, int]]]:
    client = make_client(make_settings(pg_url))
    sizes: dict[str, int] = {}

    def seen(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        sizes[statement[:60]] = max(sizes.get(statement[:60], 0), len(statement.encode()))

    engine = app_state(client).db.engine
    event.listen(engine, "before_cursor_execute", seen)
    yield client, sizes
    event.remove(engine, "before_cursor_execute", seen)


def test_hot_statements_fit_psycopgs_conversion_cache(
    statement_sizes: tuple[TestClient, dict[str, int]],
) -> None:
    client, sizes = statement_sizes
    ids = []
    for i, text in enumerate(["Alice moved to Paris", "the harbor at dawn", "Bob likes tea"]):
        body = {"source_kind": "event", "source": "t", "summary": text, "scope": f"s{i % 2}"}
        r = client.post("/v1/capture", json=body, headers=A)
        assert r.status_code == 201, r.text
        ids.append(r.json()["primary_record"]["id"])
    calls: list[tuple[str, str, dict[str, Any] | None]] = [
        ("post", "/v1/retrieve", {"query": "where did Alice move", "scopes": ["s0"]}),
        ("post", "/v1/retrieve", {"query": "where did Alice move"}),
        ("post", "/v1/retrieve", {"scopes": ["s0"]}),
        ("post", "/v1/retrieve", {}),
        ("post", "/v1/retrieve/graph", {"query": "Alice"}),
        ("get", f"/v1/records/{ids[0]}", None),
        ("get", "/v1/records", None),
    ]
    for method, path, payload in calls:
        r = client.request(method, path, json=payload, headers=A)
        assert r.status_code == 200, (path, r.text)
    assert sizes, "no statement seen"
    assert _queries.MAX_CACHED_STATEMENT_LENGTH == STATEMENT_CACHE_BYTES  # the service's
    too_long = {head: size for head, size in sizes.items() if size > STATEMENT_CACHE_BYTES}
    assert too_long == {}
