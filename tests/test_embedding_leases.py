"""Several embedding workers (`python -m app.worker` replicas, or threads) embed different
batches: each claims its batch with a lease (app/embedding/queue_repository.claim_batch),
a dead worker's lease runs out, and a failed batch is released for the next try.

The provider is a real HTTP server on 127.0.0.1 speaking the OpenAI /embeddings protocol
(tests/embedding_support.py); it records every text it was asked to embed."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app import clock
from app.db import Database
from app.embedding import queue_repository as queue
from app.embedding.providers import Embedder
from app.embedding.worker import Pipeline, embed_pending
from app.models import EmbeddingLeaseRow, EmbeddingRow, RecordRow
from tests.conftest import app_state
from tests.embedding_support import FakeOpenAI, openai_settings
from tests.test_embedding import capture, pending

LEASE_S = 600.0


def _claim(db: Database, limit: int, now: float) -> list[str]:
    with db.transaction() as session:
        return [r.id for r in queue.claim_batch(session, limit, now, LEASE_S)]


def _pending_texts(client: TestClient, texts: list[str]) -> tuple[Database, Embedder]:
    """Capture `texts` (they wait as pending); the app's store and embedder."""
    for text in texts:
        capture(client, text)
    state = app_state(client)
    assert state.embedding is not None
    return state.db, state.embedding.embedder


def test_workers_claim_different_batches_and_a_dead_workers_lease_runs_out(
    db_url: str, fake_openai: FakeOpenAI, make_client: Callable[..., TestClient], db: Database
) -> None:
    client = make_client(openai_settings(db_url, fake_openai))
    ids = [capture(client, f"note number {i}") for i in range(6)]
    now = clock.now()
    first, second = _claim(db, 3, now), _claim(db, 3, now)
    assert first == ids[:3] and second == ids[3:]  # oldest first, never the same record
    assert _claim(db, 3, now) == []  # all held
    with db.transaction() as session:  # a release takes only the leases its worker set
        queue.release(session, first, until=now + LEASE_S + 1)
    assert _claim(db, 3, now) == []
    # Neither worker came back: after the lease the oldest batch is claimable again.
    assert _claim(db, 3, now + LEASE_S + 1) == ids[:3]
    assert pending(client) == 6  # a lease is not an embedding


def test_concurrent_workers_embed_each_record_once(
    db_url: str, fake_openai: FakeOpenAI, make_client: Callable[..., TestClient], db: Database
) -> None:
    client = make_client(openai_settings(db_url, fake_openai, max_passages=0))
    texts = [f"observation {i} about the harbour" for i in range(40)]
    store, embedder = _pending_texts(client, texts)
    start = threading.Barrier(4)
    errors: list[BaseException] = []

    def worker() -> None:
        start.wait()
        try:
            while embed_pending(store, embedder, 5, max_passages=0):
                pass
        except BaseException as exc:  # reported below: a thread's error would pass silently
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    # The provider is asked for each record's search text (its summary, as captured).
    asked = Counter(text for request in fake_openai.requests for text in request["input"])
    assert len(asked) == len(texts)
    assert all(any(a.startswith(text) for a in asked) for text in texts)
    assert set(asked.values()) == {1}, "a record was embedded by two workers"
    assert pending(client) == 0
    with db.transaction() as session:
        assert session.scalar(select(func.count()).select_from(EmbeddingRow)) == 40
        assert session.scalar(select(func.count()).select_from(EmbeddingLeaseRow)) == 0


def test_a_failed_batch_is_released_for_the_next_try(
    db_url: str, fake_openai: FakeOpenAI, make_client: Callable[..., TestClient], db: Database
) -> None:
    client = make_client(openai_settings(db_url, fake_openai, max_retries=0))
    rid = capture(client, "the tide turns at noon")
    state = app_state(client)
    assert state.embedding is not None
    fake_openai.fail_next = [500]
    with pytest.raises(Exception):  # noqa: B017 - the provider's error, whatever its class
        embed_pending(state.db, state.embedding.embedder, 8, max_passages=0)
    with db.transaction() as session:
        assert session.scalar(select(func.count()).select_from(EmbeddingLeaseRow)) == 0
        assert session.get(RecordRow, rid).embedding_status == "pending"  # type: ignore[union-attr]
    assert embed_pending(state.db, state.embedding.embedder, 8, max_passages=0) == 1
    assert pending(client) == 0


def _leases(db: Database) -> int:
    with db.transaction() as session:
        return int(session.scalar(select(func.count()).select_from(EmbeddingLeaseRow)) or 0)


def test_the_pipelined_worker_stores_every_batch_once(
    db_url: str, fake_openai: FakeOpenAI, make_client: Callable[..., TestClient], db: Database
) -> None:
    client = make_client(openai_settings(db_url, fake_openai, max_passages=0))
    texts = [f"buoy {i} drifted north" for i in range(11)]
    pipeline = Pipeline(*_pending_texts(client, texts), 4, 0)
    settled = [pipeline.step()]
    assert settled == [0] and pipeline.busy  # the first batch is being stored
    while pipeline.busy:
        settled.append(pipeline.step())
    pipeline.close()
    assert settled == [0, 4, 4, 3]  # each step reports the store before it
    asked = Counter(text for request in fake_openai.requests for text in request["input"])
    assert len(asked) == len(texts) and set(asked.values()) == {1}
    assert pending(client) == 0 and _leases(db) == 0
    with db.transaction() as session:
        assert session.scalar(select(func.count()).select_from(EmbeddingRow)) == 11


def test_a_failed_embedding_in_the_pipeline_keeps_the_batch_before_it(
    db_url: str, fake_openai: FakeOpenAI, make_client: Callable[..., TestClient], db: Database
) -> None:
    client = make_client(openai_settings(db_url, fake_openai, max_passages=0, max_retries=0))
    pipeline = Pipeline(
        *_pending_texts(client, [f"gull {i} over the pier" for i in range(6)]), 3, 0
    )
    assert pipeline.step() == 0  # the first three embedded, on their way to the store
    fake_openai.fail_next = [500]
    with pytest.raises(Exception):  # noqa: B017 - the provider's error, whatever its class
        pipeline.step()
    assert not pipeline.busy
    assert pending(client) == 3 and _leases(db) == 0  # the first batch stored, the second released
    while pipeline.step() or pipeline.busy:
        pass
    pipeline.close()
    assert pending(client) == 0 and _leases(db) == 0
