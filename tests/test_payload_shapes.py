"""Payloads in the original Membrane's shapes (seed docs), and today's names, through the
HTTP API on both stores: every record type, the typed ingest routes and capture."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import auth

W = auth("writer")

ORIGINAL: dict[str, dict[str, Any]] = {
    "episodic": {
        "kind": "episodic",
        "timeline": [
            {
                "t": "2025-01-02T03:04:05Z",
                "event_kind": "user_input",
                "ref": "thread-1:turn-7",
                "summary": "asked for a refactor",
            }
        ],
        "tool_graph": [
            {"id": "n1", "tool": "grep", "args": {"q": "auth"}, "result": ["a.go"]},
            {
                "id": "n2",
                "tool": "go test",
                "args": {},
                "result": "ok",
                "timestamp": "2025-01-02T03:05:00Z",
                "depends_on": ["n1"],
            },
        ],
        "environment": {"os": "linux", "tool_versions": {"go": "1.22"}},
        "outcome": "success",
        "artifacts": ["log.txt"],
        "tool_graph_ref": "graph-1",
    },
    "working": {
        "kind": "working",
        "thread_id": "session-001",
        "state": "executing",
        "active_constraints": [
            {"type": "budget", "key": "max_cost", "value": 10, "required": True}
        ],
        "next_actions": ["run tests", "review output"],
        "open_questions": ["which branch?"],
        "context_summary": "Refactoring auth middleware",
    },
    "entity": {
        "kind": "entity",
        "canonical_name": "auth middleware",
        "primary_type": "Service",
        "types": ["Service", "Concept"],
        "aliases": ["authmw"],
        "summary": "The HTTP auth layer",
    },
    "semantic": {
        "kind": "semantic",
        "subject": "service",
        "predicate": "runs_on",
        "object": "port 8080",
        "validity": {
            "mode": "timeboxed",
            "conditions": {"env": "staging"},
            "start": "2025-01-01T00:00:00Z",
            "end": "2025-12-31T00:00:00Z",
        },
        "evidence": [
            {
                "source_type": "observation",
                "source_id": "obs-1",
                "timestamp": "2025-01-01T00:00:00Z",
            }
        ],
        "revision_policy": "supersede",
        "revision": {"status": "active"},
    },
    "competence": {
        "kind": "competence",
        "skill_name": "fix flaky test",
        "triggers": [{"signal": "test failed twice", "conditions": {"lang": "go"}}],
        "recipe": [
            {
                "step": "rerun with -count=10",
                "tool": "go test",
                "args_schema": {"type": "object"},
                "validation": "passes 10 times",
            },
            {"step": "add retry", "tool": "editor"},
        ],
        "required_tools": ["go test", "editor"],
        "failure_modes": ["real bug"],
        "fallbacks": ["ask a human"],
        "performance": {"success_count": 4, "failure_count": 1, "success_rate": 0.8},
        "version": "1.2.0",
    },
    "plan_graph": {
        "kind": "plan_graph",
        "plan_id": "release",
        "version": "3",
        "intent": "ship a release",
        "constraints": {"branch": "main"},
        "inputs_schema": {"type": "object", "properties": {"tag": {"type": "string"}}},
        "outputs_schema": {"type": "object"},
        "nodes": [
            {"id": "build", "op": "make", "params": {"target": "all"}},
            {"id": "ship", "op": "deploy", "guards": {"tests": "green"}},
        ],
        "edges": [
            {"from": "build", "to": "ship", "kind": "control"},
            {"from": "build", "to": "ship", "kind": "data"},
        ],
        "metrics": {"avg_latency_ms": 120.5, "failure_rate": 0.25, "execution_count": 8},
    },
}


def _post(client: TestClient, path: str, body: dict[str, Any], status: int = 201) -> Any:
    r = client.post(path, json=body, headers=W)
    assert r.status_code == status, r.text
    return r.json()


def _keeps(got: Any, sent: Any) -> None:
    """Everything sent comes back (datetimes compared by instant, extra keys allowed)."""
    if isinstance(sent, dict):
        assert isinstance(got, dict), (got, sent)
        for key, value in sent.items():
            assert key in got, (key, got)
            _keeps(got[key], value)
    elif isinstance(sent, list):
        assert isinstance(got, list) and len(got) == len(sent), (got, sent)
        for g, s in zip(got, sent, strict=True):
            _keeps(g, s)
    elif isinstance(sent, str) and sent.endswith("Z") and isinstance(got, str):
        assert got.replace("+00:00", "Z") == sent, (got, sent)
    else:
        assert got == sent, (got, sent)


@pytest.mark.parametrize("kind", sorted(ORIGINAL))
def test_original_shapes_round_trip_through_records(client: TestClient, kind: str) -> None:
    rec = _post(client, "/v1/records", {"payload": ORIGINAL[kind]})
    assert rec["type"] == kind
    _keeps(rec["payload"], ORIGINAL[kind])
    got = client.get(f"/v1/records/{rec['id']}", headers=W).json()
    assert got["payload"] == rec["payload"]


def test_original_names_fill_todays_names(client: TestClient) -> None:
    episodic = _post(client, "/v1/records", {"payload": ORIGINAL["episodic"]})["payload"]
    assert episodic["timeline"][0]["event_type"] == "user_input"
    competence = _post(client, "/v1/records", {"payload": ORIGINAL["competence"]})["payload"]
    assert competence["recipe"][0]["action"] == "rerun with -count=10"
    working = _post(client, "/v1/records", {"payload": ORIGINAL["working"]})["payload"]
    assert working["state_data"] == {} and working["constraints"] == []
    entity = {**ORIGINAL["entity"], "types": ["Concept"]}
    got = _post(client, "/v1/records", {"payload": entity})["payload"]
    assert got["types"] == ["Service", "Concept"]
    semantic = _post(client, "/v1/records", {"payload": ORIGINAL["semantic"]})["payload"]
    assert (semantic["evidence"][0]["kind"], semantic["evidence"][0]["ref"]) == (
        "observation",
        "obs-1",
    )
    semantic = {**ORIGINAL["semantic"], "validity": {}}
    assert _post(client, "/v1/records", {"payload": semantic})["payload"]["validity"]["mode"] == (
        "global"
    )


def test_todays_shapes_still_accepted(client: TestClient) -> None:
    working = {
        "kind": "working",
        "thread_id": "t1",
        "state": {"step": 3},
        "constraints": ["no force push", {"type": "time", "key": "deadline", "value": "fri"}],
    }
    got = _post(client, "/v1/records", {"payload": working})["payload"]
    assert got["state"] == "executing" and got["state_data"] == {"step": 3}
    assert got["constraints"] == ["no force push"]
    assert got["active_constraints"][0]["key"] == "deadline"
    episodic = {"kind": "episodic", "timeline": [{"event_type": "step", "data": {"k": 1}}]}
    entry = _post(client, "/v1/records", {"payload": episodic})["payload"]["timeline"][0]
    assert (entry["event_kind"], entry["event_type"], entry["data"]) == ("step", "step", {"k": 1})
    competence = {"kind": "competence", "skill_name": "s", "recipe": [{"step": 1, "action": "a"}]}
    step = _post(client, "/v1/records", {"payload": competence})["payload"]["recipe"][0]
    assert (step["step"], step["action"]) == (1, "a")
    plan = {"kind": "plan_graph", "plan_id": "p", "intent": "i", "version": 2, "constraints": ["x"]}
    got = _post(client, "/v1/records", {"payload": plan})["payload"]
    assert (got["version"], got["constraints"]) == (2, ["x"])
    plan_aliases = {"kind": "plan_graph", "plan_id": "p", "input_schema": {"a": 1}}
    got = _post(client, "/v1/records", {"payload": plan_aliases})["payload"]
    assert got["inputs_schema"] == {"a": 1} and "input_schema" not in got


@pytest.mark.parametrize(
    "payload",
    [
        {"kind": "working", "thread_id": "t", "state": "sleeping"},
        {
            "kind": "semantic",
            "subject": "a",
            "predicate": "b",
            "object": 1,
            "validity": {"mode": 1},
        },
        {
            "kind": "semantic",
            "subject": "a",
            "predicate": "b",
            "object": 1,
            "validity": {"start": "2025-02-01T00:00:00Z", "end": "2025-01-01T00:00:00Z"},
        },
        {"kind": "competence", "skill_name": "s", "recipe": [{"step": -1}]},
        {"kind": "episodic", "timeline": [{"event_kind": "a", "event_type": "b"}]},
        {"kind": "plan_graph", "plan_id": "p", "version": 0},
        {"kind": "plan_graph", "plan_id": "p", "metrics": {"failure_rate": 2}},
    ],
)
def test_bad_original_shapes_are_422(client: TestClient, payload: dict[str, Any]) -> None:
    _post(client, "/v1/records", {"payload": payload}, status=422)


def test_working_state_executing_capture_and_ingest(client: TestClient) -> None:
    content = {
        "thread_id": "session-001",
        "state": "executing",
        "next_actions": ["run tests", "review output"],
        "context_summary": "Refactoring auth middleware",
        "active_constraints": [{"type": "scope", "key": "dir", "value": "pkg/auth"}],
    }
    body = {"source": "auth-agent", "source_kind": "working_state", "content": content}
    rec = _post(client, "/v1/capture", body)["primary_record"]
    assert rec["type"] == "working"
    _keeps(rec["payload"], content)
    ingest = {"source": "auth-agent", **content, "state": "blocked"}
    rec = _post(client, "/v1/ingest/working-states", ingest)["primary_record"]
    _keeps(rec["payload"], {**content, "state": "blocked"})
    today = {"source": "a", "thread_id": "th", "state": {"x": 1}, "constraints": ["c"]}
    rec = _post(client, "/v1/ingest/working-states", today)["primary_record"]
    assert rec["payload"]["state_data"] == {"x": 1} and rec["payload"]["constraints"] == ["c"]


def test_event_ingest_takes_event_kind_and_ref(client: TestClient) -> None:
    body = {"source": "a", "event_kind": "error", "ref": "run-9", "summary": "build broke"}
    entry = _post(client, "/v1/ingest/events", body)["primary_record"]["payload"]["timeline"][0]
    assert (entry["event_kind"], entry["event_type"], entry["ref"]) == ("error", "error", "run-9")
    old = {"source": "a", "event_type": "deploy", "summary": "went out", "data": {"v": 2}}
    entry = _post(client, "/v1/ingest/events", old)["primary_record"]["payload"]["timeline"][0]
    assert (entry["event_kind"], entry["data"]["v"]) == ("deploy", 2)


def test_tool_output_ingest_accepts_depends_on(client: TestClient) -> None:
    body = {
        "source": "a",
        "tool_name": "go test",
        "args": {"pkg": "./..."},
        "result": {"passed": 10},
        "depends_on": ["call-0"],
        "timestamp": "2025-01-02T03:04:05Z",
    }
    payload = _post(client, "/v1/ingest/tool-outputs", body)["primary_record"]["payload"]
    node = payload["tool_graph"][0]
    _keeps(node, {"tool": "go test", "args": {"pkg": "./..."}, "result": {"passed": 10}})
    assert node["depends_on"] == ["call-0"] and node["timestamp"].startswith("2025-01-02T03:04:05")


def test_episode_ingest_and_capture_in_original_shape(client: TestClient) -> None:
    episode = {k: v for k, v in ORIGINAL["episodic"].items() if k != "kind"}
    rec = _post(client, "/v1/ingest/episodes", {"source": "a", "summary": "s", **episode})
    _keeps(rec["primary_record"]["payload"], episode)
    body = {"source": "a", "source_kind": "episode", "content": episode, "summary": "s"}
    _keeps(_post(client, "/v1/capture", body)["primary_record"]["payload"], episode)


def test_entity_capture_keeps_primary_type_and_summary(client: TestClient) -> None:
    content = {"canonical_name": "Orion", "primary_type": "Project", "summary": "the big one"}
    body = {"source": "a", "source_kind": "observation", "proposed_type": "entity"}
    rec = _post(client, "/v1/capture", {**body, "content": content})["primary_record"]
    assert rec["type"] == "entity"
    _keeps(rec["payload"], {**content, "types": ["Project"]})


def test_outcome_ingest_appends_provenance(client: TestClient) -> None:
    body = {"source": "a", "source_kind": "event", "content": {"text": "try deploy"}}
    rec = _post(client, "/v1/capture", body)["primary_record"]
    before = rec["provenance"]["sources"]
    outcome = {
        "target_record_id": rec["id"],
        "outcome_status": "partial",
        "source": "ci-runner",
        "timestamp": "2025-01-02T03:04:05Z",
    }
    out = _post(client, "/v1/ingest/outcomes", outcome, status=200)
    assert out["payload"]["outcome"] == "partial"
    sources = out["provenance"]["sources"]
    assert sources[: len(before)] == before and len(sources) == len(before) + 1
    assert (sources[-1]["kind"], sources[-1]["ref"]) == ("outcome", "ci-runner")
    assert sources[-1]["created_by"] == "writer"
    again = _post(
        client, "/v1/ingest/outcomes", {"record_id": rec["id"], "outcome": "success"}, status=200
    )
    assert [s["kind"] for s in again["provenance"]["sources"][-2:]] == ["outcome", "outcome"]
    assert again["provenance"]["sources"][-1]["ref"] == "writer"
    got = client.get(f"/v1/records/{rec['id']}", headers=W).json()
    assert got["provenance"] == again["provenance"]
