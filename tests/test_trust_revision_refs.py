"""A reader never sees the id of a record it cannot read, nor the rationale written about
it, in revision blocks or audit details (issue 36, finding 1; DESIGN §5)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import auth
from tests.lifecycle_support import semantic
from tests.side_door_support import side_auth, side_client

ADMIN = auth("admin")
LOW = side_auth("low_a")
SECRET = "moved to the classified ledger"


@pytest.fixture
def client(db_url: str, make_client: Callable[..., TestClient]) -> TestClient:
    return side_client(db_url, make_client)


def _fact(client: TestClient, obj: str, sensitivity: str) -> dict[str, Any]:
    body = {"payload": semantic(obj=obj), "scope": "project:a", "sensitivity": sensitivity}
    r = client.post("/v1/records", json=body, headers=ADMIN)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def _revise(client: TestClient, path: str, body: dict[str, Any]) -> dict[str, Any]:
    r = client.post(path, json={**body, "rationale": SECRET}, headers=ADMIN)
    assert r.status_code in (200, 201), r.text
    out: dict[str, Any] = r.json()
    return out


def _new(obj: str, sensitivity: str) -> dict[str, Any]:
    return {"payload": semantic(obj=obj), "sensitivity": sensitivity, "scope": "project:a"}


def _low_reads(client: TestClient, record_id: str) -> list[str]:
    """Every answer in which the low reader can meet `record_id`'s metadata."""
    answers = [
        client.get(f"/v1/records/{record_id}", headers=LOW),
        client.get(f"/v1/records/{record_id}/audit", headers=LOW),
        client.get(
            "/v1/records", params={"status": ["active", "superseded", "contested"]}, headers=LOW
        ),
        client.post(
            "/v1/retrieve",
            json={"query": "alice lives", "statuses": ["superseded", "contested", "active"]},
            headers=LOW,
        ),
        client.post(
            "/v1/retrieve/graph",
            json={"query": "alice lives", "statuses": ["superseded", "contested", "active"]},
            headers=LOW,
        ),
    ]
    for r in answers:
        assert r.status_code == 200, r.text
        assert record_id in r.text  # the reader does see the record itself
    return [r.text for r in answers]


def test_a_hidden_successor_is_not_named_to_a_reader_of_the_old_record(
    client: TestClient,
) -> None:
    old = _fact(client, "paris", "low")
    out = _revise(
        client, f"/v1/records/{old['id']}/supersede", {"new_record": _new("rome", "hyper")}
    )
    hidden = out["new_record"]["id"]
    assert out["old_record"]["payload"]["revision"]["superseded_by"] == hidden  # admin sees it
    for text in _low_reads(client, old["id"]):
        assert hidden not in text and SECRET not in text
    view = client.get(f"/v1/records/{old['id']}", headers=LOW).json()
    assert view["payload"]["revision"]["superseded_by"] is None
    entry = next(e for e in view["audit_log"] if e["action"] == "supersede")
    assert entry["rationale"] is None and entry["details"]["superseded_by"] is None
    assert entry["actor"] == "admin"  # what happened and who did it stay visible
    admin_view = client.get(f"/v1/records/{old['id']}/audit", headers=ADMIN).json()
    assert admin_view["items"][-1]["rationale"] == SECRET


def test_a_hidden_predecessor_is_not_named_to_a_reader_of_the_new_record(
    client: TestClient,
) -> None:
    old = _fact(client, "paris", "hyper")
    out = _revise(client, f"/v1/records/{old['id']}/supersede", {"new_record": _new("rome", "low")})
    new_id = out["new_record"]["id"]
    r = client.get(f"/v1/records/{new_id}", headers=LOW)
    assert r.status_code == 200 and old["id"] not in r.text and SECRET not in r.text
    assert r.json()["payload"]["revision"] == {
        "version": 2,
        "supersedes": None,
        "superseded_by": None,
    }


def test_merge_into_a_hidden_record_names_nothing(client: TestClient) -> None:
    a, b = _fact(client, "paris", "low"), _fact(client, "lyon", "low")
    out = _revise(
        client,
        "/v1/records/merge",
        {"ids": [a["id"], b["id"]], "merged_record": _new("rome", "hyper")},
    )
    hidden = out["merged_record"]["id"]
    for source in (a, b):
        for text in _low_reads(client, source["id"]):
            assert hidden not in text and SECRET not in text


def test_contest_by_a_hidden_record_names_nothing(client: TestClient) -> None:
    claim = _fact(client, "paris", "low")
    rival = _fact(client, "rome", "hyper")
    _revise(client, f"/v1/records/{claim['id']}/contest", {"contesting_ref": rival["id"]})
    for text in _low_reads(client, claim["id"]):
        assert rival["id"] not in text and SECRET not in text
    entry = client.get(f"/v1/records/{claim['id']}/audit", headers=LOW).json()["items"][-1]
    assert entry["details"]["contesting_ref"] is None and entry["details"]["contesting_is_record"]


def test_fork_into_a_hidden_record_names_nothing(client: TestClient) -> None:
    source = _fact(client, "paris", "low")
    out = _revise(
        client, f"/v1/records/{source['id']}/fork", {"forked_record": _new("rome", "hyper")}
    )
    hidden = out["forked_record"]["id"]
    for text in _low_reads(client, source["id"]):
        assert hidden not in text and SECRET not in text


def test_readable_references_stay_as_they_were(client: TestClient) -> None:
    old = _fact(client, "paris", "low")
    out = _revise(client, f"/v1/records/{old['id']}/supersede", {"new_record": _new("rome", "low")})
    view = client.get(f"/v1/records/{old['id']}", headers=LOW).json()
    assert view["payload"]["revision"]["superseded_by"] == out["new_record"]["id"]
    entry = next(e for e in view["audit_log"] if e["action"] == "supersede")
    assert entry["rationale"] == SECRET
    assert entry["details"]["superseded_by"] == out["new_record"]["id"]
