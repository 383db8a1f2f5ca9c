"""POST /v1/forget (issue 34): everything a filter names goes, with its edges, vectors and
entity links, and nothing else; trust holds; erase leaves no content anywhere; dry runs
change nothing; a retried request replays. Both stores."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, or_, select, text

from app import cli
from app.db import Database
from app.models import AuditRow, Base, EmbeddingRow, EntityTermRow, RecordRow, RelationRow
from tests.conftest import KEYS, auth, make_settings
from tests.live_support import live_server

W = auth("writer")
SECRET = "zanzibarquokka"


def capture(client: TestClient, who: str = "writer", **body: Any) -> dict[str, Any]:
    body.setdefault("source", "agent-1")
    body.setdefault("source_kind", "event")
    r = client.post("/v1/capture", json=body, headers=auth(who))
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def forget(
    client: TestClient, who: str = "writer", headers: dict[str, str] | None = None, **body: Any
) -> Any:
    return client.post("/v1/forget", json=body, headers={**auth(who), **(headers or {})})


def ids_of(out: dict[str, Any]) -> list[str]:
    return [out["primary_record"]["id"], *(r["id"] for r in out["created_records"])]


def snapshot(db: Database) -> dict[str, Any]:
    """Every row of the tables forgetting touches, for 'nothing else changed'."""
    with db.transaction() as s:
        return {
            "records": sorted(
                (r.id, r.status, r.updated_at, r.search_text) for r in s.scalars(select(RecordRow))
            ),
            "edges": sorted(
                (e.source_id, e.predicate, e.target_id) for e in s.scalars(select(RelationRow))
            ),
            "audit": s.scalar(select(func.count()).select_from(AuditRow)),
            "vectors": s.scalar(select(func.count()).select_from(EmbeddingRow)),
        }


def add_vectors(db: Database, ids: list[str]) -> None:
    with db.transaction() as s:
        for rid in ids:
            s.add(EmbeddingRow(record_id=rid, model="test", vector=b"\0" * 16))


def alice_and_bob(client: TestClient, db: Database) -> tuple[list[str], list[str]]:
    alice: list[str] = []
    alice += ids_of(capture(client, content={"text": "Alice likes green tea"}, scope="user:alice"))
    alice += ids_of(
        capture(
            client,
            source_kind="observation",
            content={"subject": "Alice", "predicate": "lives_in", "object": "Lyon"},
            scope="user:alice",
        )
    )
    bob = ids_of(capture(client, content={"text": "Bob plays chess"}, scope="user:bob"))
    # an edge from Bob's scope into Alice's: it must not outlive its target
    r = client.post(
        "/v1/records",
        json={
            "payload": {"kind": "episodic", "summary": "Bob met Alice"},
            "scope": "user:bob",
            "relations": [{"predicate": "related_to", "target_id": alice[0]}],
        },
        headers=W,
    )
    assert r.status_code == 201, r.text
    bob.append(r.json()["id"])
    add_vectors(db, alice + bob)
    return alice, bob


def test_everything_matching_goes_and_nothing_else(client: TestClient, db: Database) -> None:
    alice, bob = alice_and_bob(client, db)
    with db.transaction() as s:
        bob_edges_before = sorted(
            (e.source_id, e.predicate, e.target_id)
            for e in s.scalars(select(RelationRow).where(RelationRow.source_id.in_(bob)))
            if e.target_id not in alice
        )
    bob_before = [client.get(f"/v1/records/{i}", headers=W).json() for i in bob]
    r = forget(client, scope="user:alice", rationale="user asked")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["records"] == len(alice) and body["kept"] == 0
    assert body["dry_run"] is False and body["erase"] is False and body["edges"] > 0
    for rid in alice:
        assert client.get(f"/v1/records/{rid}", headers=W).status_code == 404
        trail = client.get(f"/v1/records/{rid}/audit", headers=W).json()["items"]
        assert trail[-1]["action"] == "delete" and trail[-1]["rationale"] == "user asked"
    listed = client.get("/v1/records", params={"scope": "user:alice"}, headers=W).json()
    assert listed["items"] == []
    found = client.post("/v1/retrieve", json={"query": "Alice tea Lyon"}, headers=W).json()
    assert not {i["record"]["id"] for i in found["items"]} & set(alice)
    with db.transaction() as s:
        assert s.scalar(select(func.count()).where(RecordRow.scope == "user:alice")) == 0
        assert (
            s.scalar(
                select(func.count()).where(
                    or_(RelationRow.source_id.in_(alice), RelationRow.target_id.in_(alice))
                )
            )
            == 0
        )
        assert s.scalar(select(func.count()).where(EmbeddingRow.record_id.in_(alice))) == 0
        assert s.scalar(select(func.count()).where(EntityTermRow.record_id.in_(alice))) == 0
        assert s.scalar(select(func.count()).where(EmbeddingRow.record_id.in_(bob))) == len(bob)
        bob_edges_after = sorted(
            (e.source_id, e.predicate, e.target_id)
            for e in s.scalars(select(RelationRow).where(RelationRow.source_id.in_(bob)))
        )
    assert bob_edges_after == bob_edges_before
    after = [client.get(f"/v1/records/{i}", headers=W).json() for i in bob]
    assert [_steady(b) for b in after] == [
        _steady({**b, "relations": [x for x in b["relations"] if x["target_id"] not in alice]})
        for b in bob_before
    ]


def test_no_row_is_left_referring_to_a_forgotten_record(client: TestClient, db: Database) -> None:
    """Pages delete every dependent row themselves (SQLite runs them without cascades):
    no table with a foreign key to records keeps an orphan, and the connection's foreign
    keys are on again for the next transaction."""
    alice_and_bob(client, db)
    assert forget(client, scope="user:alice").status_code == 200
    with db.transaction() as s:
        for table in Base.metadata.sorted_tables:
            for fk in table.foreign_keys:
                if fk.column.table.name != "records":
                    continue
                orphans = select(func.count()).where(
                    fk.parent.not_in(select(RecordRow.id)), fk.parent.is_not(None)
                )
                assert s.scalar(orphans) == 0, table.name
        if db.dialect == "sqlite":
            assert s.execute(text("PRAGMA foreign_key_check")).all() == []
            assert s.execute(text("PRAGMA foreign_keys")).scalar() == 1


def _steady(record: dict[str, Any]) -> dict[str, Any]:
    """A record's view without what the clock changes between two reads."""
    return {k: v for k, v in record.items() if k != "salience"}


def test_filters_narrow_what_goes(client: TestClient, db: Database) -> None:
    kept = capture(client, content={"text": "keep me"}, scope="s", tags=["work"])
    gone = capture(client, content={"text": "forget me"}, scope="s", tags=["pii", "work"])
    fact = capture(
        client,
        source_kind="observation",
        content={"subject": "Carol", "predicate": "owns", "object": "a boat"},
        scope="s",
    )
    assert forget(client, scope="s", tags=["pii"]).json()["records"] == 1
    assert client.get(f"/v1/records/{gone['primary_record']['id']}", headers=W).status_code == 404
    # the entity filter: Carol and what is about her; the untagged keeper stays
    carol = next(r for r in fact["created_records"] if r["type"] == "entity")
    out = forget(client, scope="s", entity=carol["id"]).json()
    assert out["records"] == 3  # the entity, the observation that mentions it, the fact
    assert client.get(f"/v1/records/{kept['primary_record']['id']}", headers=W).status_code == 200
    assert forget(client, scope="s", types=["semantic"]).json()["records"] == 0
    later = forget(client, scope="s", created_after="2999-01-01T00:00:00Z").json()
    assert later["records"] == 0
    assert forget(client, scope="s", created_before="2999-01-01T00:00:00Z").json()["records"] == 1


def test_a_narrower_principal_cannot_forget_outside_its_scope(
    client: TestClient, db: Database
) -> None:
    alice_and_bob(client, db)
    before = snapshot(db)
    r = forget(client, "team_a", scope="user:alice")
    assert r.status_code == 403 and r.headers["content-type"] == "application/problem+json"
    assert forget(client, "team_a").status_code == 403  # no scope: admins only
    assert forget(client, "writer").status_code == 403
    narrowed = forget(
        client, "writer", headers={"X-Membrane-Scopes": "user:bob"}, scope="user:alice"
    )
    assert narrowed.status_code == 403
    assert forget(client, "reader", scope="user:alice").status_code == 403  # no write role
    assert snapshot(db) == before


def test_records_beyond_the_callers_reach_are_neither_deleted_nor_counted(
    client: TestClient, db: Database
) -> None:
    hidden = capture(
        client, "admin", content={"text": "hyper note"}, scope="p", sensitivity="hyper"
    )
    mine = capture(client, content={"text": "my note"}, scope="p")
    unscoped = capture(client, "admin", content={"text": "anyone's note"})
    out = forget(client, scope="p").json()
    assert (out["records"], out["kept"]) == (1, 0)
    with db.transaction() as s:
        assert s.get(RecordRow, hidden["primary_record"]["id"]) is not None
        assert s.get(RecordRow, mine["primary_record"]["id"]) is None
    # an admin narrowed to a scope forgets in it only, never the unscoped records
    narrowed = forget(client, "admin", headers={"X-Membrane-Scopes": "p"}).json()
    assert narrowed["records"] == 1
    with db.transaction() as s:
        assert s.get(RecordRow, unscoped["primary_record"]["id"]) is not None
    everything = forget(client, "admin").json()
    assert everything["records"] == 1
    with db.transaction() as s:
        assert s.scalar(select(func.count()).select_from(RecordRow)) == 0


def test_never_records_stay_and_are_counted(client: TestClient) -> None:
    r = client.post(
        "/v1/records",
        json={
            "payload": {"kind": "episodic", "summary": "keep forever"},
            "scope": "s",
            "lifecycle": {"deletion_policy": "never"},
        },
        headers=W,
    )
    assert r.status_code == 201, r.text
    capture(client, content={"text": "ephemeral"}, scope="s")
    assert forget(client, scope="s", dry_run=True).json()["kept"] == 1
    out = forget(client, scope="s").json()
    assert (out["records"], out["kept"]) == (1, 1)
    assert client.get(f"/v1/records/{r.json()['id']}", headers=W).status_code == 200


def test_dry_run_changes_nothing(client: TestClient, db: Database) -> None:
    alice, _ = alice_and_bob(client, db)
    before = snapshot(db)
    dry = forget(client, scope="user:alice", dry_run=True, erase=True)
    assert dry.status_code == 200, dry.text
    assert snapshot(db) == before
    real = forget(client, scope="user:alice").json()
    assert (dry.json()["records"], dry.json()["edges"]) == (real["records"], real["edges"])
    assert dry.json()["records"] == len(alice) and dry.json()["dry_run"] is True


def test_a_retried_request_replays(client: TestClient, db: Database) -> None:
    alice_and_bob(client, db)
    key = {"Idempotency-Key": "forget-alice-1"}
    first = forget(client, headers=key, scope="user:alice")
    assert first.status_code == 200, first.text
    capture(client, content={"text": "new after the forget"}, scope="user:alice")
    again = forget(client, headers=key, scope="user:alice")
    assert again.status_code == 200 and again.json() == first.json()
    assert again.headers.get("Idempotent-Replayed") == "true"
    listed = client.get("/v1/records", params={"scope": "user:alice"}, headers=W).json()
    assert len(listed["items"]) == 1  # the replay deleted nothing
    other = forget(client, headers=key, scope="user:bob")
    assert other.status_code == 422


def test_bad_input_is_refused_and_changes_nothing(client: TestClient, db: Database) -> None:
    alice_and_bob(client, db)
    before = snapshot(db)
    for body in (
        {
            "scope": "user:alice",
            "created_after": "2025-01-02T00:00:00Z",
            "created_before": "2025-01-01T00:00:00Z",
        },
        {"scope": "user:alice", "what": 1},
        {"scope": "user:alice", "types": ["nope"]},
        {"scope": "user:alice", "entity": "not-an-id"},
        {"scope": "user:alice", "entity": "00000000-0000-4000-8000-000000000000"},
        {"scope": ""},
    ):
        r = client.post("/v1/forget", json=body, headers=W)
        assert r.status_code == 422, (body, r.text)
        assert r.headers["content-type"] == "application/problem+json"
    assert snapshot(db) == before


def test_erase_leaves_no_content_anywhere(client: TestClient, db: Database) -> None:
    body = {
        "source": "agent-1",
        "source_kind": "observation",
        "content": {"subject": "Dana", "predicate": "code", "object": f"{SECRET}-42"},
        "summary": f"Dana's {SECRET} code",
        "scope": "user:dana",
        "tags": ["pii"],
    }
    keyed = {**W, "Idempotency-Key": "capture-dana-1"}
    r = client.post("/v1/capture", json=body, headers=keyed)
    assert r.status_code == 201, r.text
    question = capture(
        client,
        content={"speaker": "Dana", "text": f"What is the {SECRET} code?"},
        scope="user:dana",
        tags=["pii"],
    )
    # the next turn borrows the question's words for its search text
    reply = capture(
        client, content={"speaker": "Eve", "text": "It is written on the box."}, scope="user:dana"
    )
    reply_id = reply["primary_record"]["id"]
    assert (
        reply["primary_record"]["interpretation"]["questions_from"]
        == question["primary_record"]["id"]
    )
    assert _holding(db, SECRET)  # before: the words are in the store
    out = forget(client, scope="user:dana", tags=["pii"], erase=True, rationale=f"{SECRET} gone")
    assert out.status_code == 200, out.text
    assert out.json()["audit_entries_erased"] > 0
    assert _holding(db, SECRET) == []
    for rid in [question["primary_record"]["id"], r.json()["primary_record"]["id"]]:
        for entry in _audit(db, rid):
            assert entry.rationale is None and entry.details in ({}, {"erased": True})
    with db.transaction() as s:
        assert s.get(RecordRow, reply_id) is not None  # not tagged: stays, without the words
    # the capture's kept answer no longer replays the erased content
    again = client.post("/v1/capture", json=body, headers=keyed)
    assert again.status_code == 410 and SECRET not in again.text


def _audit(db: Database, record_id: str) -> list[AuditRow]:
    with db.transaction() as s:
        return list(s.scalars(select(AuditRow).where(AuditRow.record_id == record_id)))


def _holding(db: Database, word: str) -> list[str]:
    """The tables with a row holding `word` anywhere (every column, as text or bytes)."""
    found: list[str] = []
    with db.transaction() as s:
        if s.get_bind().dialect.name == "sqlite":
            tables = s.execute(text("SELECT name FROM sqlite_master WHERE type = 'table'"))
            for (name,) in list(tables):
                for row in s.execute(text(f'SELECT * FROM "{name}"')):
                    if any(_holds(v, word) for v in row):
                        found.append(name)
                        break
        else:
            tables = s.execute(
                text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
            )
            for (name,) in list(tables):
                hit = s.scalar(
                    text(f'SELECT count(*) FROM "{name}" t WHERE t::text ILIKE :w'),
                    {"w": f"%{word}%"},
                )
                if hit:
                    found.append(name)
    return found


def _holds(value: object, word: str) -> bool:
    if isinstance(value, bytes):
        return word.encode() in value.lower()
    return isinstance(value, str) and word in value.lower()


def test_the_cli_forgets_a_scope(
    sqlite_template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "membrane.db"
    shutil.copyfile(sqlite_template, database)
    with live_server(make_settings(f"sqlite:///{database}")) as url:
        body = {"source": "cli", "source_kind": "event", "summary": "a note", "scope": "s"}
        assert httpx.post(f"{url}/v1/capture", json=body, headers=W).status_code == 201
        base = ["forget", "--url", url, "--api-key", KEYS["writer"][0]]
        cli.main([*base, "--scope", "s", "--dry-run"])
        dry = json.loads(capsys.readouterr().out)
        cli.main([*base, "--scope", "s", "--idempotency-key", "k1"])
        done = json.loads(capsys.readouterr().out)
        with pytest.raises(SystemExit) as refused:
            cli.main(base)  # no scope, and the writer is no admin
    assert (dry["records"], dry["dry_run"]) == (1, True)
    assert (done["records"], done["dry_run"]) == (1, False)
    assert "HTTP 403" in str(refused.value)
