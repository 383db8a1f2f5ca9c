"""Import checks every line against the importer's trust and the store before writing,
bounds every number, and lands whole or not at all (issue 36, findings 2, 4 and 5)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db import Database
from app.models import AuditRow, RecordRow, RelationRow
from app.transfer import repository as transfer_repo
from tests.conftest import auth
from tests.side_door_support import side_auth, side_client

ADMIN = auth("admin")
SCOPED = {**side_auth("scoped_admin"), "Content-Type": "application/x-ndjson"}
NOTE = {"kind": "entity", "canonical_name": "Ledger"}


@pytest.fixture
def client(db_url: str, make_client: Callable[..., TestClient]) -> TestClient:
    return side_client(db_url, make_client)


def _create(client: TestClient, sensitivity: str, scope: str = "project:a") -> str:
    body = {"payload": NOTE, "sensitivity": sensitivity, "scope": scope}
    r = client.post("/v1/records", json=body, headers=ADMIN)
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def _record_line(client: TestClient) -> dict[str, Any]:
    """A valid low record line of project:a (taken from a real export), under a new id."""
    rid = _create(client, "low")
    lines = [json.loads(x) for x in client.get("/v1/export", headers=ADMIN).text.splitlines()]
    line = next(x for x in lines if x["kind"] == "record" and x["id"] == rid)
    return {**line, "id": str(uuid.uuid4())}


def _file(*lines: dict[str, Any]) -> bytes:
    counts: dict[str, int] = {}
    for line in lines:
        counts[line["kind"]] = counts.get(line["kind"], 0) + 1
    header = {"kind": "header", "format": "membrane-export", "exported_at": "2026-11-26T00:00:00Z"}
    out = [header, *lines, {"kind": "end", "counts": counts}]
    return b"".join(json.dumps(x).encode() + b"\n" for x in out)


def _edge(source: str, target: str, **extra: Any) -> dict[str, Any]:
    return {"kind": "relation", "source_id": source, "predicate": "related_to"} | {
        "target_id": target,
        "weight": 1.0,
        "created_at": 1_790_000_000.0,
        **extra,
    }


def _audit(record_id: str) -> dict[str, Any]:
    return {"kind": "audit", "record_id": record_id, "action": "create"} | {
        "actor": "forged-admin",
        "timestamp": 1_790_000_000.0,
    }


def _counts(db: Database) -> tuple[int, int, int]:
    with db.read_transaction() as s:
        return tuple(  # type: ignore[return-value]
            int(s.scalar(select(func.count()).select_from(m)) or 0)
            for m in (RecordRow, RelationRow, AuditRow)
        )


def _import(client: TestClient, data: bytes) -> Any:
    return client.post("/v1/import", content=data, headers=SCOPED)


def _errors(r: Any) -> list[dict[str, Any]]:
    assert r.status_code == 422, r.text
    errors: list[dict[str, Any]] = r.json()["errors"]
    return errors


def test_an_import_never_writes_onto_a_record_the_importer_cannot_see(
    client: TestClient, db: Database
) -> None:
    hidden = _create(client, "hyper")
    visible = _create(client, "low")
    line = _record_line(client)
    before = _counts(db)
    onto_hidden = _import(
        client, _file({**line, "id": hidden}, _edge(hidden, visible), _audit(hidden))
    )
    # A record the importer can see, but the line says another sensitivity: a conflict.
    onto_visible = _import(client, _file({**line, "id": visible, "sensitivity": "public"}))
    hidden_errors, visible_errors = _errors(onto_hidden), _errors(onto_visible)
    assert [e["type"] for e in hidden_errors] == ["id_conflict"]
    assert [e["type"] for e in visible_errors] == ["id_conflict"]
    # The same answer, but for the id: whether the taken id is hidden does not show.
    assert hidden_errors[0]["msg"].replace(hidden, "X") == visible_errors[0]["msg"].replace(
        visible, "X"
    )
    # Rows naming the hidden record without its record line: as if it did not exist.
    rows_only = _errors(_import(client, _file(_edge(hidden, visible), _audit(hidden))))
    nowhere = str(uuid.uuid4())
    rows_nowhere = _errors(_import(client, _file(_edge(nowhere, visible), _audit(nowhere))))
    assert [e["type"] for e in rows_only] == [e["type"] for e in rows_nowhere]
    assert {e["type"] for e in rows_only} == {"dangling_reference"}
    assert _counts(db) == before
    trail = client.get(f"/v1/records/{hidden}/audit", headers=ADMIN).json()["items"]
    assert [e["actor"] for e in trail] == ["admin"]


def test_the_same_record_again_is_skipped(client: TestClient, db: Database) -> None:
    line = _record_line(client)
    assert _import(client, _file(line)).json()["created"]["records"] == 1
    again = _import(client, _file(line))
    assert again.status_code == 200 and again.json()["skipped"]["records"] == 1


@pytest.mark.parametrize(
    ("change", "kind"),
    [
        ({"created_at": 1e308}, "schema_violation"),
        ({"updated_at": 1e20}, "schema_violation"),
        ({"id": "../../etc/passwd"}, "schema_violation"),
        ({"type": "entity", "payload": {"kind": "semantic", "subject": "a"}}, "payload_kind"),
        ({"payload": {"kind": "entity", "canonical_name": "x", "aliases": "x"}}, "payload_invalid"),
    ],
)
def test_a_bad_record_line_is_refused_and_nothing_is_written(
    client: TestClient, db: Database, change: dict[str, Any], kind: str
) -> None:
    good, bad = _record_line(client), _record_line(client)
    before = _counts(db)
    errors = _errors(_import(client, _file(good, {**bad, **change})))
    assert [(e["line"], e["type"]) for e in errors] == [(3, kind)]
    assert _counts(db) == before
    # Every read still answers.
    assert client.get("/v1/records", headers=ADMIN).status_code == 200
    assert client.post("/v1/retrieve", json={"query": "Ledger"}, headers=ADMIN).status_code == 200


def test_row_ids_beyond_64_bits_are_refused_before_anything_is_written(
    client: TestClient, db: Database
) -> None:
    line = _record_line(client)
    before = _counts(db)
    errors = _errors(_import(client, _file(line, _edge(line["id"], line["id"], id=2**63))))
    assert [(e["line"], e["type"]) for e in errors] == [(3, "schema_violation")]
    assert _counts(db) == before


def test_edges_to_nothing_or_to_hidden_records_are_skipped_not_written(
    client: TestClient, db: Database
) -> None:
    hidden = _create(client, "hyper")
    line = _record_line(client)
    data = _file(
        line,
        _edge(line["id"], str(uuid.uuid4())),
        _edge(line["id"], hidden, predicate="supersedes"),
        _edge(line["id"], "not-a-record", predicate="related_to", created_at=1.0),
        _edge(line["id"], "https://tracker.example/7", predicate="contested_by"),
    )
    r = _import(client, data)
    assert r.status_code == 200, r.text
    assert (r.json()["created"]["relations"], r.json()["skipped"]["relations"]) == (1, 3)
    with db.read_transaction() as s:
        targets = set(s.scalars(select(RelationRow.target_id)))
    assert targets == {"https://tracker.example/7"}


def test_an_import_that_fails_while_writing_leaves_nothing_behind(
    client: TestClient, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    line = _record_line(client)
    before = _counts(db)

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("disk gone")

    monkeypatch.setattr(transfer_repo, "insert_rows", broken)
    failing = TestClient(client.app, raise_server_exceptions=False)  # the app already runs
    r = failing.post("/v1/import", content=_file(line, _audit(line["id"])), headers=SCOPED)
    assert r.status_code == 500
    assert _counts(db) == before  # the record line written first was rolled back
