"""POST /v1/capture and the typed ingestion endpoints."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import auth

W = auth("writer")


def capture(client: TestClient, **body: Any) -> dict[str, Any]:
    body.setdefault("source", "agent-1")
    r = client.post("/v1/capture", json=body, headers=W)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def test_event_becomes_episodic_with_policy_defaults(client: TestClient) -> None:
    out = capture(client, source_kind="event", content={"text": "deployed v2"}, tags=["ops"])
    rec = out["primary_record"]
    assert rec["type"] == "episodic"
    assert rec["payload"]["kind"] == "episodic"
    assert rec["payload"]["summary"] == "deployed v2"
    assert rec["confidence"] == 0.8
    assert rec["sensitivity"] == "low"
    assert rec["status"] == "active"
    assert rec["tags"] == ["ops"]
    assert rec["lifecycle"]["decay"]["half_life_seconds"] == 3600
    assert rec["lifecycle"]["deletion_policy"] == "auto_prune"
    assert 0.99 < rec["salience"] <= 1.0
    assert out["created_records"] == [] and out["edges"] == []


def test_observation_with_fact_creates_entities_semantic_and_paired_edges(
    client: TestClient,
) -> None:
    out = capture(
        client,
        source_kind="observation",
        content={"subject": "Alice", "predicate": "works_at", "object": "Acme"},
        scope="team-a",
    )
    primary = out["primary_record"]
    assert primary["type"] == "episodic" and primary["confidence"] == 0.7
    created = {r["type"]: r for r in out["created_records"]}
    assert set(created) == {"entity", "semantic"}
    entity, fact = created["entity"], created["semantic"]
    assert entity["payload"]["canonical_name"] == "Alice"
    assert fact["payload"]["subject"] == "Alice"
    assert fact["payload"]["object"] == "Acme"
    assert fact["payload"]["evidence"] == [{"kind": "record", "ref": primary["id"], "note": ""}]
    edges = {(e["source_id"], e["predicate"], e["target_id"]) for e in out["edges"]}
    assert (primary["id"], "mentions_entity", entity["id"]) in edges
    assert (entity["id"], "mentioned_in", primary["id"]) in edges
    assert (fact["id"], "subject_entity", entity["id"]) in edges
    assert (entity["id"], "fact_subject_of", fact["id"]) in edges
    assert (fact["id"], "derived_from", primary["id"]) in edges
    assert (primary["id"], "derives", fact["id"]) in edges
    # every created record has a create audit entry with the actor
    for rec in [primary, entity, fact]:
        audit = client.get(f"/v1/records/{rec['id']}/audit", headers=W).json()["items"]
        assert [(a["action"], a["actor"]) for a in audit] == [("create", "writer")]


def test_a_speaker_or_author_is_an_entity_the_record_mentions(client: TestClient) -> None:
    first = capture(client, source_kind="event", content={"speaker": "Maria", "text": "hi"})
    entity = first["created_records"][0]
    assert (entity["type"], entity["payload"]["canonical_name"]) == ("entity", "Maria")
    edges = {(e["source_id"], e["predicate"], e["target_id"]) for e in first["edges"]}
    assert (first["primary_record"]["id"], "mentions_entity", entity["id"]) in edges
    # the same party again, as an author and named in `entities` too: resolved, one edge
    again = capture(
        client,
        source_kind="event",
        content={"author": "maria", "entities": ["Maria"], "text": "bye"},
    )
    assert again["created_records"] == []
    mentions = [e for e in again["edges"] if e["predicate"] == "mentions_entity"]
    assert [e["target_id"] for e in mentions] == [entity["id"]]
    # a speaker that is no string names nobody
    odd = capture(client, source_kind="event", content={"speaker": {"id": 7}, "text": "?"})
    assert odd["created_records"] == [] and odd["edges"] == []


def test_entity_mentions_resolve_by_alias_within_scope(client: TestClient) -> None:
    first = capture(
        client,
        source_kind="event",
        content={"text": "met Bob", "entities": [{"name": "Robert Smith", "aliases": ["Bob"]}]},
        scope="team-a",
    )
    entity_id = first["created_records"][0]["id"]
    again = capture(
        client,
        source_kind="event",
        content={"text": "Bob called", "entities": ["  bob "]},
        scope="team-a",
    )
    assert again["created_records"] == []
    assert again["edges"][0]["target_id"] == entity_id
    # another scope does not see team-a's entity: a new one is created
    other = capture(
        client, source_kind="event", content={"text": "Bob", "entities": ["Bob"]}, scope="team-b"
    )
    assert len(other["created_records"]) == 1
    assert other["created_records"][0]["id"] != entity_id


def test_subject_also_listed_as_entity_is_one_mention(client: TestClient) -> None:
    out = capture(
        client,
        source_kind="observation",
        content={"subject": "Alice", "predicate": "likes", "object": "tea", "entities": ["alice"]},
    )
    assert [r["type"] for r in out["created_records"]].count("entity") == 1
    primary = out["primary_record"]["id"]
    mentions = [e for e in out["edges"] if e["source_id"] == primary]
    assert [e["predicate"] for e in mentions] == ["mentions_entity", "derives"]


def test_fact_object_links_to_existing_entity(client: TestClient) -> None:
    capture(client, source_kind="event", content={"text": "x", "entities": ["Acme"]})
    out = capture(
        client,
        source_kind="observation",
        content={"subject": "Dana", "predicate": "works_at", "object": "acme"},
    )
    preds = [e["predicate"] for e in out["edges"]]
    assert "object_entity" in preds and "fact_object_of" in preds


def test_tool_output_builds_tool_graph(client: TestClient) -> None:
    out = capture(
        client,
        source_kind="tool_output",
        content={"tool": "grep", "args": {"q": "x"}, "result": ["a"], "status": "error"},
        summary="grep failed",
    )
    payload = out["primary_record"]["payload"]
    assert out["primary_record"]["confidence"] == 0.9
    assert payload["tool_graph"][0]["tool"] == "grep"
    assert payload["tool_graph"][0]["status"] == "error"
    assert payload["timeline"][0]["event_type"] == "tool_output"


def test_working_state_becomes_working_memory(client: TestClient) -> None:
    out = capture(
        client,
        source_kind="working_state",
        content={"thread_id": "t-1", "state": {"step": 3}, "next_actions": ["ship"]},
        summary="halfway",
    )
    rec = out["primary_record"]
    assert rec["type"] == "working" and rec["confidence"] == 1.0
    assert rec["payload"]["thread_id"] == "t-1"
    assert rec["payload"]["next_actions"] == ["ship"]
    assert rec["lifecycle"]["decay"]["half_life_seconds"] == 86400


def test_unknown_source_kind_is_422_and_writes_nothing(client: TestClient) -> None:
    r = client.post(
        "/v1/capture", json={"source": "a", "source_kind": "dream", "content": {}}, headers=W
    )
    assert r.status_code == 422
    assert r.headers["content-type"].startswith("application/problem+json")
    assert "source_kind" in r.json()["detail"]
    assert client.get("/v1/records", headers=W).json()["items"] == []


def test_semantic_proposal_without_fact_is_422(client: TestClient) -> None:
    r = client.post(
        "/v1/capture",
        json={
            "source": "a",
            "source_kind": "observation",
            "proposed_type": "semantic",
            "content": {"text": "no triple"},
        },
        headers=W,
    )
    assert r.status_code == 422
    assert client.get("/v1/records", headers=W).json()["items"] == []


def test_proposed_semantic_with_fact_is_primary(client: TestClient) -> None:
    out = capture(
        client,
        source_kind="observation",
        proposed_type="semantic",
        content={"subject": "sky", "predicate": "is", "object": "blue"},
    )
    assert out["primary_record"]["type"] == "semantic"
    assert [r["type"] for r in out["created_records"]] == ["entity"]


def test_ingest_endpoints(client: TestClient) -> None:
    r = client.post(
        "/v1/ingest/events", json={"source": "a", "summary": "boot", "data": {"k": 1}}, headers=W
    )
    assert r.status_code == 201 and r.json()["primary_record"]["payload"]["summary"] == "boot"
    r = client.post(
        "/v1/ingest/observations",
        json={"source": "a", "subject": "Eve", "predicate": "likes", "object": "tea"},
        headers=W,
    )
    assert r.status_code == 201
    assert {x["type"] for x in r.json()["created_records"]} == {"entity", "semantic"}
    r = client.post(
        "/v1/ingest/tool-outputs", json={"source": "a", "tool": "ls", "result": "ok"}, headers=W
    )
    assert r.status_code == 201
    assert r.json()["primary_record"]["payload"]["tool_graph"][0]["tool"] == "ls"
    r = client.post(
        "/v1/ingest/working-states",
        json={"source": "a", "thread_id": "th", "state": {"x": 1}, "next_actions": ["go"]},
        headers=W,
    )
    assert r.status_code == 201 and r.json()["primary_record"]["type"] == "working"
    episode = {
        "source": "a",
        "summary": "fixed the build",
        "timeline": [{"event_type": "step", "summary": "ran tests"}],
        "tool_graph": [
            {"id": "1", "tool": "pytest"},
            {"id": "2", "tool": "git", "depends_on": ["1"]},
        ],
        "outcome": "success",
        "entities": ["CI"],
    }
    r = client.post("/v1/ingest/episodes", json=episode, headers=W)
    assert r.status_code == 201, r.text
    payload = r.json()["primary_record"]["payload"]
    assert payload["outcome"] == "success"
    assert [c["tool"] for c in payload["tool_graph"]] == ["pytest", "git"]
    assert payload["tool_graph"][1]["depends_on"] == ["1"]
    assert r.json()["created_records"][0]["payload"]["canonical_name"] == "CI"


def test_outcome_updates_episodic_with_audit(client: TestClient) -> None:
    rec = capture(client, source_kind="event", content={"text": "try deploy"})["primary_record"]
    r = client.post(
        "/v1/ingest/outcomes",
        json={"record_id": rec["id"], "outcome": "failure", "rationale": "timeout"},
        headers=W,
    )
    assert r.status_code == 200, r.text
    assert r.json()["payload"]["outcome"] == "failure"
    audit = client.get(f"/v1/records/{rec['id']}/audit", headers=W).json()["items"]
    assert audit[-1]["action"] == "outcome"
    assert audit[-1]["rationale"] == "timeout"
    assert audit[-1]["details"]["outcome"] == "failure"


def test_outcome_on_non_episodic_is_409_and_unknown_is_404(client: TestClient) -> None:
    rec = capture(client, source_kind="working_state", content={"thread_id": "t"})
    r = client.post(
        "/v1/ingest/outcomes",
        json={"record_id": rec["primary_record"]["id"], "outcome": "success"},
        headers=W,
    )
    assert r.status_code == 409
    r = client.post(
        "/v1/ingest/outcomes", json={"record_id": "nope", "outcome": "success"}, headers=W
    )
    assert r.status_code == 404


def test_json_beyond_orjson_is_stored_and_read_back_unchanged(client: TestClient) -> None:
    """The JSON columns are written and read with orjson (app/json_codec.py); what it
    refuses, an integer beyond 64 bits, still round-trips through the store, beside
    non-ASCII text and nesting that it writes itself."""
    args = {"big": 2**70, "negative": -(2**65), "text": "café ☕ 東京", "nested": [{"a": [1.5]}]}
    out = capture(
        client,
        source_kind="tool_output",
        content={"tool": "calc", "args": args, "result": {"value": 2**80}},
        summary="big numbers",
    )
    rid = out["primary_record"]["id"]
    r = client.get(f"/v1/records/{rid}", headers=W)
    assert r.status_code == 200, r.text
    step = r.json()["payload"]["tool_graph"][0]
    assert step["args"] == args
    assert step["result"] == {"value": 2**80}
    # exact integers, not the floats of equal value orjson alone would read back
    assert type(step["args"]["big"]) is int and type(step["result"]["value"]) is int
