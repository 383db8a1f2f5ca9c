"""Consolidation's duplicate check (`same_facts`): which stored facts an episode's
triples repeat, looked up for the whole episode at once, on both stores."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from app.config import Settings
from app.consolidation.fact_batch import FactBatch
from app.consolidation.repository import same_facts
from app.consolidation.service import SYSTEM_TRUST
from app.db import Database
from app.enums import Sensitivity
from app.records.payloads import SemanticPayload
from app.records.policy import PolicyEngine
from app.records.schemas import RecordCreate
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


def test_gathered_facts_are_written_before_a_look_up_they_could_change(
    client: TestClient, db: Database, settings: Settings
) -> None:
    """The semantic stage gathers a transaction's new facts (`FactBatch`); a look-up
    whose answer they could change first writes them: the same triple, or a fact that
    overturns a stored one (a single-valued predicate), and nothing else does."""
    paris = _fact(client, "alice", "paris", "team")
    with db.transaction() as session:
        facts = FactBatch(session, PolicyEngine(settings))
        with facts.gathered():
            for subject, obj, scope in (("bob", "rome", "elsewhere"), ("alice", "berlin", "team")):
                spec = RecordCreate(
                    payload=SemanticPayload(subject=subject, predicate="lives_in", object=obj),
                    scope=scope,
                    sensitivity=Sensitivity.low,
                )
                facts.create(spec, SYSTEM_TRUST, (scope, LOW), (subject, "lives_in", obj))
            facts.before_look_up("team", LOW, [("carol", "lives_in", "oslo")])
            assert same_facts(session, "elsewhere", LOW, [("bob", "lives_in", "rome")]) == {}
            facts.before_look_up("team", LOW, [("alice", "lives_in", "paris")])
            # written, and berlin, the newer, overturned paris: the look-up finds nothing
            assert same_facts(session, "team", LOW, [("alice", "lives_in", "paris")]) == {}
            assert set(same_facts(session, "elsewhere", LOW, [("bob", "lives_in", "rome")]))
    r = client.get(f"/v1/records/{paris}", headers=auth("reader"))
    assert r.status_code == 200 and r.json()["status"] == "superseded", r.text
