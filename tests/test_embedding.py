"""Embedding providers, the queue worker, model pinning and backfill.

The openai provider talks to a real HTTP server on 127.0.0.1 started here, speaking the
OpenAI /embeddings protocol with bag-of-words vectors (same words → similar vectors)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db import Database
from app.embedding.passages import pooled
from app.embedding.providers import EmbeddingError, OpenAIEmbedder
from app.embedding.service import EmbeddingModelMismatch, check_or_pin, repin, requeue_unembedded
from app.embedding.unit import unit_vector
from app.embedding.worker import embed_pending
from app.models import EmbeddingRow, RecordRow, SystemMetaRow
from app.records import repository as record_repo
from app.transfer.repository import vectors_of
from tests.conftest import app_state, auth, make_settings
from tests.embedding_support import DIM, FakeOpenAI, bag_of_words, openai_settings
from tests.lifecycle_support import semantic


def capture(client: TestClient, summary: str, **extra: Any) -> str:
    body = {"source": "agent", "source_kind": "event", "summary": summary, **extra}
    r = client.post("/v1/capture", json=body, headers=auth("writer"))
    assert r.status_code == 201, r.text
    rid: str = r.json()["primary_record"]["id"]
    return rid


def drain(client: TestClient) -> int:
    state = app_state(client)
    assert state.embedding is not None
    embedder = state.embedding.embedder
    total = 0
    passages = state.settings.embedding.max_passages
    while settled := embed_pending(state.db, embedder, 16, max_passages=passages):
        total += settled
    return total


def pending(client: TestClient) -> int:
    count: int = client.get("/readyz").json()["embedding"]["pending"]
    return count


# -- the provider on its own ------------------------------------------------------------


def test_openai_provider_orders_by_index_and_sends_the_key(fake_openai: FakeOpenAI) -> None:
    embedder = OpenAIEmbedder(
        base_url=fake_openai.url, model="fake-bow", dimension=DIM, api_key="sk-test"
    )
    vectors = embedder.embed(["alpha", "beta beta"])
    assert vectors == [bag_of_words("alpha"), bag_of_words("beta beta")]
    assert fake_openai.requests == [{"model": "fake-bow", "input": ["alpha", "beta beta"]}]
    assert fake_openai.auth_headers == ["Bearer sk-test"]


def test_openai_provider_retries_429_and_5xx(fake_openai: FakeOpenAI) -> None:
    fake_openai.fail_next = [429, 503]
    embedder = OpenAIEmbedder(
        base_url=fake_openai.url, model="m", dimension=DIM, max_retries=3, backoff_s=0.001
    )
    assert embedder.embed(["x"]) == [bag_of_words("x")]
    assert len(fake_openai.requests) == 3


def test_openai_provider_gives_up(fake_openai: FakeOpenAI) -> None:
    fake_openai.fail_next = [503, 503, 503]
    embedder = OpenAIEmbedder(
        base_url=fake_openai.url, model="m", dimension=DIM, max_retries=1, backoff_s=0.001
    )
    with pytest.raises(EmbeddingError, match="503"):
        embedder.embed(["x"])
    assert len(fake_openai.requests) == 2
    fake_openai.fail_next = [400]
    with pytest.raises(EmbeddingError, match="400"):
        embedder.embed(["x"])  # client errors are not retried
    assert len(fake_openai.requests) == 3


def test_openai_provider_checks_the_dimension(fake_openai: FakeOpenAI) -> None:
    embedder = OpenAIEmbedder(base_url=fake_openai.url, model="m", dimension=8)
    with pytest.raises(EmbeddingError, match="expected 8"):
        embedder.embed(["x"])


def test_unreachable_endpoint_is_an_embedding_error() -> None:
    embedder = OpenAIEmbedder(
        base_url="http://127.0.0.1:9/v1", model="m", dimension=DIM, max_retries=1, backoff_s=0.001
    )
    with pytest.raises(EmbeddingError, match="unreachable"):
        embedder.embed(["x"])


# -- queue, worker, retrieval with vectors ------------------------------------------------


def test_capture_queues_and_the_worker_embeds(
    db_url: str, fake_openai: FakeOpenAI, make_client: Callable[..., TestClient], db: Database
) -> None:
    client = make_client(openai_settings(db_url, fake_openai))
    rid = capture(client, "the blue whale is the largest animal")
    assert pending(client) == 1
    with db.transaction() as session:
        assert session.get(RecordRow, rid).embedding_status == "pending"  # type: ignore[union-attr]
    assert drain(client) == 1
    assert pending(client) == 0
    with db.transaction() as session:
        assert session.get(RecordRow, rid).embedding_status == "done"  # type: ignore[union-attr]
        stored = session.get(EmbeddingRow, rid)
        assert stored is not None and stored.model == "fake-bow"
    ready = client.get("/readyz").json()["embedding"]
    assert ready == {"provider": "openai", "model": "fake-bow", "pending": 0}


def test_a_record_vector_pools_its_text_with_its_sentences(
    db_url: str, fake_openai: FakeOpenAI, make_client: Callable[..., TestClient], db: Database
) -> None:
    client = make_client(openai_settings(db_url, fake_openai))
    summary = "Maria: I took a solo trip last year. I took this pic in Spain."
    rid = capture(client, summary)
    fake_openai.requests.clear()
    drain(client)
    with db.transaction() as session:
        search_text = session.get(RecordRow, rid).search_text  # type: ignore[union-attr]
        [(_, model, stored)] = vectors_of(session, db.tier, [rid])
    sentences = ["Maria: I took a solo trip last year.", "Maria: I took this pic in Spain."]
    # One call: the whole searchable text (with its date words), then each sentence.
    assert fake_openai.requests == [{"model": "fake-bow", "input": [search_text, *sentences]}]
    want = pooled(bag_of_words(search_text), [bag_of_words(s) for s in sentences])
    assert model == "fake-bow"
    assert np.allclose(stored, want, atol=1e-6)


def test_a_one_sentence_record_is_embedded_once(
    db_url: str, fake_openai: FakeOpenAI, make_client: Callable[..., TestClient], db: Database
) -> None:
    client = make_client(openai_settings(db_url, fake_openai))
    body = {"payload": semantic("alice", "paris"), "sensitivity": "low"}
    r = client.post("/v1/records", json=body, headers=auth("admin"))
    assert r.status_code == 201, r.text
    rid = r.json()["id"]
    fake_openai.requests.clear()
    assert drain(client) == 1
    with db.transaction() as session:
        [(_, _, stored)] = vectors_of(session, db.tier, [rid])
    # Its only passage is its whole text: pooling a vector with itself changes nothing.
    assert fake_openai.requests == [{"model": "fake-bow", "input": ["alice lives_in paris"]}]
    assert np.allclose(stored, unit_vector(bag_of_words("alice lives_in paris")), atol=1e-6)


def test_max_passages_zero_embeds_the_whole_text_alone(
    db_url: str, fake_openai: FakeOpenAI, make_client: Callable[..., TestClient], db: Database
) -> None:
    client = make_client(openai_settings(db_url, fake_openai, max_passages=0))
    rid = capture(client, "Maria: I took a solo trip last year. I took this pic in Spain.")
    fake_openai.requests.clear()
    assert drain(client) == 1
    with db.transaction() as session:
        search_text = session.get(RecordRow, rid).search_text  # type: ignore[union-attr]
        [(_, _, stored)] = vectors_of(session, db.tier, [rid])
    assert fake_openai.requests == [{"model": "fake-bow", "input": [search_text]}]
    assert np.allclose(stored, unit_vector(bag_of_words(search_text)), atol=1e-6)


def test_pending_records_are_found_lexically_then_by_vector(
    db_url: str, fake_openai: FakeOpenAI, make_client: Callable[..., TestClient]
) -> None:
    client = make_client(openai_settings(db_url, fake_openai))
    target = capture(client, "orbital mechanics homework due friday")
    capture(client, "grocery list: apples and bread")
    body = {"query": "orbital mechanics", "expand_context": False}
    before = client.post("/v1/retrieve", json=body, headers=auth("reader")).json()
    assert before["items"][0]["record"]["id"] == target
    assert before["items"][0]["components"]["vector"] is None  # not embedded yet
    assert "vector" in before["signals"]
    drain(client)
    after = client.post("/v1/retrieve", json=body, headers=auth("reader")).json()
    assert after["items"][0]["record"]["id"] == target
    assert after["items"][0]["components"]["vector"] == 1.0
    # A record with no shared word is still a vector candidate, ranked below.
    assert len(after["items"]) == 2


def test_vector_search_respects_trust_and_filters(
    db_url: str, fake_openai: FakeOpenAI, make_client: Callable[..., TestClient]
) -> None:
    client = make_client(openai_settings(db_url, fake_openai))
    visible = capture(client, "launch codes are in the safe", scope="team-a")
    capture(client, "launch codes are in the safe", scope="team-b")
    capture(client, "launch codes are in the safe", sensitivity="high", scope="team-a")
    drain(client)
    body = {"query": "where are the launch codes", "expand_context": False}
    r = client.post("/v1/retrieve", json=body, headers=auth("team_a")).json()
    high_hidden = client.post(
        "/v1/retrieve", json=body, headers={**auth("team_a"), "X-Membrane-Max-Sensitivity": "low"}
    ).json()
    assert len(r["items"]) == 2  # team-b is out of scope
    assert [i["record"]["id"] for i in high_hidden["items"] if not i["record"]["redacted"]] == [
        visible
    ]


def test_worker_thread_drains_the_queue(
    db_url: str, fake_openai: FakeOpenAI, make_client: Callable[..., TestClient], db: Database
) -> None:
    settings = openai_settings(db_url, fake_openai, worker_enabled=True, worker_interval_s=0.01)
    client = make_client(settings)
    for i in range(5):
        capture(client, f"note number {i}")
    deadline = 600
    while pending(client) and deadline:
        threading.Event().wait(0.02)
        deadline -= 1
    assert pending(client) == 0
    with db.transaction() as session:
        assert session.scalar(select(func.count()).select_from(EmbeddingRow)) == 5


def test_records_without_text_are_skipped(
    db_url: str, fake_openai: FakeOpenAI, make_client: Callable[..., TestClient], db: Database
) -> None:
    client = make_client(openai_settings(db_url, fake_openai))
    r = client.post("/v1/records", json={"payload": {"kind": "episodic"}}, headers=auth("admin"))
    rid = r.json()["id"]
    assert drain(client) == 1
    with db.transaction() as session:
        assert session.get(RecordRow, rid).embedding_status == "skipped"  # type: ignore[union-attr]
    assert fake_openai.requests == []
    assert pending(client) == 0


# -- pinning and backfill -----------------------------------------------------------------


def test_model_is_pinned_and_a_different_one_refused(
    db_url: str, fake_openai: FakeOpenAI, make_client: Callable[..., TestClient], db: Database
) -> None:
    make_client(openai_settings(db_url, fake_openai))
    with db.transaction() as session:
        meta = dict(session.execute(select(SystemMetaRow.key, SystemMetaRow.value)).all())
    assert meta["embedding.model"] == "fake-bow" and meta["embedding.dimension"] == str(DIM)
    with pytest.raises(EmbeddingModelMismatch, match=r"'fake-bow'.*'other-model'.*--repin"):
        make_client(openai_settings(db_url, fake_openai, model="other-model"))
    # The same model starts again; provider none never checks.
    make_client(openai_settings(db_url, fake_openai))
    make_client(make_settings(db_url))


def test_pgvector_column_dimension_is_checked(db: Database, store: str) -> None:
    if store == "postgres":  # the migration made vector(384)
        with pytest.raises(EmbeddingModelMismatch, match=r"vector\(384\)"):
            check_or_pin(db, "bigger-model", 768)
    else:  # SQLite stores bytes: any dimension can be pinned
        check_or_pin(db, "bigger-model", 768)
        with pytest.raises(EmbeddingModelMismatch):
            check_or_pin(db, "bigger-model", 384)


def test_backfill_requeues_and_repin_switches_models(
    db_url: str, fake_openai: FakeOpenAI, make_client: Callable[..., TestClient], db: Database
) -> None:
    # Captured while the provider was none: the records wait, readiness says 0 pending.
    plain = make_client(make_settings(db_url))
    first = capture(plain, "captured before embeddings were enabled")
    assert pending(plain) == 0
    client = make_client(openai_settings(db_url, fake_openai))
    assert pending(client) == 1
    drain(client)
    # A record marked done whose vector is gone (e.g. restored from a dump) is re-queued.
    with db.transaction() as session:
        session.query(EmbeddingRow).delete()
    r = client.post("/v1/embeddings/backfill", headers=auth("admin"))
    assert r.status_code == 200, r.text
    assert r.json() == {"model": "fake-bow", "queued": 1}
    assert client.post("/v1/embeddings/backfill", headers=auth("writer")).status_code == 403
    drain(client)
    assert requeue_unembedded(db) == 0
    # Switching models: repin drops the vectors and queues everything.
    assert repin(db, "fake-bow-2", DIM) == 1
    switched = make_client(openai_settings(db_url, fake_openai, model="fake-bow-2"))
    assert pending(switched) == 1
    drain(switched)
    with db.transaction() as session:
        assert session.get(EmbeddingRow, first).model == "fake-bow-2"  # type: ignore[union-attr]


def test_backfill_route_needs_a_provider(client: TestClient) -> None:
    r = client.post("/v1/embeddings/backfill", headers=auth("admin"))
    assert r.status_code == 409


def test_changed_and_deleted_records_drop_out_of_vector_search(
    db_url: str, fake_openai: FakeOpenAI, make_client: Callable[..., TestClient], db: Database
) -> None:
    client = make_client(openai_settings(db_url, fake_openai))
    keep = capture(client, "violin lesson on tuesday")
    retracted = capture(client, "violin lesson on tuesday")
    deleted = capture(client, "violin lesson on tuesday")
    drain(client)
    body = {"query": "violin", "expand_context": False}
    assert len(client.post("/v1/retrieve", json=body, headers=auth("reader")).json()["items"]) == 3
    with db.transaction() as session:
        record_repo.set_status(session, [retracted], "retracted", 1.0)
        record_repo.remove_record(session, deleted)
    items = client.post("/v1/retrieve", json=body, headers=auth("reader")).json()["items"]
    assert [i["record"]["id"] for i in items] == [keep]
    later = capture(client, "violin recital next month")
    drain(client)
    items = client.post("/v1/retrieve", json=body, headers=auth("reader")).json()["items"]
    assert {i["record"]["id"] for i in items} == {keep, later}
