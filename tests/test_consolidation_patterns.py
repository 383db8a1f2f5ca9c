"""Consolidation's competence and plan graph stages, through the HTTP API on both stores.

Episodes are ingested in the original Membrane's shapes (tool_graph nodes with id, tool,
args, result, timestamp, depends_on); each run is a manual consolidation job."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.consolidation import plan_graph_stage
from app.consolidation.promotion import Promotion
from tests.conftest import auth

A, W, R = auth("admin"), auth("writer"), auth("reader")

Node = tuple[str, str, dict[str, Any], list[str]]  # id, tool, args, depends_on

TRIAGE: list[Node] = [
    ("n1", "fetch_logs", {"service": "auth", "lines": 500}, []),
    ("n2", "grep_errors", {"pattern": "timeout", "ignore_case": True}, ["n1"]),
    ("n3", "summarize", {"max_words": 80.5, "tags": ["ops"], "extra": None}, ["n2"]),
]
SHIP: list[Node] = [
    ("a", "checkout", {"ref": "main"}, []),
    ("b", "build", {"target": "web"}, ["a"]),
    ("c", "deploy", {"env": "staging"}, ["b"]),
]


def _graph(nodes: list[Node]) -> list[dict[str, Any]]:
    return [
        {
            "id": node_id,
            "tool": tool,
            "args": args,
            "result": {"ok": True},
            "timestamp": f"2026-11-20T10:00:0{i}Z",
            "depends_on": deps,
        }
        for i, (node_id, tool, args, deps) in enumerate(nodes)
    ]


def _episode(client: TestClient, nodes: list[Node], outcome: str = "success", **extra: Any) -> str:
    body = {
        "source": "agent-7",
        "summary": "a run",
        "outcome": outcome,
        "tool_graph": _graph(nodes),
        **extra,
    }
    r = client.post("/v1/ingest/episodes", json=body, headers=W)
    assert r.status_code == 201, r.text
    rid: str = r.json()["primary_record"]["id"]
    return rid


def _run(client: TestClient) -> dict[str, Any]:
    r = client.post("/v1/jobs/consolidation/run", headers=A)
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "succeeded", r.text
    counts: dict[str, Any] = r.json()["counts"]
    return counts


def _records(client: TestClient, kind: str, headers: dict[str, str]) -> list[dict[str, Any]]:
    r = client.get("/v1/records", params={"type": kind, "limit": 500}, headers=headers)
    assert r.status_code == 200, r.text
    return list(r.json()["items"])


def _derived_from(client: TestClient, record_id: str) -> set[str]:
    edges = client.get(f"/v1/records/{record_id}/relations", headers=A).json()["outgoing"]
    return {e["target_id"] for e in edges if e["predicate"] == "derived_from"}


def _actions(client: TestClient, record_id: str) -> list[str]:
    items = client.get(f"/v1/records/{record_id}/audit", headers=A).json()["items"]
    return [a["action"] for a in items]


def _sources(record: dict[str, Any]) -> set[str]:
    sources = record["provenance"]["sources"]
    assert all(s["kind"] == "record" for s in sources)
    return {s["ref"] for s in sources}


def _pattern_counts(counts: dict[str, Any]) -> tuple[int, int, int, int, int, int]:
    return (
        counts["competence_created"],
        counts["competence_reinforced"],
        counts["competence_episodes"],
        counts["plan_graphs_created"],
        counts["plan_graphs_reinforced"],
        counts["plan_graph_episodes"],
    )


def test_a_repeated_tool_signature_becomes_one_competence_record(client: TestClient) -> None:
    first = _episode(client, TRIAGE, summary="triage the auth outage")
    second_args = [(i, t, {"service": "billing"}, d) for i, t, _, d in TRIAGE]
    second = _episode(client, second_args, summary="triage the billing outage")
    failed = _episode(client, TRIAGE, "failure", summary="triage failed")
    once = _episode(client, TRIAGE[:2], summary="look at the logs")
    _episode(client, TRIAGE, "partial")  # not counted, either way
    counts = _run(client)
    assert counts["competence_created"] == 1
    assert (counts["competence_reinforced"], counts["competence_episodes"]) == (0, 3)
    [skill] = _records(client, "competence", A)
    payload = skill["payload"]
    assert payload["skill_name"] == "fetch_logs → grep_errors → summarize"
    assert [(s["step"], s["tool"]) for s in payload["recipe"]] == [
        (1, "fetch_logs"),
        (2, "grep_errors"),
        (3, "summarize"),
    ]
    schemas = [s["args_schema"]["properties"] for s in payload["recipe"]]
    assert schemas[0] == {"service": {"type": "string"}, "lines": {"type": "integer"}}
    assert schemas[1] == {"pattern": {"type": "string"}, "ignore_case": {"type": "boolean"}}
    assert schemas[2] == {
        "max_words": {"type": "number"},
        "tags": {"type": "array"},
        "extra": {"type": "null"},
    }
    assert payload["required_tools"] == ["fetch_logs", "grep_errors", "summarize"]
    signals = [t["signal"] for t in payload["triggers"]]
    assert signals == ["triage the auth outage", "triage the billing outage"]
    perf = payload["performance"]
    assert (perf["success_count"], perf["failure_count"]) == (2, 1)
    assert abs(perf["success_rate"] - 2 / 3) < 1e-9 and perf["last_used_at"]
    assert "consolidation:competence" in skill["tags"]
    assert skill["provenance"]["created_by"] == "consolidation/competence"
    assert _sources(skill) == _derived_from(client, skill["id"]) == {first, second, failed}
    assert _actions(client, skill["id"]) == ["create"]
    for episode in (first, second, failed):
        assert _actions(client, episode).count("consolidate:competence") == 1
    assert "consolidate:competence" not in _actions(client, once)

    # a second run finds nothing new; a new matching episode reinforces in place, and the
    # signature seen once so far forms its record when its second occurrence comes
    again = _run(client)
    assert _pattern_counts(again)[:3] == (0, 0, 0)
    third = _episode(client, TRIAGE, summary="triage the search outage")
    twice = _episode(client, TRIAGE[:2], summary="look at the logs again")
    counts = _run(client)
    assert _pattern_counts(counts)[:3] == (1, 1, 3)
    assert counts["duplicates_resolved"] >= 1
    skills = {s["payload"]["skill_name"]: s for s in _records(client, "competence", A)}
    assert set(skills) == {"fetch_logs → grep_errors → summarize", "fetch_logs → grep_errors"}
    skill = skills["fetch_logs → grep_errors → summarize"]
    perf = skill["payload"]["performance"]
    assert (perf["success_count"], perf["failure_count"]) == (3, 1)
    assert abs(perf["success_rate"] - 0.75) < 1e-9
    assert _actions(client, skill["id"]) == ["create", "reinforce"]
    assert _sources(skill) == _derived_from(client, skill["id"]) == {first, second, failed, third}
    pair = skills["fetch_logs → grep_errors"]
    assert _derived_from(client, pair["id"]) == {once, twice}


def test_tool_graphs_of_three_nodes_become_plans_and_repeats_raise_counts(
    client: TestClient,
) -> None:
    ship = _episode(client, SHIP, summary="ship the web app")
    short = _episode(client, SHIP[:2], summary="build only")
    _episode(client, SHIP, "unknown")  # not an execution
    counts = _run(client)
    assert _pattern_counts(counts)[3:] == (1, 0, 1)
    [plan] = _records(client, "plan_graph", A)
    payload = plan["payload"]
    assert [(n["id"], n["op"], n["params"]) for n in payload["nodes"]] == [
        ("a", "checkout", {"ref": "main"}),
        ("b", "build", {"target": "web"}),
        ("c", "deploy", {"env": "staging"}),
    ]
    assert [(e["from"], e["to"], e["kind"]) for e in payload["edges"]] == [
        ("a", "b", "control"),
        ("b", "c", "control"),
    ]
    assert payload["intent"] == "ship the web app"
    metrics = payload["metrics"]
    assert (metrics["execution_count"], metrics["success_count"]) == (1, 1)
    assert (metrics["failure_count"], metrics["failure_rate"]) == (0, 0.0)
    assert metrics["last_executed_at"]
    assert "consolidation:plan_graph" in plan["tags"]
    assert plan["provenance"]["created_by"] == "consolidation/plan-graph"
    assert _sources(plan) == _derived_from(client, plan["id"]) == {ship}
    assert "consolidate:plan_graph" in _actions(client, ship)
    assert "consolidate:plan_graph" not in _actions(client, short)

    # the same structure under other node ids and arguments, failed: the same plan, one
    # more execution; the same ops wired differently: another plan
    renamed = [("x", "checkout", {"ref": "v2"}, []), ("y", "build", {}, ["x"])]
    renamed.append(("z", "deploy", {"env": "prod"}, ["y"]))
    failed = _episode(client, renamed, "failure", summary="ship v2")
    rewired = [*SHIP[:2], ("c", "deploy", {"env": "staging"}, ["a"])]
    _episode(client, rewired, summary="deploy from source")
    counts = _run(client)
    assert _pattern_counts(counts)[3:] == (1, 1, 2)
    plans = {p["payload"]["intent"]: p for p in _records(client, "plan_graph", A)}
    assert set(plans) == {"ship the web app", "deploy from source"}
    plan = plans["ship the web app"]
    metrics = plan["payload"]["metrics"]
    assert (metrics["execution_count"], metrics["success_count"]) == (2, 1)
    assert (metrics["failure_count"], metrics["failure_rate"]) == (1, 0.5)
    assert _actions(client, plan["id"]) == ["create", "reinforce"]
    assert _sources(plan) == _derived_from(client, plan["id"]) == {ship, failed}
    assert _pattern_counts(_run(client))[3:] == (0, 0, 0)


def test_patterns_never_mix_scopes_or_sensitivities(client: TestClient) -> None:
    scoped = _episode(client, SHIP, scope="team-a")
    _episode(client, SHIP)
    counts = _run(client)
    assert _pattern_counts(counts) == (0, 0, 0, 2, 0, 2)
    assert sorted(str(p["scope"]) for p in _records(client, "plan_graph", A)) == [
        "None",
        "team-a",
    ]
    scoped_again = _episode(client, SHIP, scope="team-a")
    counts = _run(client)
    assert _pattern_counts(counts) == (1, 0, 2, 0, 1, 1)
    [skill] = _records(client, "competence", A)
    assert skill["scope"] == "team-a"
    assert _derived_from(client, skill["id"]) == {scoped, scoped_again}

    vault = [("v1", "vault_read", {"path": "prod/db"}, []), ("v2", "rotate_key", {}, ["v1"])]
    vault.append(("v3", "notify_oncall", {}, ["v2"]))
    _episode(client, vault, sensitivity="high", summary="rotate the prod key")
    _episode(client, vault, sensitivity="high", summary="rotate the prod key")
    low = _episode(client, vault, sensitivity="low", summary="rotate a test key")
    counts = _run(client)
    assert _pattern_counts(counts) == (1, 0, 2, 2, 0, 3)
    high = {
        r["id"]
        for kind in ("competence", "plan_graph")
        for r in _records(client, kind, A)
        if r["sensitivity"] == "high"
    }
    assert len(high) == 2  # the high skill and the high plan; the low plan stands apart
    [low_plan] = [
        p
        for p in _records(client, "plan_graph", A)
        if p["payload"]["intent"] == "rotate a test key"
    ]
    assert low_plan["sensitivity"] == "low"
    assert _derived_from(client, low_plan["id"]) == {low}
    # the low reader never sees what was learned from the high episodes
    for kind in ("competence", "plan_graph"):
        assert not high & {r["id"] for r in _records(client, kind, R)}
    query = {"query": "vault_read rotate_key notify_oncall", "limit": 50}
    found = client.post("/v1/retrieve", json=query, headers=R).json()
    assert not high & {i["record"]["id"] for i in found["items"]}
    named = found["selection"] or {"selected_id": None, "candidates": []}
    assert named["selected_id"] not in high
    assert not high & {c["record_id"] for c in named["candidates"]}
    admin = client.post("/v1/retrieve", json=query, headers=A).json()
    assert high <= {i["record"]["id"] for i in admin["items"]}


def test_retrieval_finds_the_skill_and_the_plan_and_selects_one(client: TestClient) -> None:
    _episode(client, TRIAGE, summary="triage the auth outage")
    _episode(client, TRIAGE, summary="triage the auth outage")
    counts = _run(client)
    assert _pattern_counts(counts) == (1, 0, 2, 1, 0, 2)
    [skill] = _records(client, "competence", A)
    [plan] = _records(client, "plan_graph", A)
    query = {"query": "fetch_logs grep_errors summarize", "limit": 50}
    r = client.post("/v1/retrieve", json=query, headers=A)
    assert r.status_code == 200, r.text
    found = r.json()
    assert {skill["id"], plan["id"]} <= {i["record"]["id"] for i in found["items"]}
    assert found["selection"]["selected_id"] in {skill["id"], plan["id"]}


def test_a_crash_mid_run_leaves_no_half_made_plan_and_the_next_run_goes_on(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    ship = _episode(client, SHIP, summary="ship the web app")
    triage = _episode(client, TRIAGE, summary="triage the auth outage")
    mark = Promotion.mark
    calls = []

    def crash_on_second_plan(self: Promotion, ids: Any, details: dict[str, Any]) -> None:
        if self.stage == "plan_graph":
            calls.append(ids)
            if len(calls) == 2:
                raise RuntimeError("the process dies here")
        mark(self, ids, details)

    monkeypatch.setattr(Promotion, "mark", crash_on_second_plan)
    r = client.post("/v1/jobs/consolidation/run", headers=A)
    assert r.status_code == 200 and r.json()["status"] == "failed", r.text
    # Both plans were written in one transaction (UNITS_PER_TRANSACTION): the crash
    # rolled back the first, made plan with its mark, not half of it.
    assert _records(client, "plan_graph", A) == []
    assert "consolidate:plan_graph" not in _actions(client, ship)
    assert "consolidate:plan_graph" not in _actions(client, triage)
    monkeypatch.setattr(Promotion, "mark", mark)
    assert _pattern_counts(_run(client))[3:] == (2, 0, 2)
    plans = {p["payload"]["intent"]: p["id"] for p in _records(client, "plan_graph", A)}
    assert set(plans) == {"ship the web app", "triage the auth outage"}
    assert _derived_from(client, plans["triage the auth outage"]) == {triage}


def test_a_plan_that_cannot_be_made_is_skipped_and_the_rest_of_its_batch_still_made(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    ship = _episode(client, SHIP, summary="ship the web app")
    triage = _episode(client, TRIAGE, summary="triage the auth outage")
    pattern = plan_graph_stage.PATTERN

    def refuse_triage(rows: list[Any]) -> Any:
        if rows[0].id == triage:
            raise ValueError("a plan the models refuse")
        return pattern.new_payload(rows)

    monkeypatch.setattr(plan_graph_stage, "PATTERN", replace(pattern, new_payload=refuse_triage))
    counts = _run(client)
    assert (counts["plan_graphs_created"], counts["plan_graph_skipped"]) == (1, 1)
    [plan] = _records(client, "plan_graph", A)
    assert _derived_from(client, plan["id"]) == {ship}
    assert "consolidate:plan_graph" in _actions(client, triage)  # marked: never retried
    monkeypatch.setattr(plan_graph_stage, "PATTERN", pattern)
    assert _pattern_counts(_run(client))[3:] == (0, 0, 0)
