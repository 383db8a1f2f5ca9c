"""Reinforce, penalize, pin and unpin (DESIGN §5 'Reinforce / penalize')."""

from __future__ import annotations

import threading

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import Database
from app.models import RecordRow
from app.models.clauses import current_salience_sql
from app.sweep.service import run_sweep
from tests.conftest import auth
from tests.lifecycle_support import audit_rows, create, lifecycle, row, semantic


def test_reinforce_adds_gain_resets_clock_and_audits(client: TestClient, db: Database) -> None:
    rec = create(client, semantic(), salience=0.5)
    r = client.post(
        f"/v1/records/{rec['id']}/reinforce",
        json={"rationale": "helped answer"},
        headers=auth("writer"),
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["salience"] == pytest.approx(0.6)
    assert body["lifecycle"]["last_reinforced_at"] > rec["lifecycle"]["last_reinforced_at"]
    entry = audit_rows(db, rec["id"])[-1]
    assert (entry.action, entry.actor, entry.rationale) == ("reinforce", "writer", "helped answer")
    assert entry.details["salience"] == pytest.approx(0.6)


def test_reinforce_uses_the_record_gain_and_caps_at_one(client: TestClient) -> None:
    rec = create(client, semantic(), salience=0.5, lifecycle=lifecycle(gain=0.3))
    r = client.post(f"/v1/records/{rec['id']}/reinforce", headers=auth("writer"))
    assert r.json()["salience"] == pytest.approx(0.8)
    r = client.post(f"/v1/records/{rec['id']}/reinforce", headers=auth("writer"))
    assert r.json()["salience"] == pytest.approx(1.0)


def test_reinforce_starts_from_the_decayed_value(client: TestClient, db: Database) -> None:
    rec = create(client, semantic(), salience=0.8, lifecycle=lifecycle(half_life=3600))
    # Age the record by two half-lives: 0.8 → 0.2, then reinforce adds 0.1.
    with db.transaction() as s:
        stored = s.get(RecordRow, rec["id"])
        assert stored is not None
        stored.salience_t0 -= 7200
    r = client.post(f"/v1/records/{rec['id']}/reinforce", headers=auth("writer"))
    assert r.json()["salience"] == pytest.approx(0.3, abs=1e-3)


def test_penalize_subtracts_floored_at_min_salience(client: TestClient, db: Database) -> None:
    rec = create(client, semantic(), salience=0.5, lifecycle=lifecycle(min_salience=0.2))
    r = client.post(
        f"/v1/records/{rec['id']}/penalize",
        json={"amount": 0.1, "rationale": "misleading"},
        headers=auth("writer"),
    )
    assert r.json()["salience"] == pytest.approx(0.4)
    r = client.post(
        f"/v1/records/{rec['id']}/penalize", json={"amount": 0.9}, headers=auth("writer")
    )
    assert r.json()["salience"] == pytest.approx(0.2)
    actions = [(e.action, e.actor, e.rationale) for e in audit_rows(db, rec["id"])]
    assert actions[-2:] == [("penalize", "writer", "misleading"), ("penalize", "writer", None)]
    assert audit_rows(db, rec["id"])[-1].details["amount"] == 0.9


@pytest.mark.parametrize("body", [{}, {"amount": 0}, {"amount": 1.5}, {"amount": "x"}])
def test_penalize_rejects_bad_amounts(client: TestClient, body: dict[str, object]) -> None:
    rec = create(client, semantic())
    r = client.post(f"/v1/records/{rec['id']}/penalize", json=body, headers=auth("writer"))
    assert r.status_code == 422
    assert r.headers["content-type"].startswith("application/problem+json")


def test_salience_changes_need_write_role_and_a_visible_target(client: TestClient) -> None:
    mine = create(client, semantic())
    hyper = create(client, semantic(), who="admin", sensitivity="hyper")
    team_b = create(client, semantic(), who="admin", scope="team-b")
    for action, body in (("reinforce", {}), ("penalize", {"amount": 0.1})):
        url = "/v1/records/{}/" + action
        assert (
            client.post(url.format(mine["id"]), json=body, headers=auth("reader")).status_code
            == 403
        )
        assert (
            client.post(url.format(hyper["id"]), json=body, headers=auth("writer")).status_code
            == 403
        )
        assert (
            client.post(url.format(team_b["id"]), json=body, headers=auth("team_a")).status_code
            == 404
        )
        assert client.post(url.format("nope"), json=body, headers=auth("writer")).status_code == 404


def test_concurrent_reinforcements_lose_no_update(client: TestClient, db: Database) -> None:
    """Many callers at once: each single-statement update sees the previous one's result."""
    n = 20
    rec = create(client, semantic(), salience=0.5, lifecycle=lifecycle(gain=0.01))
    barrier = threading.Barrier(n)
    statuses: list[int] = []

    def hit() -> None:
        barrier.wait()
        r = client.post(f"/v1/records/{rec['id']}/reinforce", headers=auth("writer"))
        statuses.append(r.status_code)

    threads = [threading.Thread(target=hit) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert statuses == [200] * n
    stored = row(db, rec["id"])
    assert stored is not None
    assert stored.salience_base == pytest.approx(0.5 + n * 0.01, abs=1e-9)
    assert sum(e.action == "reinforce" for e in audit_rows(db, rec["id"])) == n


def test_pin_freezes_salience_and_blocks_prune(client: TestClient, db: Database) -> None:
    rec = create(client, semantic(), salience=0.0005, lifecycle=lifecycle(half_life=60))
    r = client.post(
        f"/v1/records/{rec['id']}/pin", json={"rationale": "keep"}, headers=auth("writer")
    )
    assert r.status_code == 200 and r.json()["lifecycle"]["pinned"] is True
    frozen = r.json()["salience"]
    far = 10**10
    with db.transaction() as s:
        value = s.scalar(
            select(current_salience_sql(db.dialect, far)).where(RecordRow.id == rec["id"])
        )
    assert value == pytest.approx(frozen)
    assert run_sweep(db, now=far).pruned == 0
    assert client.get(f"/v1/records/{rec['id']}", headers=auth("reader")).status_code == 200
    # Pinning twice changes nothing and writes no second entry.
    client.post(f"/v1/records/{rec['id']}/pin", headers=auth("writer"))
    pins = [
        (e.action, e.actor, e.rationale) for e in audit_rows(db, rec["id"]) if e.action == "pin"
    ]
    assert pins == [("pin", "writer", "keep")]


def test_unpin_resumes_decay_from_now(client: TestClient, db: Database) -> None:
    rec = create(client, semantic(), salience=0.6, lifecycle=lifecycle(half_life=100, pinned=True))
    r = client.post(f"/v1/records/{rec['id']}/unpin", headers=auth("writer"))
    assert r.status_code == 200
    assert r.json()["lifecycle"]["pinned"] is False
    stored = row(db, rec["id"])
    assert stored is not None and stored.pinned is False
    assert stored.salience_base == 0.6
    assert [e.action for e in audit_rows(db, rec["id"])][-1] == "unpin"
    with db.transaction() as s:
        later = s.scalar(
            select(current_salience_sql(db.dialect, stored.salience_t0 + 100)).where(
                RecordRow.id == rec["id"]
            )
        )
    assert later == pytest.approx(0.3)


def test_pin_needs_write_role(client: TestClient) -> None:
    rec = create(client, semantic())
    assert client.post(f"/v1/records/{rec['id']}/pin", headers=auth("reader")).status_code == 403
    assert client.post("/v1/records/missing/unpin", headers=auth("writer")).status_code == 404
