"""PostgreSQL: the embedding worker's row locks (and an update's) do not hold captures up.

A capture that mentions a stored entity writes an edge from that entity's record
(`mentioned_in`), whose foreign-key check takes a KEY SHARE lock on the entity's row. The
worker locks the records it embeds while it claims them and while it stores their vectors
(a transaction as long as the HNSW inserts of a batch: hundreds of milliseconds at 100,000
records). Those locks are FOR NO KEY UPDATE, which serialises the worker against other
writers of the same rows but not against such checks; FOR UPDATE had made every capture
naming a popular entity wait for the worker's commit (bench/scale.py's batches of 500:
median 227 ms alone, 1.0-1.3 s beside a busy worker)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app import clock
from app.db import Database
from app.embedding import queue_repository as queue_repo
from app.records import repository as record_repo
from tests.conftest import auth, make_settings


def _mention(name: str, words: str) -> dict[str, Any]:
    return {
        "source": "chat",
        "source_kind": "event",
        "scope": "team",
        "summary": f"{name}: {words}",
        "content": {"speaker": name, "text": words, "entities": [name]},
    }


def _entity_id(db: Database, name: str) -> str:
    with db.transaction() as s:
        rid = s.scalar(
            text("SELECT record_id FROM entity_terms WHERE term = :t AND scope = 'team'"),
            {"t": name.casefold()},
        )
        s.execute(text("UPDATE records SET embedding_status = 'pending' WHERE id = :r"), {"r": rid})
    assert isinstance(rid, str)
    return rid


@pytest.mark.parametrize("held_by", ["claim", "store", "update"])
def test_a_capture_naming_an_entity_does_not_wait_for_the_worker(
    pg_url: str, make_client: Callable[..., TestClient], held_by: str
) -> None:
    client = make_client(make_settings(pg_url))
    first = client.post("/v1/capture", json=_mention("Alice", "hello"), headers=auth("writer"))
    assert first.status_code == 201
    db = Database(pg_url)
    entity = _entity_id(db, "Alice")
    answer: dict[str, Any] = {}

    def capture_again() -> None:
        r = client.post("/v1/capture", json=_mention("Alice", "again"), headers=auth("writer"))
        answer["status"], answer["body"] = r.status_code, r.json()

    try:
        with db.transaction() as worker:  # the worker's transaction, left open meanwhile
            if held_by == "claim":
                claimed = queue_repo.claim_batch(worker, 10, clock.now(), 600.0)
                assert entity in [r.id for r in claimed]
            elif held_by == "store":
                assert queue_repo.still_pending(worker, [entity]) == {entity}
            else:  # a revision or reinforcement of the entity holds its row as long
                assert entity in record_repo.lock(worker, [entity])
            thread = threading.Thread(target=capture_again)
            thread.start()
            thread.join(timeout=60)
            finished_while_held = not thread.is_alive()
        thread.join()
    finally:
        db.dispose()
    assert finished_while_held, "the capture waited for the worker's row lock"
    assert answer["status"] == 201
    episode = answer["body"]["primary_record"]["id"]
    edges = {(e["source_id"], e["predicate"], e["target_id"]) for e in answer["body"]["edges"]}
    assert (entity, "mentioned_in", episode) in edges
