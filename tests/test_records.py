"""POST /v1/records for every type, listing filters and cursor pagination, audit, relations."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import auth

W = auth("writer")

PAYLOADS: dict[str, dict[str, Any]] = {
    "episodic": {"kind": "episodic", "summary": "ran the job", "outcome": "success"},
    "working": {"kind": "working", "thread_id": "t1", "state": {"a": 1}},
    "entity": {"kind": "entity", "canonical_name": "Acme Corp", "aliases": ["Acme"]},
    "semantic": {
        "kind": "semantic",
        "subject": "Acme",
        "predicate": "hq_in",
        "object": "Berlin",
        "evidence": [{"ref": "doc-1"}],
    },
    "competence": {
        "kind": "competence",
        "skill_name": "deploy",
        "triggers": [{"signal": "release requested"}],
        "recipe": [{"step": 1, "action": "build", "tool": "make"}],
        "performance": {"success_count": 3, "failure_count": 1, "success_rate": 0.75},
    },
    "plan_graph": {
        "kind": "plan_graph",
        "plan_id": "p1",
        "intent": "release",
        "nodes": [{"id": "a", "op": "build"}, {"id": "b", "op": "ship"}],
        "edges": [{"from": "a", "to": "b"}],
    },
}


def create(client: TestClient, payload: dict[str, Any], **extra: Any) -> dict[str, Any]:
    r = client.post("/v1/records", json={"payload": payload, **extra}, headers=W)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


@pytest.mark.parametrize("kind", sorted(PAYLOADS))
def test_create_each_type_and_read_back(client: TestClient, kind: str) -> None:
    rec = create(client, PAYLOADS[kind], tags=["t"], confidence=0.6)
    assert rec["type"] == kind and rec["confidence"] == 0.6
    got = client.get(f"/v1/records/{rec['id']}", headers=W)
    assert got.status_code == 200
    body = got.json()
    assert body["payload"] == rec["payload"]
    assert body["audit_log"][0]["action"] == "create"
    assert body["audit_log"][0]["actor"] == "writer"


def test_plan_edge_uses_from_alias(client: TestClient) -> None:
    rec = create(client, PAYLOADS["plan_graph"])
    # the original's edge kinds: an edge without a kind is a control dependency
    assert rec["payload"]["edges"] == [{"from": "a", "to": "b", "kind": "control"}]


def test_type_mismatch_and_bad_payload_are_422(client: TestClient) -> None:
    r = client.post(
        "/v1/records", json={"type": "entity", "payload": PAYLOADS["working"]}, headers=W
    )
    assert r.status_code == 422
    r = client.post("/v1/records", json={"payload": {"kind": "nope"}}, headers=W)
    assert r.status_code == 422
    r = client.post(
        "/v1/records",
        json={"payload": PAYLOADS["entity"], "lifecycle": {"decay": {"half_life_seconds": 0}}},
        headers=W,
    )
    assert r.status_code == 422
    assert client.get("/v1/records", headers=W).json()["items"] == []


def test_lifecycle_and_relations_on_create(client: TestClient) -> None:
    target = create(client, PAYLOADS["entity"])
    rec = create(
        client,
        PAYLOADS["semantic"],
        lifecycle={
            "decay": {"curve": "linear", "half_life_seconds": 50, "min_salience": 0.2},
            "pinned": True,
            "deletion_policy": "never",
        },
        relations=[{"predicate": "subject_entity", "target_id": target["id"]}],
    )
    assert rec["lifecycle"]["decay"]["curve"] == "linear"
    assert rec["lifecycle"]["pinned"] is True
    assert rec["lifecycle"]["deletion_policy"] == "never"
    assert [(e["predicate"], e["target_id"]) for e in rec["relations"]] == [
        ("subject_entity", target["id"])
    ]
    rels = client.get(f"/v1/records/{rec['id']}/relations", headers=W).json()
    assert [(e["predicate"], e["target_id"]) for e in rels["outgoing"]] == [
        ("subject_entity", target["id"])
    ]
    assert [(e["predicate"], e["source_id"]) for e in rels["incoming"]] == [
        ("fact_subject_of", target["id"])
    ]


def test_relation_to_missing_record_is_422_and_nothing_written(client: TestClient) -> None:
    r = client.post(
        "/v1/records",
        json={
            "payload": PAYLOADS["entity"],
            "relations": [{"predicate": "part_of", "target_id": "missing"}],
        },
        headers=W,
    )
    assert r.status_code == 422
    assert "relations[0].target_id" in r.json()["detail"]
    assert client.get("/v1/records", headers=W).json()["items"] == []


def test_list_filters(client: TestClient) -> None:
    a = create(client, PAYLOADS["entity"], tags=["x", "y"], scope="s1", sensitivity="public")
    b = create(client, PAYLOADS["working"], tags=["x"], scope="s2", sensitivity="medium")
    c = create(client, PAYLOADS["episodic"], tags=["y"], salience=0.2)

    def ids(**params: Any) -> set[str]:
        r = client.get("/v1/records", params=params, headers=W)
        assert r.status_code == 200, r.text
        return {i["id"] for i in r.json()["items"]}

    assert ids(type="entity") == {a["id"]}
    assert ids(type=["entity", "working"]) == {a["id"], b["id"]}
    assert ids(scope="s2") == {b["id"]}
    assert ids(tag=["x", "y"]) == {a["id"]}
    assert ids(tag="x") == {a["id"], b["id"]}
    assert ids(sensitivity="medium") == {b["id"]}
    assert ids(min_salience=0.5) == {a["id"], b["id"]}
    assert ids(status="active") == {a["id"], b["id"], c["id"]}
    assert ids(status="retracted") == set()
    assert ids(created_after=c["created_at"]) == {c["id"]}
    assert ids(created_before=b["created_at"]) == {a["id"]}


def test_cursor_pagination_is_stable_and_complete(client: TestClient) -> None:
    made = [create(client, PAYLOADS["episodic"])["id"] for _ in range(7)]
    seen: list[str] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 3}
        if cursor:
            params["cursor"] = cursor
        page = client.get("/v1/records", params=params, headers=W).json()
        seen += [i["id"] for i in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == list(reversed(made))  # newest first, no duplicates, nothing missing


def test_bad_cursor_and_bad_limit(client: TestClient) -> None:
    r = client.get("/v1/records", params={"cursor": "%%%"}, headers=W)
    assert r.status_code == 400
    assert r.headers["content-type"].startswith("application/problem+json")
    assert client.get("/v1/records", params={"limit": 0}, headers=W).status_code == 422
    assert client.get("/v1/records", params={"type": "nope"}, headers=W).status_code == 422


def test_unknown_record_is_404_problem(client: TestClient) -> None:
    for path in ("/v1/records/nope", "/v1/records/nope/audit", "/v1/records/nope/relations"):
        r = client.get(path, headers=W)
        assert r.status_code == 404
        assert r.json()["status"] == 404 and r.json()["type"].endswith("/not-found")
