"""Records read with their edges (and, by GET, their audit trail) in the statement that
loads them (`relations.clauses.edges_column`, `audit.repository.trail_column`): exactly
the record's own outgoing edges as its relations listing gives them (weights and times to
the last digit), none whose other end the caller may not read; a retrieved record shows
the first MAX_RELATIONS_PER_ITEM by age, on every retrieve path; GET shows every edge and
the same trail as the audit listing."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.retrieve.service import MAX_RELATIONS_PER_ITEM
from tests.conftest import auth

FACT = {"kind": "semantic", "subject": "falcon", "predicate": "launches_from", "object": "pad 9"}


def create(client: TestClient, sensitivity: str, **extra: Any) -> dict[str, Any]:
    body = {"payload": FACT, "sensitivity": sensitivity, **extra}
    r = client.post("/v1/records", json=body, headers=auth("admin"))
    assert r.status_code == 201, r.text
    record: dict[str, Any] = r.json()
    return record


def retrieved_edges(client: TestClient, who: str, record_id: str, **body: Any) -> list[Any]:
    r = client.post("/v1/retrieve", json={"limit": 50, **body}, headers=auth(who))
    assert r.status_code == 200, r.text
    items = {item["record"]["id"]: item for item in r.json()["items"]}
    edges: list[Any] = items[record_id]["record"]["relations"]
    return edges


def listed_edges(client: TestClient, who: str, record_id: str) -> list[Any]:
    r = client.get(f"/v1/records/{record_id}/relations", headers=auth(who))
    assert r.status_code == 200, r.text
    edges: list[Any] = r.json()["outgoing"]
    return edges


@pytest.mark.parametrize("query", [None, "falcon launches"], ids=["salience", "query"])
def test_retrieved_edges_are_the_records_own_as_the_caller_sees_them(
    client: TestClient, query: str | None
) -> None:
    low, high = create(client, "low"), create(client, "high")
    odd_weight = 0.12345678901234567
    source = create(
        client,
        "low",
        relations=[
            {"predicate": "supports", "target_id": low["id"], "weight": odd_weight},
            {"predicate": "supports", "target_id": high["id"], "weight": 0.5},
        ],
    )
    body = {"query": query} if query else {}
    # The reader (ceiling low) must not learn the id of the high record through an edge.
    reader = retrieved_edges(client, "reader", source["id"], **body)
    assert [(e["target_id"], e["weight"]) for e in reader] == [(low["id"], odd_weight)]
    assert reader == listed_edges(client, "reader", source["id"])
    writer = retrieved_edges(client, "writer", source["id"], **body)
    assert [e["target_id"] for e in writer] == [low["id"], high["id"]]
    assert writer == listed_edges(client, "writer", source["id"])
    assert writer == source["relations"]  # as the create answered: times to the microsecond


def test_a_retrieved_record_shows_its_first_edges_only(client: TestClient) -> None:
    targets = [create(client, "low")["id"] for _ in range(MAX_RELATIONS_PER_ITEM + 3)]
    source = create(
        client, "low", relations=[{"predicate": "supports", "target_id": t} for t in targets]
    )
    for body in ({}, {"query": "falcon"}):
        edges = retrieved_edges(client, "writer", source["id"], **body)
        assert [e["target_id"] for e in edges] == targets[:MAX_RELATIONS_PER_ITEM]
    assert len(listed_edges(client, "writer", source["id"])) == len(targets)


def test_a_record_read_shows_its_edges_and_trail_as_their_own_listings(
    client: TestClient,
) -> None:
    low, high = create(client, "low"), create(client, "high")
    source = create(
        client,
        "low",
        relations=[
            {"predicate": "supports", "target_id": low["id"], "weight": 0.3333333333333333},
            {"predicate": "supports", "target_id": high["id"]},
        ],
    )
    url = f"/v1/records/{source['id']}"
    r = client.post(
        f"{url}/penalize", json={"amount": 0.1, "rationale": "misled"}, headers=auth("writer")
    )
    assert r.status_code == 200, r.text
    for who, targets in (("reader", [low["id"]]), ("writer", [low["id"], high["id"]])):
        record = client.get(url, headers=auth(who)).json()
        assert [e["target_id"] for e in record["relations"]] == targets
        assert record["relations"] == listed_edges(client, who, source["id"])
        trail = client.get(f"{url}/audit", headers=auth(who)).json()["items"]
        assert [e["action"] for e in trail] == ["create", "penalize"]
        assert trail[1]["rationale"] == "misled" and trail[1]["details"]
        assert record["audit_log"] == trail
