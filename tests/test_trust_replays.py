"""A stored answer is replayed only to the key and trust that earned it (issue 36,
finding 3), on both stores."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.side_door_support import side_auth, side_client

HYPER = {"source_kind": "event", "source": "agent", "summary": "launch codes are 0000"}


@pytest.fixture
def client(db_url: str, make_client: Callable[..., TestClient]) -> TestClient:
    return side_client(db_url, make_client)


def _post(client: TestClient, who: str, body: dict[str, Any], key: str, **headers: str) -> Any:
    return client.post(
        "/v1/capture", json=body, headers={**side_auth(who), "Idempotency-Key": key, **headers}
    )


def _records(client: TestClient) -> int:
    page = client.get("/v1/records", params={"limit": 100}, headers=side_auth("twin_hyper"))
    return len(page.json()["items"])


def test_another_key_of_the_same_actor_never_replays_a_hyper_answer(client: TestClient) -> None:
    first = _post(client, "twin_hyper", {**HYPER, "sensitivity": "hyper"}, "k-1")
    assert first.status_code == 201, first.text
    secret_id = first.json()["primary_record"]["id"]
    stored = _records(client)
    # The low key of the same actor sends the same request under the same key: it is
    # checked as a new write (and refused: hyper is above its ceiling), never replayed.
    again = _post(client, "twin_low", {**HYPER, "sensitivity": "hyper"}, "k-1")
    assert again.status_code == 403, again.text
    assert "idempotent-replayed" not in again.headers
    assert secret_id not in again.text and "launch codes" not in again.text
    assert _records(client) == stored
    # The key that wrote it still gets its answer back.
    replay = _post(client, "twin_hyper", {**HYPER, "sensitivity": "hyper"}, "k-1")
    assert replay.headers["idempotent-replayed"] == "true"
    assert replay.json() == first.json()


def test_narrowing_headers_are_not_bypassed_by_a_replay(client: TestClient) -> None:
    first = _post(client, "twin_hyper", {**HYPER, "sensitivity": "high"}, "k-2")
    assert first.status_code == 201, first.text
    narrowed = _post(
        client,
        "twin_hyper",
        {**HYPER, "sensitivity": "high"},
        "k-2",
        **{"X-Membrane-Max-Sensitivity": "low"},
    )
    assert narrowed.status_code == 403, narrowed.text
    assert "idempotent-replayed" not in narrowed.headers
    assert first.json()["primary_record"]["id"] not in narrowed.text


def test_a_low_key_of_the_same_actor_writes_its_own_record_under_a_used_key(
    client: TestClient,
) -> None:
    low_body = {**HYPER, "summary": "lunch at noon"}
    first = _post(client, "twin_hyper", low_body, "k-3")
    second = _post(client, "twin_low", low_body, "k-3")
    assert (first.status_code, second.status_code) == (201, 201)
    assert "idempotent-replayed" not in second.headers
    assert first.json()["primary_record"]["id"] != second.json()["primary_record"]["id"]
