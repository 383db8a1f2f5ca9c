"""Working memory once a task is done: a `done` snapshot supersedes its thread's earlier
snapshots (within the writer's reach), through the HTTP API on both stores."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import auth

W, A = auth("writer"), auth("admin")


def snapshot(
    client: TestClient, thread: str, state: str, headers: dict[str, str] = W, **extra: Any
) -> str:
    body = {
        "source": "planner",
        "thread_id": thread,
        "state": state,
        "next_actions": [f"{state} the invoice export"],
        "context_summary": f"invoice export {state}",
        **extra,
    }
    r = client.post("/v1/ingest/working-states", json=body, headers=headers)
    assert r.status_code == 201, r.text
    rid: str = r.json()["primary_record"]["id"]
    return rid


def status(client: TestClient, rid: str) -> str:
    r = client.get(f"/v1/records/{rid}", headers=A)
    assert r.status_code == 200, r.text
    value: str = r.json()["status"]
    return value


def test_done_supersedes_the_threads_earlier_snapshots(client: TestClient) -> None:
    planning = snapshot(client, "t-1", "planning")
    executing = snapshot(client, "t-1", "executing")
    other_thread = snapshot(client, "t-2", "executing")
    other_scope = snapshot(client, "t-1", "executing", scope="team-b")
    secret = snapshot(client, "t-1", "blocked", headers=A, sensitivity="hyper")
    higher = snapshot(client, "t-1", "waiting", sensitivity="high")  # the writer's own
    done = snapshot(client, "t-1", "done")
    assert [status(client, r) for r in (planning, executing)] == ["superseded", "superseded"]
    # other threads, other scopes and more sensitive snapshots are left alone
    kept = (other_thread, other_scope, secret, higher)
    assert [status(client, r) for r in kept] == ["active"] * 4
    assert status(client, done) == "active"
    edges = client.get(f"/v1/records/{done}/relations", headers=A).json()["outgoing"]
    assert {(e["predicate"], e["target_id"]) for e in edges} == {
        ("supersedes", planning),
        ("supersedes", executing),
    }
    audit = client.get(f"/v1/records/{planning}/audit", headers=A).json()["items"]
    assert [(a["action"], a["actor"]) for a in audit] == [
        ("create", "writer"),
        ("supersede", "writer"),
    ]
    assert audit[-1]["details"]["superseded_by"] == done


def test_retrieve_answers_the_final_state_not_the_stale_plan(client: TestClient) -> None:
    snapshot(client, "t-9", "planning")
    snapshot(client, "t-9", "executing")
    done = snapshot(client, "t-9", "done")
    r = client.post(
        "/v1/retrieve",
        json={"query": "invoice export", "types": ["working"]},
        headers=W,
    )
    assert r.status_code == 200, r.text
    assert [i["record"]["id"] for i in r.json()["items"]] == [done]


def test_a_done_thread_can_start_again(client: TestClient) -> None:
    first_done = snapshot(client, "t-3", "done")
    again = snapshot(client, "t-3", "planning")
    second_done = snapshot(client, "t-3", "done")
    assert status(client, first_done) == "superseded"
    assert status(client, again) == "superseded"
    assert status(client, second_done) == "active"
