"""Consolidation's duplicate check (`same_facts`): which stored facts an episode's
triples repeat, looked up for the whole episode at once, on both stores."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from app.consolidation.repository import same_facts
from app.db import Database
from app.enums import Sensitivity
from tests.conftest import auth
from tests.lifecycle_support import create, semantic

LOW = Sensitivity.low.rank


def _fact(client: TestClient, subject: str, obj: str, scope: str, **fields: Any) -> str:
    rid: str = create(client, semantic(subject, obj), scope=scope, **fields)["id"]
    return rid


def test_each_triple_finds_the_oldest_live_fact_of_its_scope_and_sensitivity(
    client: TestClient, db: Database
) -> None:
    oldest = _fact(client, "alice", "paris", "team")
    _fact(client, "alice", "paris", "team")  # the same fact again, later
    bob = _fact(client, "bob", "paris", "team")  # same object, other subject
    _fact(client, "carol", "rome", "other-team")  # other scope
    _fact(client, "dave", "oslo", "team", sensitivity="medium")  # other sensitivity
    gone = _fact(client, "erin", "lima", "team")
    r = client.post(
        f"/v1/records/{gone}/retract", json={"rationale": "wrong"}, headers=auth("writer")
    )
    assert r.status_code == 200, r.text
    triples = [
        ("alice", "lives_in", "paris"),
        ("bob", "lives_in", "paris"),
        ("alice", "works_in", "paris"),  # other predicate: not stored
        ("carol", "lives_in", "rome"),
        ("dave", "lives_in", "oslo"),
        ("erin", "lives_in", "lima"),
    ]
    with db.read_transaction() as session:
        found = same_facts(session, "team", LOW, triples)
        elsewhere = same_facts(session, "other-team", LOW, triples)
        none = same_facts(session, "team", LOW, [])
    assert found == {("alice", "lives_in", "paris"): oldest, ("bob", "lives_in", "paris"): bob}
    assert set(elsewhere) == {("carol", "lives_in", "rome")}
    assert none == {}
