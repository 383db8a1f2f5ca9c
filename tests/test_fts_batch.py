"""SQLite full text: a batch's records enter the index in one statement after their
INSERT (migration 0014), single writes through the trigger; either way the index holds
every record with its text and scope key, and finds it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.db import Database
from app.main import create_app
from app.retrieve.sqlite_text_repository import fts5_scope_key
from tests.conftest import auth, make_settings

W = auth("writer")


@pytest.fixture
def sqlite_client(sqlite_template: Path, tmp_path: Path) -> Iterator[tuple[TestClient, Database]]:
    target = tmp_path / "membrane.db"
    shutil.copyfile(sqlite_template, target)
    db = Database(f"sqlite:///{target}")
    with TestClient(create_app(make_settings(f"sqlite:///{target}"))) as client:
        yield client, db
    db.dispose()


def _event(summary: str, scope: str) -> dict[str, object]:
    return {"source": "t", "source_kind": "event", "summary": summary, "scope": scope}


def _index_matches_records(db: Database) -> int:
    with db.transaction() as s:
        records = s.execute(text("SELECT rowid, search_text, scope FROM records")).all()
        indexed = s.execute(text("SELECT rowid, search_text, scope_key FROM records_fts")).all()
        assert s.execute(text("SELECT count(*) FROM fts_deferred")).scalar() == 0
        s.execute(text("INSERT INTO records_fts(records_fts) VALUES ('integrity-check')"))
    expected = {(r, t, fts5_scope_key(scope or "")) for r, t, scope in records}
    assert set(indexed) == expected
    return len(indexed)


def test_batch_and_single_captures_are_indexed_alike(
    sqlite_client: tuple[TestClient, Database],
) -> None:
    client, db = sqlite_client
    words = ["amber", "basalt", "cobalt", "dolomite", "emerald", "feldspar", "garnet"]
    items = [_event(f"The {w} sample was logged", f"site-{i % 2}") for i, w in enumerate(words)]
    r = client.post("/v1/capture/batch", json={"items": items}, headers=W)
    assert r.status_code == 200 and r.json()["created"] == len(words)
    one = client.post(
        "/v1/capture", json=_event("The jasper sample was logged", "site-0"), headers=W
    )
    assert one.status_code == 201
    assert _index_matches_records(db) == len(words) + 1

    ids = [x["result"]["primary_record"]["id"] for x in r.json()["results"]]
    found = client.post(
        "/v1/retrieve", json={"query": "dolomite", "scopes": ["site-1"], "limit": 3}, headers=W
    )
    assert found.status_code == 200
    assert [i["record"]["id"] for i in found.json()["items"]][:1] == [ids[3]]
    elsewhere = client.post(
        "/v1/retrieve", json={"query": "dolomite", "scopes": ["site-0"], "limit": 3}, headers=W
    )
    assert ids[3] not in [i["record"]["id"] for i in elsewhere.json()["items"]]


def test_a_refused_batch_leaves_neither_records_nor_index_entries(
    sqlite_client: tuple[TestClient, Database],
) -> None:
    """A batch whose final write fails stores nothing (the mark and the index rows go with
    its transaction); the next batch is indexed in full."""
    client, db = sqlite_client
    with db.transaction() as s:  # the third item is refused at the final INSERT
        s.execute(text("CREATE TRIGGER refuse BEFORE INSERT ON records "
                       "WHEN new.search_text LIKE '%refused%' BEGIN "
                       "SELECT RAISE(ABORT, 'refused by test'); END"))  # fmt: skip
    items = [_event(f"item {i} {'refused' if i == 2 else 'kept'}", "s") for i in range(5)]
    with pytest.raises(Exception, match="refused by test"):
        client.post("/v1/capture/batch", json={"items": items}, headers=W)
    assert _index_matches_records(db) == 0
    with db.transaction() as s:
        s.execute(text("DROP TRIGGER refuse"))
    r = client.post("/v1/capture/batch", json={"items": items}, headers=W)
    assert r.status_code == 200
    assert _index_matches_records(db) == 5
