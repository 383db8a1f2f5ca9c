"""Semantic validity honoured by retrieve: windows (start inclusive, end exclusive) and
conditions (a contradicting request context leaves a conditional fact out)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import auth
from tests.test_retrieve import create, ids, retrieve


def fact(obj: str, **validity: Any) -> dict[str, Any]:
    return {
        "kind": "semantic",
        "subject": "billing api",
        "predicate": "rate limit",
        "object": obj,
        "validity": validity,
    }


def test_a_fact_outside_its_window_is_not_retrieved(client: TestClient) -> None:
    always = create(client, fact("billing api allows 100 rps"))
    ended = create(
        client, fact("billing api allows 10 rps", start="2024-01-01T00:00:00Z", end="2025-01-01")
    )
    current = create(
        client, fact("billing api allows 50 rps", mode="timeboxed", start="2025-01-01T00:00:00Z")
    )
    future = create(client, fact("billing api allows 500 rps", start="2999-01-01T00:00:00Z"))
    now = retrieve(client, query="billing api rps")
    assert set(ids(now)) == {always["id"], current["id"]}
    then = retrieve(client, query="billing api rps", valid_at="2024-06-01T00:00:00Z")
    assert set(ids(then)) == {always["id"], ended["id"]}
    # the end is exclusive, the start inclusive
    boundary = retrieve(client, query="billing api rps", valid_at="2025-01-01T00:00:00+00:00")
    assert set(ids(boundary)) == {always["id"], current["id"]}
    # without a query too
    assert future["id"] not in ids(retrieve(client, types=["semantic"]))
    assert set(ids(retrieve(client, types=["semantic"]))) == {always["id"], current["id"]}
    # the record itself is not gone: it stays readable by id
    r = client.get(f"/v1/records/{ended['id']}", headers=auth("reader"))
    assert r.status_code == 200 and r.json()["payload"]["object"] == "billing api allows 10 rps"


def test_conditional_truths_coexist_and_the_context_picks(client: TestClient) -> None:
    prod = create(
        client, fact("billing api allows 100 rps", mode="conditional", conditions={"env": "prod"})
    )
    staging = create(
        client,
        fact("billing api allows 5 rps", mode="conditional", conditions={"env": "staging"}),
    )
    both = retrieve(client, query="billing api rps")
    assert set(ids(both)) == {prod["id"], staging["id"]}  # no context: both truths stand
    picked = retrieve(client, query="billing api rps", context={"env": "staging"})
    assert ids(picked) == [staging["id"]]
    unrelated = retrieve(client, query="billing api rps", context={"region": "eu"})
    assert set(ids(unrelated)) == {prod["id"], staging["id"]}  # not mentioned ≠ contradicted


def test_graph_retrieve_honours_validity(client: TestClient) -> None:
    create(client, fact("billing api allows 10 rps", end="2020-01-01T00:00:00Z"))
    kept = create(client, fact("billing api allows 100 rps"))
    r = client.post(
        "/v1/retrieve/graph",
        json={"query": "billing api rps", "max_hops": 0},
        headers=auth("reader"),
    )
    assert r.status_code == 200, r.text
    assert [n["record"]["id"] for n in r.json()["roots"]] == [kept["id"]]


def test_a_bad_valid_at_is_a_422(client: TestClient) -> None:
    r = client.post(
        "/v1/retrieve",
        json={"query": "x", "valid_at": "not a time"},
        headers=auth("reader"),
    )
    assert r.status_code == 422
    assert r.headers["content-type"].startswith("application/problem+json")


def test_without_a_query_facts_out_of_their_window_leave_the_answer_full(
    client: TestClient,
) -> None:
    """The salience order reads `limit` rows first; facts among them left out for validity
    make it read further, so the answer still has `limit` records, all holding."""
    ended = [
        create(client, fact(f"billing api allowed {n} rps", end="2025-01-01"), salience=0.9)["id"]
        for n in range(3)
    ]
    current = [
        create(client, fact(f"billing api allows {n} rps"), salience=0.5)["id"] for n in range(6)
    ]
    answer = ids(retrieve(client, types=["semantic"], limit=5))
    assert len(answer) == 5 and set(answer) <= set(current)
    assert not set(ended) & set(ids(retrieve(client, types=["semantic"], limit=20)))
