"""Behaving as the original Membrane (the seed documents), row by row of
docs/differences.md: where we follow the seed, and where ours is kept, pinned."""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from app.config import Settings
from app.db import Database
from app.jobs.service import run_job
from app.models import RecordRow
from tests.conftest import auth
from tests.lifecycle_support import create, entity, episodic, lifecycle, semantic


def _retrieve(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/v1/retrieve", json=body, headers=auth("writer"))
    assert r.status_code == 200, r.text
    answer: dict[str, Any] = r.json()
    return answer


def _get(client: TestClient, record_id: str, who: str = "admin") -> dict[str, Any]:
    r = client.get(f"/v1/records/{record_id}", headers=auth(who))
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


# 1. selector --------------------------------------------------------------------------


def test_selector_matches_the_task_context_against_triggers_and_constraints(
    client: TestClient,
) -> None:
    linux = create(
        client,
        {
            "kind": "competence",
            "skill_name": "restart service",
            "triggers": [{"signal": "service down", "conditions": {"os": "linux"}}],
            "required_tools": ["systemctl"],
        },
    )
    mac = create(
        client,
        {
            "kind": "competence",
            "skill_name": "restart service",
            "triggers": [{"signal": "service down", "conditions": {"os": "macos"}}],
            "required_tools": ["launchctl"],
        },
    )
    plan = create(
        client,
        {"kind": "plan_graph", "plan_id": "p", "intent": "x", "constraints": {"os": "linux"}},
    )
    on_linux = {"os": "linux", "tools": ["systemctl"]}
    selection = _retrieve(client, types=["competence", "plan_graph"], context=on_linux)["selection"]
    by_id = {c["record_id"]: c for c in selection["candidates"]}
    assert by_id[linux["id"]]["applicability"] == 1.0
    assert by_id[mac["id"]]["applicability"] == 0.0  # contradicted trigger, tool not at hand
    assert by_id[plan["id"]]["applicability"] == 1.0
    # the original's three equal weights
    for c in selection["candidates"]:
        mean = (c["applicability"] + c["success_rate"] + c["recency"]) / 3
        assert c["score"] == pytest.approx(mean)
    # without a context nothing is applicable by it (no query either): no change
    plain = _retrieve(client, types=["competence", "plan_graph"])["selection"]
    assert {c["applicability"] for c in plain["candidates"]} == {0.0}


# 2. metrics snapshot ------------------------------------------------------------------


def test_metrics_snapshot_gives_the_seed_formulas_under_the_seed_names(
    client: TestClient,
) -> None:
    a = create(client, semantic(), salience=0.9)
    b = create(client, semantic(obj="rome"), salience=0.3)
    create(client, entity(), salience=0.5)
    client.post(f"/v1/records/{b['id']}/reinforce", headers=auth("writer"))
    client.post(f"/v1/records/{a['id']}/retract", json={"rationale": "r"}, headers=auth("writer"))
    m = client.get("/v1/metrics", headers=auth("writer")).json()
    entries = 3 + 1 + 1  # three creates, one reinforce, one retract
    assert m["total_records"] == 3 and m["records_by_type"]["semantic"] == 2
    assert m["total_audit_entries"] == entries
    assert m["memory_growth_rate"] == pytest.approx(1.0)  # all three created today
    assert m["retrieval_usefulness"] == pytest.approx(1 / entries)
    assert m["revision_rate"] == pytest.approx(1 / entries)
    assert m["active_records"] == 2  # salience > 0: the retracted one fell to 0
    assert m["salience_distribution"] == {
        "0.0-0.2": 1,
        "0.2-0.4": 1,
        "0.4-0.6": 1,
        "0.6-0.8": 0,
        "0.8-1.0": 0,
    }
    # this service's earlier variants, under their own names
    assert m["records_per_hour_24h"] == pytest.approx(3 / 24)
    assert m["feedback_usefulness_30d"] == pytest.approx(1.0)
    assert m["revised_record_share"] == pytest.approx(1 / 3)


# 3. compression -----------------------------------------------------------------------


def test_compression_lowers_the_salience_of_the_compressed_episodes(
    client: TestClient, db: Database, settings: Settings
) -> None:
    ids = [create(client, episodic(f"step {i}"), scope="team-a")["id"] for i in range(2)]
    run = run_job(db, settings, "consolidation", "manual", now=time.time() + 2 * 3600).run
    assert run is not None and run.counts["compressed_sources"] == 2
    assert [_get(client, i)["salience"] for i in ids] == [pytest.approx(0.5)] * 2


# 4. observation ingest (ours kept) -----------------------------------------------------


def test_an_observation_is_an_episode_with_a_derived_fact(client: TestClient) -> None:
    body = {"source": "agent", "subject": "user", "predicate": "prefers", "object": "Go"}
    r = client.post("/v1/ingest/observations", json=body, headers=auth("writer"))
    assert r.status_code == 201, r.text
    primary, created = r.json()["primary_record"], r.json()["created_records"]
    assert primary["type"] == "episodic"
    facts = [c for c in created if c["type"] == "semantic"]
    assert [(f["payload"]["subject"], f["payload"]["object"]) for f in facts] == [("user", "Go")]


# 5. revision side effects -------------------------------------------------------------


def test_retired_records_lose_their_salience_and_semantic_status_follows(
    client: TestClient,
) -> None:
    w = auth("writer")
    old, gone, contested = (create(client, semantic(obj=o)) for o in ("a", "b", "c"))
    new = {"payload": semantic(obj="a2")}
    r = client.post(
        f"/v1/records/{old['id']}/supersede", json={"new_record": new, "rationale": "r"}, headers=w
    )
    assert r.status_code == 201, r.text
    client.post(f"/v1/records/{gone['id']}/retract", json={"rationale": "r"}, headers=w)
    body = {"contesting_ref": "ticket-1", "rationale": "r"}
    client.post(f"/v1/records/{contested['id']}/contest", json=body, headers=w)
    a, b, c = (_get(client, x["id"]) for x in (old, gone, contested))
    assert (a["status"], a["salience"], a["payload"]["revision"]["status"]) == (
        "superseded",
        0.0,
        "retracted",
    )
    assert (b["status"], b["salience"], b["payload"]["revision"]["status"]) == (
        "retracted",
        0.0,
        "retracted",
    )
    assert c["payload"]["revision"]["status"] == "contested"
    assert c["salience"] == pytest.approx(1.0)  # contest keeps it
    merged = [create(client, semantic(obj=o)) for o in ("m1", "m2")]
    merge: dict[str, Any] = {"ids": [m["id"] for m in merged], "merged_record": new}
    merge["rationale"] = "dup"
    sources = client.post("/v1/records/merge", json=merge, headers=w).json()["source_records"]
    assert [(s["salience"], s["payload"]["revision"]["status"]) for s in sources] == [
        (0.0, "retracted")
    ] * 2
    assert a["audit_log"][-1]["details"]["previous_salience"] == pytest.approx(1.0)


# 6. redacted view ---------------------------------------------------------------------


def test_redacted_view_keeps_confidence_salience_tags_and_updated_at(
    client: TestClient,
) -> None:
    rec = create(client, entity(), sensitivity="medium", tags=["ops"], confidence=0.6)
    item = client.get("/v1/records", headers=auth("reader")).json()["items"][0]
    assert item["redacted"] is True
    assert (item["confidence"], item["tags"]) == (0.6, ["ops"])
    assert item["salience"] == pytest.approx(1.0)
    assert item["updated_at"] == rec["updated_at"]
    assert not {"payload", "provenance", "relations", "audit_log", "interpretation"} & set(item)


# 7. decay -----------------------------------------------------------------------------


def test_a_custom_curve_decays_exponentially_and_past_max_age_salience_is_zero(
    client: TestClient, db: Database
) -> None:
    custom = create(client, entity(), lifecycle=lifecycle(curve="custom", max_age=3600))
    pinned = create(client, entity("P"), lifecycle=lifecycle(pinned=True, max_age=3600))
    assert custom["lifecycle"]["decay"]["curve"] == "custom"
    with db.transaction() as s:  # both were created two hours ago
        s.execute(
            update(RecordRow)
            .where(RecordRow.id.in_([custom["id"], pinned["id"]]))
            .values(created_at=time.time() - 7200)
        )
    assert _get(client, custom["id"])["salience"] == 0.0
    assert _get(client, pinned["id"])["salience"] == 1.0  # pinned records never decay
    listed = client.get("/v1/records?max_salience=0.5", headers=auth("admin")).json()["items"]
    assert [i["id"] for i in listed] == [custom["id"]]  # the original's MaxSalience


def test_reading_reinforces_only_when_asked(
    client: TestClient, make_client: Any, settings: Settings
) -> None:
    rec = create(client, semantic(), salience=0.5)
    _retrieve(client, query="alice paris")
    assert _get(client, rec["id"])["salience"] == pytest.approx(0.5)  # ours: reads write nothing
    policy = settings.policy.model_copy(update={"reinforce_on_access": True})
    seeded = make_client(settings.model_copy(update={"policy": policy}))
    r = seeded.post("/v1/retrieve", json={"query": "alice paris"}, headers=auth("writer"))
    assert [i["record"]["id"] for i in r.json()["items"]] == [rec["id"]]
    after = _get(seeded, rec["id"])
    assert after["salience"] == pytest.approx(0.6)
    assert after["audit_log"][-1]["actor"] == "system:access"


# 8. audit action names (ours kept) ------------------------------------------------------


def test_audit_actions_keep_our_names_and_show_the_seeds_when_asked(
    client: TestClient, make_client: Any, settings: Settings
) -> None:
    rec = create(client, semantic())
    w = auth("writer")
    client.post(f"/v1/records/{rec['id']}/penalize", json={"amount": 0.1}, headers=w)
    client.post(f"/v1/records/{rec['id']}/retract", json={"rationale": "r"}, headers=w)
    ours = [e["action"] for e in _get(client, rec["id"])["audit_log"]]
    assert ours == ["create", "penalize", "retract"]
    policy = settings.policy.model_copy(update={"seed_audit_action_names": True})
    seeded = make_client(settings.model_copy(update={"policy": policy}))
    audit = seeded.get(f"/v1/records/{rec['id']}/audit", headers=auth("admin")).json()
    assert [e["action"] for e in audit["items"]] == ["create", "decay", "revise"]


# 9. smaller items ---------------------------------------------------------------------


def test_seed_payload_shapes_round_trip(client: TestClient) -> None:
    environment = {
        "os": "linux",
        "os_version": "6.1",
        "tool_versions": {"go": "1.22"},
        "working_directory": "/src",
        "context": {"ci": True},
    }
    ep = create(client, {"kind": "episodic", "summary": "built", "environment": environment})
    assert ep["payload"]["environment"] == environment
    person = create(client, {"kind": "entity", "canonical_name": "Ann", "primary_type": "Person"})
    assert person["payload"]["primary_type"] == "Person"
    plan = {"kind": "plan_graph", "plan_id": "p", "edges": [{"from": "a", "to": "b"}]}
    assert create(client, plan)["payload"]["edges"][0]["kind"] == "control"


def test_capture_interpretation_may_use_its_own_endpoint_and_model(settings: Settings) -> None:
    llm = settings.llm.model_copy(
        update={"base_url": "http://a/v1", "model": "big", "capture_model": "small"}
    )
    assert (llm.for_capture().base_url, llm.for_capture().model) == ("http://a/v1", "small")
    llm = llm.model_copy(update={"capture_base_url": "http://b/v1"})
    assert llm.for_capture().base_url == "http://b/v1" and llm.model == "big"
