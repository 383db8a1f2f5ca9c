"""Principals, roles, narrowing, ceilings, scopes and redaction (DESIGN §5)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import auth

ENTITY = {"kind": "entity", "canonical_name": "Thing"}


def create(client: TestClient, who: str = "writer", **extra: Any) -> dict[str, Any]:
    r = client.post("/v1/records", json={"payload": ENTITY, **extra}, headers=auth(who))
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def test_missing_or_wrong_key_is_401(client: TestClient) -> None:
    r = client.get("/v1/records")
    assert r.status_code == 401
    assert r.headers["content-type"].startswith("application/problem+json")
    assert "Bearer" in r.headers["www-authenticate"]
    r = client.get("/v1/records", headers={"Authorization": "Bearer wrong"})
    assert r.status_code == 401
    r = client.get("/v1/records", headers={"Authorization": "Basic abc"})
    assert r.status_code == 401


def test_read_only_principal_cannot_write(client: TestClient) -> None:
    r = client.post("/v1/records", json={"payload": ENTITY}, headers=auth("reader"))
    assert r.status_code == 403
    r = client.post(
        "/v1/capture", json={"source": "a", "source_kind": "event"}, headers=auth("reader")
    )
    assert r.status_code == 403
    assert client.get("/v1/records", headers=auth("admin")).json()["items"] == []


def test_write_above_ceiling_or_outside_scope_is_403(client: TestClient) -> None:
    r = client.post(
        "/v1/records", json={"payload": ENTITY, "sensitivity": "hyper"}, headers=auth("writer")
    )
    assert r.status_code == 403
    r = client.post(
        "/v1/records", json={"payload": ENTITY, "scope": "team-b"}, headers=auth("team_a")
    )
    assert r.status_code == 403
    r = client.post("/v1/records", json={"payload": ENTITY}, headers=auth("team_a"))
    assert r.status_code == 403  # scoped principals must write into a scope
    assert create(client, "team_a", scope="team-a")["scope"] == "team-a"
    # narrowing applies to writes too
    r = client.post(
        "/v1/records",
        json={"payload": ENTITY, "sensitivity": "high"},
        headers={**auth("writer"), "X-Membrane-Max-Sensitivity": "medium"},
    )
    assert r.status_code == 403


def test_reads_follow_ceiling_redaction_and_403(client: TestClient) -> None:
    low = create(client, sensitivity="low")
    medium = create(client, sensitivity="medium")
    high = create(client, sensitivity="high")
    page = client.get("/v1/records", headers=auth("reader")).json()["items"]
    by_id = {i["id"]: i for i in page}
    assert set(by_id) == {low["id"], medium["id"]}  # high is invisible (two levels above)
    assert by_id[low["id"]]["redacted"] is False
    redacted = by_id[medium["id"]]
    assert redacted["redacted"] is True
    assert "payload" not in redacted and redacted["sensitivity"] == "medium"
    assert client.get(f"/v1/records/{low['id']}", headers=auth("reader")).status_code == 200
    r = client.get(f"/v1/records/{medium['id']}", headers=auth("reader"))
    assert r.status_code == 403
    # two levels above: as invisible by id as in lists (no existence oracle)
    assert client.get(f"/v1/records/{high['id']}", headers=auth("reader")).status_code == 404
    assert (
        client.get(f"/v1/records/{medium['id']}/audit", headers=auth("reader")).status_code == 403
    )


def test_narrowing_never_widens(client: TestClient) -> None:
    medium = create(client, sensitivity="medium")
    # reader (low) asking for high gets nothing more
    r = client.get(
        f"/v1/records/{medium['id']}",
        headers={**auth("reader"), "X-Membrane-Max-Sensitivity": "hyper"},
    )
    assert r.status_code == 403
    # writer (high) narrowing to public cannot read a low record
    low = create(client, sensitivity="low")
    r = client.get(
        f"/v1/records/{low['id']}",
        headers={**auth("writer"), "X-Membrane-Max-Sensitivity": "public"},
    )
    assert r.status_code == 403
    r = client.get(
        "/v1/records", headers={**auth("writer"), "X-Membrane-Max-Sensitivity": "public"}
    )
    items = r.json()["items"]
    assert {i["id"]: i["redacted"] for i in items} == {low["id"]: True}


def test_scopes_hide_records_and_unscoped_are_visible(client: TestClient) -> None:
    mine = create(client, scope="team-a")
    theirs = create(client, scope="team-b")
    shared = create(client)
    seen = {i["id"] for i in client.get("/v1/records", headers=auth("team_a")).json()["items"]}
    assert seen == {mine["id"], shared["id"]}
    assert client.get(f"/v1/records/{theirs['id']}", headers=auth("team_a")).status_code == 404
    # narrowing by header to a scope the principal lacks yields nothing new
    r = client.get("/v1/records", headers={**auth("team_a"), "X-Membrane-Scopes": "team-b"})
    assert {i["id"] for i in r.json()["items"]} == {shared["id"]}
    r = client.get("/v1/records", headers={**auth("writer"), "X-Membrane-Scopes": "team-b"})
    assert {i["id"] for i in r.json()["items"]} == {theirs["id"], shared["id"]}


def test_relations_hide_edges_to_unreadable_records(client: TestClient) -> None:
    secret = create(client, sensitivity="high")
    public = create(
        client, sensitivity="low", relations=[{"predicate": "part_of", "target_id": secret["id"]}]
    )
    rels = client.get(f"/v1/records/{public['id']}/relations", headers=auth("reader")).json()
    assert rels == {"outgoing": [], "incoming": []}
    rels = client.get(f"/v1/records/{public['id']}/relations", headers=auth("writer")).json()
    assert [e["target_id"] for e in rels["outgoing"]] == [secret["id"]]


def test_mutations_need_write_reach_over_the_target(client: TestClient) -> None:
    shared = create(client)  # unscoped: team_a can read it but not write outside team-a
    own = create(client, "team_a", scope="team-a")
    for path, body in (
        ("reinforce", {"rationale": "useful"}),
        ("penalize", {"amount": 0.1, "rationale": "noise"}),
        ("retract", {"rationale": "wrong"}),
    ):
        r = client.post(f"/v1/records/{shared['id']}/{path}", json=body, headers=auth("team_a"))
        assert r.status_code == 403, (path, r.text)
        r = client.post(f"/v1/records/{own['id']}/{path}", json=body, headers=auth("team_a"))
        assert r.status_code == 200, (path, r.text)
    assert client.delete(f"/v1/records/{shared['id']}", headers=auth("team_a")).status_code == 403
    trail = client.get(f"/v1/records/{shared['id']}/audit", headers=auth("admin")).json()["items"]
    assert [e["action"] for e in trail] == ["create"]


def test_capture_trust_checks(client: TestClient) -> None:
    r = client.post(
        "/v1/capture",
        json={"source": "a", "source_kind": "event", "scope": "team-b", "content": {"text": "x"}},
        headers=auth("team_a"),
    )
    assert r.status_code == 403
    assert client.get("/v1/records", headers=auth("admin")).json()["items"] == []
