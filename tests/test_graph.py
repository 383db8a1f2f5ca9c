"""POST /v1/retrieve/graph: ranked roots, bounded neighbourhood, trust per node."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import auth


def create(
    client: TestClient,
    summary: str,
    *,
    sensitivity: str = "low",
    links: tuple[str, ...] = (),
    **extra: Any,
) -> str:
    body = {
        "payload": {"kind": "episodic", "summary": summary},
        "sensitivity": sensitivity,
        "relations": [{"predicate": "part_of", "target_id": t} for t in links],
        **extra,
    }
    r = client.post("/v1/records", json=body, headers=auth("admin"))
    assert r.status_code == 201, r.text
    rid: str = r.json()["id"]
    return rid


def graph(client: TestClient, who: str = "reader", **body: Any) -> dict[str, Any]:
    body.setdefault("expand_context", False)  # roots by their own relevance only
    r = client.post("/v1/retrieve/graph", json=body, headers=auth(who))
    assert r.status_code == 200, r.text
    result: dict[str, Any] = r.json()
    return result


def node_ids(result: dict[str, Any]) -> dict[str, int]:
    return {n["record"]["id"]: n["depth"] for n in result["nodes"]}


def edge_set(result: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(e["source_id"], e["predicate"], e["target_id"]) for e in result["edges"]}


def test_roots_and_one_hop_in_both_directions(client: TestClient) -> None:
    hub = create(client, "incident review meeting")
    child = create(client, "database failover step", links=(hub,))
    other = create(client, "unrelated lunch order")
    result = graph(client, query="incident review")
    assert [r["record"]["id"] for r in result["roots"]] == [hub]
    assert node_ids(result) == {hub: 0, child: 1}
    # One edge per inverse pair; either direction may carry it.
    assert edge_set(result) & {(child, "part_of", hub), (hub, "has_part", child)}
    assert len(result["edges"]) == 1
    assert other not in node_ids(result)
    # From the child's side the hub is reached through the inverse edge.
    from_child = graph(client, query="failover step")
    assert node_ids(from_child) == {child: 0, hub: 1}


def test_hops_bound_the_walk(client: TestClient) -> None:
    a = create(client, "alpha root record")
    b = create(client, "beta middle", links=(a,))
    c = create(client, "gamma leaf", links=(b,))
    assert node_ids(graph(client, query="alpha root", max_hops=0)) == {a: 0}
    assert node_ids(graph(client, query="alpha root")) == {a: 0, b: 1}
    assert node_ids(graph(client, query="alpha root", max_hops=2)) == {a: 0, b: 1, c: 2}


def test_no_traversal_through_a_redacted_node(client: TestClient) -> None:
    a = create(client, "alpha root record")
    b = create(client, "beta secret middle", sensitivity="medium", links=(a,))
    c = create(client, "gamma leaf", links=(b,))
    result = graph(client, "reader", query="alpha root", max_hops=3)
    nodes = {n["record"]["id"]: n for n in result["nodes"]}
    assert set(nodes) == {a, b}  # c is only reachable through b
    assert nodes[b]["record"]["redacted"] is True
    assert "payload" not in nodes[b]["record"]
    assert nodes[b]["expanded"] is False and nodes[a]["expanded"] is True
    assert c not in nodes
    # A principal who may read b walks through it.
    assert set(node_ids(graph(client, "writer", query="alpha root", max_hops=3))) == {a, b, c}


def test_invisible_nodes_and_their_edges_are_left_out(client: TestClient) -> None:
    a = create(client, "alpha root record")
    hidden = create(client, "top secret", sensitivity="high", links=(a,))
    result = graph(client, "reader", query="alpha root")
    assert set(node_ids(result)) == {a}
    assert result["edges"] == []
    assert hidden not in str(result)


def test_redacted_roots_are_not_expanded(client: TestClient) -> None:
    root = create(client, "omega classified plan", sensitivity="medium")
    create(client, "omega attachment", links=(root,))
    result = graph(client, "reader", query="omega classified", limit=1)
    assert [r["record"]["redacted"] for r in result["roots"]] == [True]
    assert result["roots"][0]["score"] is None
    assert node_ids(result) == {root: 0}


def test_scopes_are_checked_per_node(client: TestClient) -> None:
    a = create(client, "alpha team record", scope="team-a")
    b = create(client, "beta other team", scope="team-b", links=(a,))
    result = graph(client, "team_a", query="alpha team")
    assert set(node_ids(result)) == {a}
    assert set(node_ids(graph(client, "writer", query="alpha team"))) == {a, b}


def test_node_and_edge_limits(client: TestClient) -> None:
    hub = create(client, "hub record")
    spokes = [create(client, f"spoke {i}", links=(hub,)) for i in range(5)]
    capped = graph(client, query="hub record", limit=1, node_limit=3)
    assert len(capped["nodes"]) == 3 and capped["truncated"] is True
    few_edges = graph(client, query="hub record", limit=1, edge_limit=2)
    assert len(few_edges["edges"]) == 2 and few_edges["truncated"] is True
    full = graph(client, query="hub record", limit=1)
    assert set(node_ids(full)) == {hub, *spokes} and full["truncated"] is False
    assert len(full["edges"]) == 5


def test_predicates_restrict_the_walk(client: TestClient) -> None:
    hub = create(client, "hub record")
    create(client, "spoke", links=(hub,))
    assert set(node_ids(graph(client, query="hub record", predicates=["supersedes"]))) == {hub}


def test_entity_names_in_the_query_make_roots(client: TestClient) -> None:
    r = client.post(
        "/v1/capture",
        json={
            "source": "agent",
            "source_kind": "event",
            "summary": "kickoff call went well",
            "content": {"entities": ["Initech"]},
        },
        headers=auth("writer"),
    )
    episode = r.json()["primary_record"]["id"]
    entity = r.json()["created_records"][0]["id"]
    result = graph(client, query="everything about Initech", limit=1)
    assert [root["record"]["id"] for root in result["roots"]] == [entity]
    assert result["roots"][0]["components"]["entity"] == 1.0
    assert node_ids(result) == {entity: 0, episode: 1}
    assert len(result["edges"]) == 1


def test_without_query_roots_come_by_salience(client: TestClient) -> None:
    pinned: dict[str, Any] = {"pinned": True}
    strong = create(client, "strong", salience=0.9, lifecycle=pinned)
    create(client, "weak", salience=0.1, lifecycle=pinned)
    result = graph(client, limit=1)
    assert [r["record"]["id"] for r in result["roots"]] == [strong]
