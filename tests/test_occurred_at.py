"""An episode's event time is stored when it is written (records.occurred_at, migration
0016) and ranking reads it from there; where it is not stored (a row of the previous
release, a payload rewritten) ranking reads the payload, as before."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.clock import epoch_of
from app.records import repository as record_repo
from tests.conftest import app_state, auth
from tests.test_sittings import ask, capture


def _stored(client: TestClient) -> dict[str, tuple[str, float | None, float]]:
    with app_state(client).db.read_transaction() as s:
        rows = s.execute(text("SELECT id, type, occurred_at, created_at FROM records"))
        return {rid: (typ, at, created) for rid, typ, at, created in rows}


def _relevance(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item["components"].items() if k != "salience"}


def _set(client: TestClient, sql: str, **params: Any) -> None:
    with app_state(client).db.transaction() as s:
        s.execute(text(sql), params)


def test_an_episode_stores_when_it_happened(client: TestClient) -> None:
    dated = capture(client, "we will paint the garden fence", "2026-03-02T10:00:00Z")
    undated = capture(client, "the paint was cheap", None)
    fact = {
        "source": "agent",
        "source_kind": "observation",
        "content": {"subject": "fence", "predicate": "has_colour", "object": "green"},
    }
    r = client.post("/v1/capture", json=fact, headers=auth("writer"))
    assert r.status_code == 201, r.text
    stored = _stored(client)
    assert stored[dated][:2] == ("episodic", epoch_of("2026-03-02T10:00:00Z"))
    typ, at, created = stored[undated]
    assert typ == "episodic" and at == created  # captured as it happened
    others = [at for rid, (typ, at, _) in stored.items() if typ != "episodic"]
    assert others and all(at is None for at in others)


def test_ranking_reads_the_stored_time_and_the_payload_where_none_is_stored(
    client: TestClient,
) -> None:
    same = capture(client, "the paint was cheap", "2026-03-02T10:10:00Z")
    hit = capture(client, "we will paint the garden fence", "2026-03-02T10:00:00Z")
    later = capture(client, "the paint was cheap", "2026-03-02T14:00:00Z")
    before = ask(client)
    assert list(before) == [hit, same, later]  # `same` shares the hit's sitting

    _set(client, "UPDATE records SET occurred_at = NULL")  # as the previous release left them
    unstored = ask(client)
    assert list(unstored) == list(before)
    for rid, item in before.items():  # salience aside: it decays between the two asks
        assert _relevance(unstored[rid]) == _relevance(item)

    # The stored time is what counts: moved an hour on, `same` leaves the hit's sitting.
    moved = epoch_of("2026-03-02T11:10:00Z")
    _set(client, "UPDATE records SET occurred_at = :at WHERE id = :id", at=moved, id=same)
    apart = ask(client)
    assert apart[same]["components"]["context"] < before[same]["components"]["context"]


@pytest.mark.parametrize("how", ["set_payload", "set_fields"])
def test_a_rewritten_payload_clears_the_stored_time(client: TestClient, how: str) -> None:
    rid = capture(client, "we will paint the garden fence", "2026-03-02T10:00:00Z")
    db = app_state(client).db
    with db.transaction() as s:
        row = record_repo.get(s, rid)
        assert row is not None and row.occurred_at == epoch_of("2026-03-02T10:00:00Z")
        payload = {**row.payload, "summary": "we painted the garden fence"}
        if how == "set_payload":
            record_repo.set_payload(s, rid, payload, row.updated_at)
        else:
            record_repo.set_fields(s, row, payload=payload)
            assert row.occurred_at is None
    assert _stored(client)[rid][1] is None
    items = ask(client)  # read from the payload again: still ranked, with its time
    assert rid in items
