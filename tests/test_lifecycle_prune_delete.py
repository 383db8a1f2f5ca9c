"""Deletion policy (DELETE endpoint) and the prune rules of the decay sweep."""

from __future__ import annotations

import time
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db import Database
from app.models import RelationRow, TagRow
from app.sweep.service import run_sweep
from tests.conftest import auth
from tests.lifecycle_support import (
    audit_rows,
    create,
    entity,
    lifecycle,
    record_count,
    row,
    semantic,
)

FADED = 0.0005  # below the prune threshold (0.001) from the start


def test_delete_honours_never(client: TestClient, db: Database) -> None:
    rec = create(client, semantic(), lifecycle=lifecycle(policy="never"))
    r = client.delete(f"/v1/records/{rec['id']}", headers=auth("admin"))
    assert r.status_code == 409
    assert r.headers["content-type"].startswith("application/problem+json")
    assert row(db, rec["id"]) is not None
    assert [e.action for e in audit_rows(db, rec["id"])] == ["create"]


def test_delete_manual_and_auto_keeps_an_audit_trace(client: TestClient, db: Database) -> None:
    for policy in ("manual_only", "auto_prune"):
        rec = create(client, semantic(), lifecycle=lifecycle(policy=policy), tags=["x"])
        r = client.delete(
            f"/v1/records/{rec['id']}", params={"rationale": "obsolete"}, headers=auth("writer")
        )
        assert r.status_code == 200, r.text
        assert r.json()["id"] == rec["id"] and r.json()["deleted"] is True
        assert client.get(f"/v1/records/{rec['id']}", headers=auth("admin")).status_code == 404
        trail = audit_rows(db, rec["id"])
        assert [e.action for e in trail] == ["create", "delete"]
        last = trail[-1]
        assert (last.actor, last.rationale) == ("writer", "obsolete")
        assert last.details["deletion_policy"] == policy and last.details["type"] == "semantic"
        with db.transaction() as s:
            tags = s.scalar(select(func.count()).where(TagRow.record_id == rec["id"]))
        assert tags == 0
        # the trail stays readable over HTTP, under the trust rules of the record as it was
        http_trail = client.get(f"/v1/records/{rec['id']}/audit", headers=auth("reader"))
        assert http_trail.status_code == 200
        assert [e["action"] for e in http_trail.json()["items"]] == ["create", "delete"]
        hidden = client.get(f"/v1/records/{rec['id']}/audit", headers=auth("team_a"))
        assert hidden.status_code == 200  # unscoped records are visible to every principal


def test_deleted_record_trail_keeps_its_trust(client: TestClient) -> None:
    secret = create(client, semantic(), sensitivity="medium", scope="team-a")
    assert client.delete(f"/v1/records/{secret['id']}", headers=auth("writer")).status_code == 200
    path = f"/v1/records/{secret['id']}/audit"
    assert client.get(path, headers=auth("reader")).status_code == 403
    assert client.get(path, headers=auth("team_a")).status_code == 200
    assert client.get("/v1/records/never-existed/audit", headers=auth("admin")).status_code == 404


def test_delete_needs_write_role_and_visibility(client: TestClient, db: Database) -> None:
    rec = create(client, semantic())
    hyper = create(client, semantic(), who="admin", sensitivity="hyper")
    team_b = create(client, semantic(), who="admin", scope="team-b")
    assert client.delete(f"/v1/records/{rec['id']}", headers=auth("reader")).status_code == 403
    assert client.delete(f"/v1/records/{hyper['id']}", headers=auth("writer")).status_code == 403
    assert client.delete(f"/v1/records/{team_b['id']}", headers=auth("team_a")).status_code == 404
    assert client.delete("/v1/records/unknown", headers=auth("writer")).status_code == 404
    assert record_count(db) == 3


def _faded(client: TestClient, **kw: Any) -> str:
    rec = create(client, semantic(), salience=FADED, lifecycle=lifecycle(**kw))
    return str(rec["id"])


def test_prune_removes_only_eligible_records(client: TestClient, db: Database) -> None:
    pruned = _faded(client)
    pinned = _faded(client, pinned=True)
    manual = _faded(client, policy="manual_only")
    never = _faded(client, policy="never")
    floored = create(client, semantic(), salience=0.5, lifecycle=lifecycle(min_salience=0.01))
    fresh = create(client, semantic(), salience=0.9)
    retracted = _faded(client)
    superseded = _faded(client)
    r = client.post(
        f"/v1/records/{retracted}/retract", json={"rationale": "wrong"}, headers=auth("writer")
    )
    assert r.status_code == 200
    r = client.post(
        f"/v1/records/{superseded}/supersede",
        json={"new_record": {"payload": semantic(obj="rome")}, "rationale": "moved"},
        headers=auth("writer"),
    )
    assert r.status_code == 201
    successor = r.json()["new_record"]["id"]
    result = run_sweep(db, batch_size=2)
    assert result.pruned == 1
    assert row(db, pruned) is None
    for kept in (pinned, manual, never, floored["id"], fresh["id"], retracted, superseded):
        assert row(db, kept) is not None, kept
    assert row(db, successor) is not None
    tomb = audit_rows(db, pruned)[-1]
    assert (tomb.action, tomb.actor) == ("prune", "system:decay")
    salience = tomb.details["salience"]
    assert tomb.details["reason"] == "salience" and isinstance(salience, float)
    assert salience < 0.001
    assert (tomb.details["scope"], tomb.details["sensitivity"]) == (None, 1)
    trail = client.get(f"/v1/records/{pruned}/audit", headers=auth("reader")).json()["items"]
    assert [e["action"] for e in trail] == ["create", "prune"]


def test_prune_past_max_age_even_when_salient(client: TestClient, db: Database) -> None:
    old = create(client, semantic(), salience=1.0, lifecycle=lifecycle(max_age=1))
    young = create(client, semantic(), salience=1.0, lifecycle=lifecycle(max_age=10_000))
    never = create(client, semantic(), lifecycle=lifecycle(max_age=1, policy="never"))
    result = run_sweep(db, now=time.time() + 60)
    assert result.pruned == 1
    assert row(db, old["id"]) is None
    assert row(db, young["id"]) is not None and row(db, never["id"]) is not None
    assert audit_rows(db, old["id"])[-1].details["reason"] == "max_age"


def test_prune_over_many_batches_and_via_the_job(client: TestClient, db: Database) -> None:
    doomed = [_faded(client, half_life=60) for _ in range(5)]
    kept = create(client, entity("Bob"), salience=0.9)
    assert run_sweep(db, batch_size=2).pruned == 5
    assert record_count(db) == 1 and row(db, kept["id"]) is not None
    assert all(audit_rows(db, rid)[-1].action == "prune" for rid in doomed)
    again = client.post("/v1/jobs/decay/run", headers=auth("admin")).json()
    assert again["counts"]["pruned"] == 0


def test_edges_pointing_at_a_pruned_record_stay_as_references(
    client: TestClient, db: Database
) -> None:
    gone = _faded(client)
    citing = create(
        client, entity("Carol"), relations=[{"predicate": "mentioned_in", "target_id": gone}]
    )
    run_sweep(db)
    assert row(db, gone) is None
    with db.transaction() as s:
        edges = list(s.scalars(select(RelationRow).where(RelationRow.source_id == citing["id"])))
    assert [(e.predicate, e.target_id) for e in edges] == [("mentioned_in", gone)]
