"""The edges shown with retrieved records, read in the statement that loads the records
(`relations.repository.edges_column`): exactly the record's own outgoing edges as its
relations listing gives them (weights and times to the last digit), none whose other end
the caller may not read, the first MAX_RELATIONS_PER_ITEM by age, on every retrieve path.
"""

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
