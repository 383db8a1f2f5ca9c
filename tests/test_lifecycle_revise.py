"""Revision: supersede, fork, retract, contest, merge (DESIGN §5 'Revision')."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.config import Settings
from app.db import Database
from app.enums import Sensitivity
from app.models import RelationRow
from app.records.policy import PolicyEngine
from app.relations import repository as relation_repo
from app.revise.schemas import SupersedeRequest
from app.revise.service import RevisionService
from app.trust import TrustContext
from tests.conftest import auth
from tests.lifecycle_support import (
    audit_rows,
    audit_total,
    create,
    entity,
    episodic,
    record_count,
    row,
    semantic,
)


def _edges(db: Database, source_id: str) -> set[tuple[str, str]]:
    with db.transaction() as s:
        rows = s.scalars(select(RelationRow).where(RelationRow.source_id == source_id))
        return {(r.predicate, r.target_id) for r in rows}


def _post(client: TestClient, path: str, body: dict[str, Any], who: str = "writer") -> Any:
    return client.post(path, json=body, headers=auth(who))


def test_supersede_links_both_records_and_audits(client: TestClient, db: Database) -> None:
    old = create(client, semantic(obj="paris"), scope="team-a", sensitivity="medium")
    r = _post(
        client,
        f"/v1/records/{old['id']}/supersede",
        {"new_record": {"payload": semantic(obj="rome")}, "rationale": "she moved"},
    )
    assert r.status_code == 201, r.text
    out_old, out_new = r.json()["old_record"], r.json()["new_record"]
    assert out_old["status"] == "superseded" and out_new["status"] == "active"
    assert (out_new["scope"], out_new["sensitivity"]) == ("team-a", "medium")  # inherited
    assert out_new["payload"]["revision"] == {
        "version": 2,
        "supersedes": old["id"],
        "superseded_by": None,
    }
    assert out_old["payload"]["revision"]["superseded_by"] == out_new["id"]
    assert ("supersedes", old["id"]) in _edges(db, out_new["id"])
    assert ("superseded_by", out_new["id"]) in _edges(db, old["id"])
    for rid in (old["id"], out_new["id"]):
        last = audit_rows(db, rid)[-1]
        assert (last.action, last.actor, last.rationale) == ("supersede", "writer", "she moved")
    # A superseded record cannot be revised again: revise its successor.
    again = _post(
        client,
        f"/v1/records/{old['id']}/supersede",
        {"new_record": {"payload": semantic(obj="oslo")}, "rationale": "again"},
    )
    assert again.status_code == 409


def test_fork_keeps_the_source_active(client: TestClient, db: Database) -> None:
    src = create(client, entity("Alice"))
    r = _post(
        client,
        f"/v1/records/{src['id']}/fork",
        {"forked_record": {"payload": entity("Alice (work)")}, "rationale": "variant"},
    )
    assert r.status_code == 201, r.text
    source, forked = r.json()["source_record"], r.json()["forked_record"]
    assert source["status"] == "active" and forked["status"] == "active"
    assert ("derived_from", src["id"]) in _edges(db, forked["id"])
    assert ("derives", forked["id"]) in _edges(db, src["id"])
    assert audit_rows(db, src["id"])[-1].details == {"forked_record": forked["id"]}
    assert audit_rows(db, forked["id"])[-1].rationale == "variant"


def test_retract(client: TestClient, db: Database) -> None:
    rec = create(client, semantic())
    r = _post(client, f"/v1/records/{rec['id']}/retract", {"rationale": "false"})
    assert r.status_code == 200 and r.json()["record"]["status"] == "retracted"
    last = audit_rows(db, rec["id"])[-1]
    assert (last.action, last.actor, last.rationale) == ("retract", "writer", "false")
    assert _post(client, f"/v1/records/{rec['id']}/retract", {"rationale": "x"}).status_code == 409
    assert _post(client, f"/v1/records/{rec['id']}/retract", {}).status_code == 422


def test_contest_by_record_and_by_external_reference(client: TestClient, db: Database) -> None:
    claim = create(client, semantic(obj="paris"))
    rival = create(client, semantic(obj="rome"))
    r = _post(
        client,
        f"/v1/records/{claim['id']}/contest",
        {"contesting_ref": rival["id"], "rationale": "conflicting"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["record"]["status"] == "contested" and r.json()["contesting_is_record"]
    assert ("contested_by", rival["id"]) in _edges(db, claim["id"])
    assert ("contests", claim["id"]) in _edges(db, rival["id"])
    url = "https://tracker.example/ISSUE-7"
    r = _post(
        client,
        f"/v1/records/{claim['id']}/contest",
        {"contesting_ref": url, "rationale": "ticket"},
    )
    assert r.status_code == 200 and r.json()["contesting_is_record"] is False
    assert ("contested_by", url) in _edges(db, claim["id"])
    last = audit_rows(db, claim["id"])[-1]
    assert (last.action, last.rationale, last.details["contesting_ref"]) == (
        "contest",
        "ticket",
        url,
    )


def test_contest_refs_that_look_like_ids_must_be_readable(client: TestClient) -> None:
    claim = create(client, semantic())
    team_claim = create(client, semantic(), who="team_a", scope="team-a")
    hidden = create(client, semantic(), who="admin", scope="team-b")
    cases = [
        (claim, "00000000-0000-4000-8000-000000000000", "writer", 404),
        (team_claim, hidden["id"], "team_a", 404),
        (claim, claim["id"], "writer", 422),
    ]
    for target, ref, who, code in cases:
        body = {"contesting_ref": ref, "rationale": "r"}
        assert _post(client, f"/v1/records/{target['id']}/contest", body, who).status_code == code


def test_merge(client: TestClient, db: Database) -> None:
    a = create(client, semantic(obj="paris"))
    b = create(client, semantic(obj="paris, france"))
    r = _post(
        client,
        "/v1/records/merge",
        {"ids": [a["id"], b["id"]], "merged_record": {"payload": semantic()}, "rationale": "dup"},
    )
    assert r.status_code == 201, r.text
    merged = r.json()["merged_record"]
    assert [s["status"] for s in r.json()["source_records"]] == ["superseded", "superseded"]
    edges = _edges(db, merged["id"])
    for src in (a["id"], b["id"]):
        assert {("derived_from", src), ("supersedes", src)} <= edges
        last = audit_rows(db, src)[-1]
        assert (last.action, last.actor, last.details["merged_into"]) == (
            "merge",
            "writer",
            merged["id"],
        )
        assert last.details["previous_status"] == "active"  # and its salience before it fell
    assert audit_rows(db, merged["id"])[-1].details == {"merged_from": [a["id"], b["id"]]}


def test_merge_validation(client: TestClient) -> None:
    a = create(client, semantic())
    e = create(client, entity())
    base = {"merged_record": {"payload": semantic()}, "rationale": "r"}
    assert (
        _post(client, "/v1/records/merge", {**base, "ids": [a["id"], a["id"]]}).status_code == 422
    )
    assert _post(client, "/v1/records/merge", {**base, "ids": [a["id"]]}).status_code == 422
    assert (
        _post(client, "/v1/records/merge", {**base, "ids": [a["id"], e["id"]]}).status_code == 422
    )


def test_episodic_targets_are_refused(client: TestClient, db: Database) -> None:
    ep = create(client, episodic())
    other = create(client, episodic("second"))
    rid = ep["id"]
    calls: list[tuple[str, dict[str, Any]]] = [
        (f"/v1/records/{rid}/supersede", {"new_record": {"payload": episodic()}, "rationale": "r"}),
        (f"/v1/records/{rid}/fork", {"forked_record": {"payload": episodic()}, "rationale": "r"}),
        (f"/v1/records/{rid}/retract", {"rationale": "r"}),
        (f"/v1/records/{rid}/contest", {"contesting_ref": "https://x", "rationale": "r"}),
        (
            "/v1/records/merge",
            {"ids": [rid, other["id"]], "merged_record": {"payload": episodic()}, "rationale": "r"},
        ),
    ]
    for path, body in calls:
        r = _post(client, path, body)
        assert r.status_code == 409, (path, r.text)
    assert row(db, rid) is not None and row(db, rid).status == "active"  # type: ignore[union-attr]


def test_new_semantic_records_need_evidence(client: TestClient) -> None:
    a = create(client, semantic())
    b = create(client, semantic())
    bare = {"payload": semantic(evidence=False)}
    with_sources = {**bare, "provenance": {"sources": [{"kind": "doc", "ref": "memo"}]}}
    calls = [
        (f"/v1/records/{a['id']}/supersede", "new_record"),
        (f"/v1/records/{a['id']}/fork", "forked_record"),
    ]
    for path, field in calls:
        assert _post(client, path, {field: bare, "rationale": "r"}).status_code == 422
    merge = {"ids": [a["id"], b["id"]], "merged_record": bare, "rationale": "r"}
    assert _post(client, "/v1/records/merge", merge).status_code == 422
    ok = _post(
        client, f"/v1/records/{a['id']}/fork", {"forked_record": with_sources, "rationale": "r"}
    )
    assert ok.status_code == 201


def test_type_of_the_new_record_must_match(client: TestClient) -> None:
    a = create(client, semantic())
    body = {"new_record": {"payload": entity()}, "rationale": "r"}
    assert _post(client, f"/v1/records/{a['id']}/supersede", body).status_code == 422


def test_targets_are_trust_checked_like_reads(client: TestClient) -> None:
    hyper = create(client, semantic(), who="admin", sensitivity="hyper")
    team_b = create(client, semantic(), who="admin", scope="team-b")
    mine = create(client, semantic())
    retract = {"rationale": "r"}
    assert _post(client, f"/v1/records/{hyper['id']}/retract", retract).status_code == 403
    assert (
        _post(client, f"/v1/records/{team_b['id']}/retract", retract, "team_a").status_code == 404
    )
    assert _post(client, f"/v1/records/{mine['id']}/retract", retract, "reader").status_code == 403
    assert _post(client, "/v1/records/nope/retract", retract).status_code == 404
    merge = {
        "ids": [mine["id"], hyper["id"]],
        "merged_record": {"payload": semantic()},
        "rationale": "r",
    }
    assert _post(client, "/v1/records/merge", merge).status_code == 403


def test_a_failure_midway_leaves_no_trace(client: TestClient, db: Database) -> None:
    old = create(client, semantic())
    records, audits = record_count(db), audit_total(db)
    # The old record is marked superseded before the new one fails validation.
    bad = {
        "payload": semantic(obj="rome"),
        "relations": [{"predicate": "related_to", "target_id": "missing"}],
    }
    r = _post(client, f"/v1/records/{old['id']}/supersede", {"new_record": bad, "rationale": "r"})
    assert r.status_code == 422
    stored = row(db, old["id"])
    assert stored is not None and stored.status == "active" and stored.payload == old["payload"]
    assert (record_count(db), audit_total(db)) == (records, audits)


def test_a_crash_after_the_insert_rolls_everything_back(
    settings: Settings, db: Database, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = create(client, semantic())
    records, audits = record_count(db), audit_total(db)

    def boom(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(relation_repo, "add_pair", boom)
    trust = TrustContext(ceiling=Sensitivity.high, actor_id="writer")
    req = SupersedeRequest.model_validate(
        {"new_record": {"payload": semantic(obj="rome")}, "rationale": "r"}
    )
    with pytest.raises(RuntimeError), db.transaction() as session:
        RevisionService(session, PolicyEngine(settings)).supersede(old["id"], req, trust)
    stored = row(db, old["id"])
    assert stored is not None and stored.status == "active"
    assert (record_count(db), audit_total(db)) == (records, audits)


def test_concurrent_supersedes_one_wins(client: TestClient, db: Database) -> None:
    """The row lock serializes revisions: the loser sees 'superseded' and gets 409."""
    old = create(client, semantic())
    barrier = threading.Barrier(4)
    codes: list[int] = []

    def attempt(i: int) -> None:
        body = {"new_record": {"payload": semantic(obj=f"city {i}")}, "rationale": f"try {i}"}
        barrier.wait()
        codes.append(_post(client, f"/v1/records/{old['id']}/supersede", body).status_code)

    threads = [threading.Thread(target=attempt, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(codes) == [201, 409, 409, 409]
    assert [e.action for e in audit_rows(db, old["id"])] == ["create", "supersede"]
