"""Idempotency-Key on capture, batch capture, ingest, record creation and revisions (both
stores)."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db import Database
from app.models import IdempotencyRow, RecordRow
from tests.conftest import auth, make_settings
from tests.live_support import live_server

A, W = auth("admin"), auth("writer")
EVENT = {"source_kind": "event", "source": "agent", "content": {"text": "deployed v2"}}


def _records(db: Database) -> int:
    with db.transaction() as s:
        return int(s.scalar(select(func.count()).select_from(RecordRow)) or 0)


def _with_key(key: str, headers: dict[str, str] = W) -> dict[str, str]:
    return {**headers, "Idempotency-Key": key}


def _supersede_body(client: TestClient) -> tuple[str, dict[str, Any]]:
    fact = {"kind": "semantic", "subject": "s", "predicate": "p", "object": "o"}
    created = client.post("/v1/records", json={"payload": fact}, headers=W).json()
    new = {**fact, "object": "o2", "evidence": [{"kind": "doc", "ref": "r"}]}
    body = {"new_record": {"payload": new}, "rationale": "newer"}
    return f"/v1/records/{created['id']}/supersede", body


WRITES: dict[str, Callable[[TestClient], tuple[str, dict[str, Any]]]] = {
    "capture": lambda c: ("/v1/capture", EVENT),
    "batch": lambda c: ("/v1/capture/batch", {"items": [EVENT, EVENT]}),
    "ingest": lambda c: ("/v1/ingest/events", {"source": "agent", "summary": "deployed"}),
    "create": lambda c: ("/v1/records", {"payload": {"kind": "entity", "canonical_name": "Acme"}}),
    "supersede": _supersede_body,
}


@pytest.mark.parametrize("write", sorted(WRITES))
def test_a_retry_with_the_same_key_replays_the_first_answer(
    client: TestClient, db: Database, write: str
) -> None:
    path, body = WRITES[write](client)
    first = client.post(path, json=body, headers=_with_key(f"k-{write}"))
    assert first.status_code in (200, 201), first.text
    stored = _records(db)
    again = client.post(path, json=body, headers=_with_key(f"k-{write}"))
    assert again.status_code == first.status_code
    assert again.json() == first.json()
    assert again.headers["idempotent-replayed"] == "true"
    assert "idempotent-replayed" not in first.headers
    assert _records(db) == stored
    # without a key, the same request is a new write
    assert client.post(path, json=body, headers=W).status_code in (200, 201, 409)
    assert _records(db) > stored or write == "supersede"


def test_the_same_key_for_another_request_is_422(client: TestClient, db: Database) -> None:
    assert client.post("/v1/capture", json=EVENT, headers=_with_key("k1")).status_code == 201
    stored = _records(db)
    other = {**EVENT, "content": {"text": "something else"}}
    r = client.post("/v1/capture", json=other, headers=_with_key("k1"))
    assert r.status_code == 422 and "different request" in r.json()["detail"]
    r = client.post("/v1/ingest/events", json={"source": "a"}, headers=_with_key("k1"))
    assert r.status_code == 422
    assert _records(db) == stored
    # key order and spacing do not make a request different
    reordered = '{"content": {"text": "deployed v2"}, "source": "agent", "source_kind": "event"}'
    r = client.post(
        "/v1/capture",
        content=reordered,
        headers={**_with_key("k1"), "content-type": "application/json"},
    )
    assert r.status_code == 201 and r.headers["idempotent-replayed"] == "true"


def test_keys_belong_to_their_principal(client: TestClient, db: Database) -> None:
    a = client.post("/v1/capture", json=EVENT, headers=_with_key("shared", W))
    b = client.post("/v1/capture", json=EVENT, headers=_with_key("shared", A))
    assert a.status_code == b.status_code == 201
    assert a.json()["primary_record"]["id"] != b.json()["primary_record"]["id"]
    assert _records(db) == 2


def test_a_refused_write_leaves_its_key_free(client: TestClient, db: Database) -> None:
    secret = {**EVENT, "sensitivity": "hyper"}  # above the writer's ceiling
    assert client.post("/v1/capture", json=secret, headers=_with_key("k2")).status_code == 403
    r = client.post("/v1/capture", json=secret, headers=_with_key("k2"))
    assert r.status_code == 403 and "idempotent-replayed" not in r.headers
    assert client.post("/v1/capture", json=EVENT, headers=_with_key("k2")).status_code == 201
    with db.transaction() as s:
        assert s.scalar(select(func.count()).select_from(IdempotencyRow)) == 1


@pytest.mark.parametrize("key", ["", "has space", "x" * 256, "tab\tinside"])
def test_malformed_keys_are_422(client: TestClient, db: Database, key: str) -> None:
    headers = {**W, "Idempotency-Key": key}
    r = client.post("/v1/capture", json=EVENT, headers=headers)
    assert r.status_code == 422
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["errors"][0]["loc"] == ["header", "Idempotency-Key"]
    assert _records(db) == 0


def test_the_caller_is_checked_before_the_key(client: TestClient, db: Database) -> None:
    """A malformed key is 422 only for a caller who may write: 401 without a key, 403
    for a reader; nothing written, no key kept."""
    bad = {"Idempotency-Key": "has space"}
    assert client.post("/v1/capture", json=EVENT, headers=bad).status_code == 401
    reader = client.post("/v1/capture", json=EVENT, headers={**auth("reader"), **bad})
    assert reader.status_code == 403, reader.text
    assert _records(db) == 0
    with db.transaction() as s:
        assert s.scalar(select(func.count()).select_from(IdempotencyRow)) == 0


def test_concurrent_duplicates_resolve_to_one_write(db_url: str, db: Database) -> None:
    def send(_: int) -> httpx.Response:
        with httpx.Client(timeout=60) as http:
            return http.post(f"{url}/v1/capture", json=EVENT, headers=_with_key("same"))

    with live_server(make_settings(db_url)) as url, ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(send, range(16)))
    assert [a.status_code for a in answers] == [201] * 16
    assert len({a.json()["primary_record"]["id"] for a in answers}) == 1
    assert sum(a.headers.get("idempotent-replayed") == "true" for a in answers) == 15
    assert _records(db) == 1


def test_keys_expire_after_the_retention_window(
    db_url: str, db: Database, make_client: Callable[..., TestClient]
) -> None:
    client = make_client(make_settings(db_url, idempotency={"retention_s": 0.5}))
    first = client.post("/v1/capture", json=EVENT, headers=_with_key("k3"))
    time.sleep(0.6)
    second = client.post("/v1/capture", json=EVENT, headers=_with_key("k3"))
    assert second.status_code == 201 and "idempotent-replayed" not in second.headers
    assert second.json()["primary_record"]["id"] != first.json()["primary_record"]["id"]
    time.sleep(0.6)
    run = client.post("/v1/jobs/decay/run", headers=A)
    assert run.status_code == 200, run.text
    assert run.json()["counts"]["idempotency_keys_expired"] == 1
    with db.transaction() as s:
        assert s.scalar(select(func.count()).select_from(IdempotencyRow)) == 0
