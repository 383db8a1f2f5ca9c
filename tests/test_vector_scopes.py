"""Every vector row carries its record's scope ('' for none; migration 0015): scoped
vector searches read a scope's vectors through that column. Rows a worker of the
previous release writes during a rollout have none; the worker fills them."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from app.db import Database
from app.embedding import queue_repository as repo
from app.embedding import worker
from app.models import EmbeddingRow, RecordRow
from tests.conftest import auth
from tests.embedding_support import DIM, FakeOpenAI, openai_settings


def capture(client: TestClient, text: str, scope: str | None) -> str:
    body = {"source": "t", "source_kind": "event", "summary": text}
    r = client.post("/v1/capture", json=body | ({"scope": scope} if scope else {}),
                    headers=auth("writer"))  # fmt: skip
    assert r.status_code == 201, r.text
    return str(r.json()["primary_record"]["id"])


def scopes(db: Database) -> dict[str, tuple[str | None, str | None]]:
    """record id → (its vector row's scope, its record's scope)."""
    stmt = select(EmbeddingRow.record_id, EmbeddingRow.scope, RecordRow.scope).join(
        RecordRow, RecordRow.id == EmbeddingRow.record_id
    )
    with db.transaction() as session:
        return {rid: (mine, theirs) for rid, mine, theirs in session.execute(stmt)}


def wait_for(done: Callable[[], bool]) -> None:
    for _ in range(600):
        if done():
            return
        threading.Event().wait(0.02)
    raise AssertionError("timed out")


def test_vectors_carry_their_records_scope_and_the_worker_fills_missing_ones(
    db_url: str,
    fake_openai: FakeOpenAI,
    make_client: Callable[..., TestClient],
    db: Database,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(worker, "SCOPE_REPAIR_EVERY_S", 0.0)  # on every idle poll
    settings = openai_settings(db_url, fake_openai, worker_enabled=True, worker_interval_s=0.01)
    client = make_client(settings)
    ids = [capture(client, f"note {i}", scope) for i, scope in enumerate(["a", "b", None])]
    wait_for(lambda: len(scopes(db)) == 3)
    assert scopes(db) == {ids[0]: ("a", "a"), ids[1]: ("b", "b"), ids[2]: ("", None)}
    with db.transaction() as session:  # as a worker older than migration 0015 writes them
        session.execute(update(EmbeddingRow).values(scope=None))
    wait_for(lambda: all(mine is not None for mine, _ in scopes(db).values()))
    assert scopes(db) == {ids[0]: ("a", "a"), ids[1]: ("b", "b"), ids[2]: ("", None)}


def test_missing_scopes_are_filled_a_limited_number_at_a_time(
    db_url: str,
    fake_openai: FakeOpenAI,
    make_client: Callable[..., TestClient],
    db: Database,
) -> None:
    client = make_client(openai_settings(db_url, fake_openai, worker_enabled=False))
    ids = [capture(client, f"note {i}", f"s{i}") for i in range(3)]
    with db.transaction() as session:
        repo.store_vectors(session, db.tier, "m", [(rid, [1.0] + [0.0] * (DIM - 1)) for rid in ids])
        session.execute(update(EmbeddingRow).values(scope=None))
    with db.transaction() as session:
        assert repo.fill_missing_scopes(session, 2) == 2
    with db.transaction() as session:
        assert repo.fill_missing_scopes(session, 2) == 1
        assert repo.fill_missing_scopes(session, 2) == 0
    assert scopes(db) == {rid: (f"s{i}", f"s{i}") for i, rid in enumerate(ids)}
