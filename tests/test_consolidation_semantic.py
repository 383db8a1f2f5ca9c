"""Consolidation's structural semantic stage, through the HTTP API on both stores."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.consolidation import semantic_stage
from tests.conftest import app_state, auth, make_settings

A, W, R = auth("admin"), auth("writer"), auth("reader")


def _episode(client: TestClient, outcome: str, entries: list[tuple[str, str]], **extra: Any) -> str:
    body = {
        "source": "agent-7",
        "summary": "deploy run",
        "outcome": outcome,
        "timeline": [{"event_kind": k, "summary": s} for k, s in entries],
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


def _facts(client: TestClient, headers: dict[str, str]) -> list[dict[str, Any]]:
    r = client.get("/v1/records", params={"type": "semantic", "limit": 500}, headers=headers)
    assert r.status_code == 200, r.text
    return [f for f in r.json()["items"] if not f["redacted"]]


def test_successful_episodes_become_facts_once_and_repeats_reinforce(
    client: TestClient,
) -> None:
    first = _episode(client, "success", [("deploy", "staging is green"), ("test", "")])
    second = _episode(client, "success", [("deploy", "staging is green"), ("alert", "disk 91%")])
    _episode(client, "failure", [("deploy", "rollback needed")])
    counts = _run(client)
    assert counts["semantic_episodes"] == 2
    assert (counts["semantic_created"], counts["semantic_reinforced"]) == (2, 1)
    facts = {(f["payload"]["subject"], f["payload"]["object"]): f for f in _facts(client, A)}
    assert set(facts) == {("deploy", "staging is green"), ("alert", "disk 91%")}
    green = facts[("deploy", "staging is green")]
    assert green["payload"]["predicate"] == "observed_in"
    assert green["provenance"]["created_by"] == "consolidation/structural-semantic"
    assert [e["ref"] for e in green["payload"]["evidence"]] == [first]
    edges = client.get(f"/v1/records/{green['id']}/relations", headers=A).json()["outgoing"]
    assert {(e["predicate"], e["target_id"]) for e in edges} == {
        ("derived_from", first),
        ("derived_from", second),
    }
    audit = client.get(f"/v1/records/{green['id']}/audit", headers=A).json()["items"]
    assert [a["action"] for a in audit] == ["create", "reinforce"]
    # a second run finds nothing new: no duplicate, no second reinforcement
    again = _run(client)
    assert (again["semantic_episodes"], again["semantic_created"]) == (0, 0)
    assert len(_facts(client, A)) == 2


def test_facts_keep_their_episodes_scope_and_sensitivity(client: TestClient) -> None:
    _episode(client, "success", [("deploy", "prod key rotated")], sensitivity="high")
    _episode(client, "success", [("deploy", "prod key rotated")], sensitivity="low")
    _episode(client, "success", [("deploy", "team a only")], scope="team-a")
    counts = _run(client)
    assert (counts["semantic_created"], counts["semantic_reinforced"]) == (3, 0)
    by_object = [(f["payload"]["object"], f["sensitivity"], f["scope"]) for f in _facts(client, A)]
    assert sorted(by_object) == [
        ("prod key rotated", "high", None),
        ("prod key rotated", "low", None),
        ("team a only", "low", "team-a"),
    ]
    # the low reader sees the low fact and never the one promoted from the high episode
    seen = [(f["payload"]["object"], f["sensitivity"]) for f in _facts(client, R)]
    assert ("prod key rotated", "high") not in seen
    found = client.post("/v1/retrieve", json={"query": "prod key rotated"}, headers=R).json()
    assert all(i["record"]["sensitivity"] in ("public", "low") for i in found["items"])


def test_an_episode_that_cannot_be_promoted_is_skipped_and_its_batch_still_promoted(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Episodes are promoted in batches, one transaction each: an episode whose fact the
    models refuse rolls its batch back; the batch's other episodes are then promoted one
    by one and the refused one is marked skipped, with the reason, never retried."""
    good = [_episode(client, "success", [("deploy", f"fact {i}")]) for i in range(3)]
    bad = _episode(client, "success", [("deploy", "refused fact")])
    real = semantic_stage._fact_spec

    def refusing(episode_id: str, scope: str | None, rank: int, triple: Any) -> Any:
        if triple[2] == "refused fact":
            raise ValueError("refused by the test")
        return real(episode_id, scope, rank, triple)

    monkeypatch.setattr(semantic_stage, "_fact_spec", refusing)
    counts = _run(client)
    assert (counts["semantic_episodes"], counts["semantic_skipped"]) == (3, 1)
    assert (counts["semantic_created"], counts["semantic_reinforced"]) == (3, 0)
    assert sorted(f["payload"]["object"] for f in _facts(client, A)) == [
        "fact 0",
        "fact 1",
        "fact 2",
    ]
    for episode_id in [*good, bad]:
        audit = client.get(f"/v1/records/{episode_id}/audit", headers=A).json()["items"]
        marks = [a for a in audit if a["action"] == "consolidate:semantic"]
        assert len(marks) == 1
        assert ("skipped" in marks[0]["details"]) is (episode_id == bad)
    again = _run(client)
    assert (again["semantic_episodes"], again["semantic_skipped"]) == (0, 0)


@pytest.mark.postgres
def test_a_run_creating_many_facts_renews_the_planners_statistics(
    pg_url: str, make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL: a run whose new facts outgrow the statistics analyzes `records` again
    (semantic_stage.FactGrowth), so that its look-ups are planned on the facts it made."""
    monkeypatch.setattr(semantic_stage, "ANALYZE_AFTER_FACTS", 4)
    client = make_client(make_settings(pg_url))
    episodes = semantic_stage.EPISODES_PER_TRANSACTION + 4  # checked between transactions
    for i in range(episodes):
        _episode(client, "success", [("deploy", f"service {i} is green")])
    assert _run(client)["semantic_created"] == episodes
    with app_state(client).db.read_transaction() as session:
        analyzed = session.execute(
            text("SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'records'")
        ).scalar_one()
    assert analyzed >= 1  # ANALYZE run by the job (autovacuum's are counted apart)
