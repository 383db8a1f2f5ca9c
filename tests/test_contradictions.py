"""Facts that contradict (issue 34): a newer fact of a single-valued predicate overturns
the active facts of its scope with the same subject and predicate, on both stores."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.config import Settings
from app.db import Database
from app.enums import Sensitivity
from app.models import RecordRow, RelationRow
from app.records.contradictions import closed_window, same_object
from app.records.event_time import episode_time, fact_time
from app.records.policy import PolicyEngine
from app.records.schemas import RecordCreate
from app.records.service import RecordService
from app.trust import TrustContext
from tests.conftest import auth, make_settings

W = auth("writer")


def observe(
    client: TestClient,
    obj: Any,
    *,
    subject: str = "Redis",
    predicate: str = "runs_on_port",
    who: str = "writer",
    **extra: Any,
) -> dict[str, Any]:
    """Capture an observation of (subject, predicate, obj); its derived fact."""
    body = {
        "source": "agent-1",
        "source_kind": "observation",
        "content": {"subject": subject, "predicate": predicate, "object": obj},
        "scope": "ops",
        **extra,
    }
    r = client.post("/v1/capture", json=body, headers=auth(who))
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    facts = [c for c in out["created_records"] if c["type"] == "semantic"]
    assert len(facts) == 1
    return {**facts[0], "edges": out["edges"]}


def get(client: TestClient, record_id: str, who: str = "writer") -> dict[str, Any]:
    r = client.get(f"/v1/records/{record_id}", headers=auth(who))
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def audit(client: TestClient, record_id: str) -> list[dict[str, Any]]:
    r = client.get(f"/v1/records/{record_id}/audit", headers=W)
    assert r.status_code == 200, r.text
    items: list[dict[str, Any]] = r.json()["items"]
    return items


def active_facts(db: Database, subject: str = "Redis") -> list[str]:
    with db.transaction() as s:
        rows = s.scalars(select(RecordRow).where(RecordRow.type == "semantic"))
        return [
            str(r.payload["object"])
            for r in rows
            if r.status == "active" and r.payload["subject"] == subject
        ]


def edges(db: Database) -> set[tuple[str, str, str]]:
    with db.transaction() as s:
        rows = s.scalars(select(RelationRow).where(RelationRow.predicate.like("contradict%")))
        return {(r.source_id, r.predicate, r.target_id) for r in rows}


def test_the_redis_example(client: TestClient, db: Database) -> None:
    old = observe(client, "6379")
    new = observe(client, "6380")
    assert new["status"] == "active"
    was = get(client, old["id"])
    assert was["status"] == "superseded"
    assert was["payload"]["revision"]["superseded_by"] == new["id"]
    # As a revision's supersede: the old fact reads `retracted` and loses its salience.
    assert was["payload"]["revision"]["status"] == "retracted"
    assert was["salience"] == 0.0
    assert (new["id"], "contradicts", old["id"]) in {
        (e["source_id"], e["predicate"], e["target_id"]) for e in new["edges"]
    }
    assert edges(db) == {
        (new["id"], "contradicts", old["id"]),
        (old["id"], "contradicted_by", new["id"]),
    }
    old_audit = [(a["action"], a["details"]) for a in audit(client, old["id"])]
    overturned = [d for action, d in old_audit if action == "supersede"]
    assert len(overturned) == 1 and overturned[0]["previous_status"] == "active"
    assert overturned[0]["previous_salience"] > 0.9
    assert {k: overturned[0][k] for k in ("contradicted_by", "rule")} == {
        "contradicted_by": new["id"],
        "rule": "contradiction",
    }
    new_audit = [(a["action"], a["details"]) for a in audit(client, new["id"])]
    assert ("contradict", {"contradicts": old["id"], "status": "superseded"}) in new_audit
    # retrieve: the active fact first, the overturned one not among the results
    r = client.post(
        "/v1/retrieve", json={"query": "Redis port", "expand_context": False}, headers=W
    )
    assert r.status_code == 200, r.text
    found = [i["record"] for i in r.json()["items"] if i["record"]["type"] == "semantic"]
    assert [f["id"] for f in found] == [new["id"]]
    every = [i["record"]["id"] for i in r.json()["items"]]
    assert old["id"] not in every
    # the history is still there for a status filter
    listed = client.get("/v1/records", params={"status": "superseded"}, headers=W).json()
    assert [i["id"] for i in listed["items"]] == [old["id"]]
    assert active_facts(db) == ["6380"]


def test_the_same_object_again_is_no_contradiction(client: TestClient, db: Database) -> None:
    observe(client, "Postgres 16")
    observe(client, "  postgres   16 ")
    assert len(active_facts(db)) == 2


def test_other_subjects_predicates_and_scopes_are_left_alone(
    client: TestClient, db: Database
) -> None:
    observe(client, "6379")
    observe(client, "6380", subject="Memcached")
    observe(client, "6381", predicate="listens_on")
    observe(client, "6382", scope="other")
    assert sorted(active_facts(db)) == ["6379", "6381", "6382"]
    assert active_facts(db, "Memcached") == ["6380"]
    assert edges(db) == set()


def test_multi_valued_predicates_keep_every_object(
    db_url: str, make_client: Callable[..., TestClient], db: Database
) -> None:
    settings = make_settings(db_url, policy={"multi_valued_predicates": ["Likes", "uses"]})
    client = make_client(settings)
    observe(client, "tea", subject="Alice", predicate="likes")
    observe(client, "coffee", subject="Alice", predicate="LIKES ")
    observe(client, "vim", subject="Alice", predicate="uses")
    observe(client, "emacs", subject="Alice", predicate="uses")
    assert sorted(active_facts(db, "Alice")) == ["coffee", "emacs", "tea", "vim"]
    assert edges(db) == set()


def test_an_older_dated_fact_does_not_overturn(client: TestClient, db: Database) -> None:
    newer = observe(client, "6380", timestamp="2025-06-01T00:00:00Z")
    older = observe(client, "6379", timestamp="2024-01-01T00:00:00Z")
    assert older["status"] == "superseded"  # stored as history, in the answer too
    assert older["payload"]["revision"]["superseded_by"] == newer["id"]
    assert get(client, newer["id"])["status"] == "active"
    assert get(client, older["id"])["status"] == "superseded"
    assert edges(db) == {
        (newer["id"], "contradicts", older["id"]),
        (older["id"], "contradicted_by", newer["id"]),
    }
    # a fact dated later than the stored one overturns it, whenever it arrives
    latest = observe(client, "6381", timestamp="2025-07-01T00:00:00Z")
    assert get(client, newer["id"])["status"] == "superseded"
    assert active_facts(db) == ["6381"] and latest["status"] == "active"


def test_contest_policy_contests_instead(
    db_url: str, make_client: Callable[..., TestClient], db: Database
) -> None:
    client = make_client(make_settings(db_url, policy={"contradiction_policy": "contest"}))
    old = observe(client, "6379")
    new = observe(client, "6380")
    was = get(client, old["id"])
    assert was["status"] == "contested" and was["payload"]["revision"]["status"] == "contested"
    assert [a["action"] for a in audit(client, old["id"])] == ["create", "contest"]
    assert get(client, new["id"])["status"] == "active"
    # an older-dated fact is still stored as superseded
    late = observe(client, "6378", timestamp="2020-01-01T00:00:00Z")
    assert late["status"] == "superseded"


def test_a_fact_above_the_writers_ceiling_is_neither_touched_nor_revealed(
    client: TestClient, db: Database
) -> None:
    hidden = observe(client, "6379", who="admin", sensitivity="hyper")
    mine = observe(client, "6380")  # the writer's ceiling is high
    assert mine["status"] == "active"
    assert [e for e in mine["edges"] if e["predicate"].startswith("contradict")] == []
    assert [a["action"] for a in audit(client, mine["id"])] == ["create"]
    with db.transaction() as s:
        row = s.get(RecordRow, hidden["id"])
        assert row is not None and row.status == "active"
    # a newer hidden fact does not make an older-dated visible one lose either
    newer_hidden = observe(
        client,
        "7000",
        subject="Kafka",
        who="admin",
        sensitivity="hyper",
        timestamp="2030-01-01T00:00:00Z",
    )
    old_mine = observe(client, "9092", subject="Kafka", timestamp="2020-01-01T00:00:00Z")
    assert old_mine["status"] == "active"
    assert get(client, newer_hidden["id"], who="admin")["status"] == "active"
    assert edges(db) == set()


def test_a_higher_writer_overturns_what_it_can_see(client: TestClient, db: Database) -> None:
    low = observe(client, "6379", sensitivity="low")
    high = observe(client, "6380", who="admin", sensitivity="hyper")
    assert get(client, low["id"])["status"] == "superseded"
    # the low reader sees the history, never the hyper record's id
    seen = get(client, low["id"], who="reader")
    assert seen["payload"]["revision"]["superseded_by"] is None
    assert high["id"] not in str(seen)
    trail = client.get(f"/v1/records/{low['id']}/audit", headers=auth("reader")).json()
    assert high["id"] not in str(trail)


def test_validity_windows_close_at_the_newer_fact(client: TestClient) -> None:
    body = {
        "payload": {
            "kind": "semantic",
            "subject": "Redis",
            "predicate": "runs_on_port",
            "object": "6379",
            "validity": {"start": "2024-01-01T00:00:00Z"},
            "evidence": [{"kind": "url", "ref": "https://example.org/ops"}],
        },
        "scope": "ops",
    }
    r = client.post("/v1/records", json=body, headers=W)
    assert r.status_code == 201, r.text
    old = r.json()
    observe(client, "6380", timestamp="2025-03-01T12:00:00Z")
    was = get(client, old["id"])
    assert was["status"] == "superseded"
    assert was["payload"]["validity"]["end"].startswith("2025-03-01T12:00:00")


def test_inside_a_batch_the_later_fact_wins(client: TestClient, db: Database) -> None:
    def item(obj: str) -> dict[str, Any]:
        content = {"subject": "Redis", "predicate": "runs_on_port", "object": obj}
        return {"source": "a", "source_kind": "observation", "content": content, "scope": "ops"}

    bad = {"source": "a", "source_kind": "observation", "scope": 7}
    r = client.post(
        "/v1/capture/batch", json={"items": [item("1"), item("2"), bad, item("3")]}, headers=W
    )
    assert r.status_code == 200, r.text
    assert [i["status"] for i in r.json()["results"]] == [201, 201, 422, 201]
    assert active_facts(db) == ["3"]
    with db.transaction() as s:
        rows = s.scalars(select(RecordRow).where(RecordRow.type == "semantic"))
        assert sorted((str(x.payload["object"]), x.status) for x in rows) == [
            ("1", "superseded"),
            ("2", "superseded"),
            ("3", "active"),
        ]
    assert len(edges(db)) == 4  # 3 contradicts 2, 2 contradicts 1, with inverses


def test_concurrent_contradicting_captures_leave_one_active_fact(
    client: TestClient, db: Database
) -> None:
    barrier = threading.Barrier(6)
    codes: list[int] = []

    def attempt(i: int) -> None:
        body = {
            "source": "a",
            "source_kind": "observation",
            "content": {"subject": "Redis", "predicate": "runs_on_port", "object": str(i)},
            "scope": "ops",
        }
        barrier.wait()
        codes.append(client.post("/v1/capture", json=body, headers=W).status_code)

    threads = [threading.Thread(target=attempt, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert codes == [201] * 6
    assert len(active_facts(db)) == 1


def test_concurrent_facts_without_entity_locks_leave_one_active(
    settings: Settings, db: Database
) -> None:
    """Consolidation and interpretation create facts without capture's name locks: the
    fact key's own lock serializes them."""
    policy = PolicyEngine(settings)
    trust = TrustContext(ceiling=Sensitivity.hyper, actor_id="system:test")
    barrier = threading.Barrier(5)
    errors: list[BaseException] = []

    def create(i: int) -> None:
        spec = RecordCreate.model_validate(
            {
                "payload": {
                    "kind": "semantic",
                    "subject": "Redis",
                    "predicate": "runs_on_port",
                    "object": str(i),
                },
                "scope": "ops",
            }
        )
        barrier.wait()
        try:
            with db.transaction() as session:
                RecordService(session, policy, settles_facts=True).create(spec, trust)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=create, args=(i,)) for i in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(active_facts(db)) == 1


def test_typed_creation_leaves_contradictions_to_the_caller(
    client: TestClient, db: Database
) -> None:
    for obj in ("6379", "6380"):
        payload = {
            "kind": "semantic",
            "subject": "Redis",
            "predicate": "runs_on_port",
            "object": obj,
        }
        r = client.post("/v1/records", json={"payload": payload, "scope": "ops"}, headers=W)
        assert r.status_code == 201, r.text
    assert sorted(active_facts(db)) == ["6379", "6380"]


def test_event_time_rules() -> None:
    stored = 1000.0
    assert fact_time({}, {}, stored) == stored
    stamped = {"sources": [{"timestamp": "1970-01-01T00:01:40Z"}, {"kind": "x"}]}
    assert fact_time({}, stamped, stored) == 100.0
    dated = {"validity": {"start": "1970-01-01T00:00:10Z"}}
    assert fact_time(dated, stamped, stored) == 10.0
    timeline = {"timeline": [{"t": "1970-01-01T00:00:05Z"}]}
    assert episode_time(timeline, {}, stored) == 5.0
    assert episode_time({}, stamped, stored) == 100.0
    assert same_object("A  b", "a b") and same_object(6379, "6379")
    assert not same_object([1], "1")
    assert same_object({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert closed_window({"mode": "global"}, 5.0) is None
    assert closed_window({"end": "1970-01-01T00:00:01Z"}, 5.0) is None
    window = closed_window({"start": "1970-01-01T00:00:01Z"}, 5.0)
    assert window is not None and str(window["end"]).startswith("1970-01-01T00:00:05")
