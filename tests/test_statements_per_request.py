"""The SQL statements a request makes, counted as `bench/latency.py` counts them (every
statement but transaction control), on both stores with vectors on: what issue 29 set as
each hot request's round trips. A statement more is a regression of every request."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, func, select

from app.db import Database
from app.models import EmbeddingRow
from tests.conftest import app_state, auth
from tests.embedding_support import FakeOpenAI, openai_settings

W = auth("writer")
_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


class Counted:
    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.statements: list[str] = []

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> list[str]:
        """The statements of one request (which must succeed)."""
        self.statements.clear()
        r = self.client.request(method, path, json=body, headers=W)
        assert r.status_code in (200, 201), r.text
        return list(self.statements)


def _embedded(db: Database) -> int:
    with db.transaction() as session:
        return int(session.scalar(select(func.count()).select_from(EmbeddingRow)) or 0)


@pytest.fixture
def counted(
    db_url: str, fake_openai: FakeOpenAI, make_client: Callable[..., TestClient], db: Database
) -> Iterator[Counted]:
    settings = openai_settings(db_url, fake_openai, worker_enabled=True, worker_interval_s=0.01)
    writer = make_client(settings)
    entity = {"kind": "entity", "canonical_name": "Alice"}
    r = writer.post("/v1/records", json={"payload": entity, "scope": "a"}, headers=auth("admin"))
    assert r.status_code == 201, r.text
    lines = ["Alice: the garden party was lovely", "Bob: I told Alice about the harbor",
             "Alice: thanks, see you at dawn", "Bob: tea at the harbor tomorrow"]  # fmt: skip
    for i, line in enumerate(lines * 2):
        body = {"source": "t", "source_kind": "event", "summary": line, "scope": "ab"[i % 2],
                "content": {"speaker": line.split(":")[0]}}  # fmt: skip
        assert writer.post("/v1/capture", json=body, headers=W).status_code == 201
    for _ in range(500):
        if _embedded(db) >= 9:
            break
        threading.Event().wait(0.02)
    assert _embedded(db) >= 9
    # Counted on a client of its own, whose engine no embedding worker shares.
    client = make_client(settings.model_copy(update={"embedding": settings.embedding.model_copy(
        update={"worker_enabled": False})}))  # fmt: skip
    box = Counted(client)

    def seen(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if not statement.lstrip().upper().startswith(_CONTROL):
            box.statements.append(statement)

    engine = app_state(client).db.engine
    event.listen(engine, "before_cursor_execute", seen)
    for _ in range(2):  # warm: scope sizes and the store's statistics are cached
        box.request("POST", "/v1/retrieve", {"query": "the harbor party"})
        box.request("POST", "/v1/retrieve", {"query": "the harbor party", "scopes": ["a"]})
    yield box
    event.remove(engine, "before_cursor_execute", seen)


NAMELESS = "what about the harbor party"
NAMED = "did Alice like the harbor party"  # the entity's name and three other words


def _heads(statements: list[str]) -> list[str]:
    return [" ".join(s.split())[:120] for s in statements]


def test_a_query_retrieve_across_every_scope_makes_four(counted: Counted) -> None:
    # the lexical candidates with the entity-name look-up inside, the nearest vectors'
    # filter check with their headers, the episodes' neighbours, the selected full rows
    statements = counted.request("POST", "/v1/retrieve", {"query": NAMELESS})
    assert len(statements) == 4, _heads(statements)
    # SQLite scores the candidates again without the name's word, in the same statement
    # (FTS5 gives no term's part of a score: sqlite_text_repository._rescored)
    statements = counted.request("POST", "/v1/retrieve", {"query": NAMED})
    assert len(statements) == 4, _heads(statements)


def test_a_query_retrieve_of_one_small_scope_makes_three(counted: Counted) -> None:
    # the scope's admitted records with the look-up, BM25, the selected full rows
    body = {"query": NAMELESS, "scopes": ["a"]}
    statements = counted.request("POST", "/v1/retrieve", body)
    assert len(statements) == 3, _heads(statements)
    statements = counted.request("POST", "/v1/retrieve", body | {"query": NAMED})
    assert len(statements) == 3, _heads(statements)


def test_a_retrieve_without_a_query_makes_one(counted: Counted) -> None:
    assert len(counted.request("POST", "/v1/retrieve", {"limit": 5})) == 1
