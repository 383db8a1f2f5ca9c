"""The episodes' own index (migration 0017: (scope, created_at, id) WHERE type =
'episodic') serves the statements that walk a scope's episodes in time: a query
retrieve's look-ups of its hits' temporal neighbours, and a capture's look-up of its
scope's latest episode. Both stores, on the statements the service really runs (captured
as they execute), with statistics and, on SQLite, without any (a new store)."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import event, text
from sqlalchemy.engine import Engine

from app.db import Database
from tests.conftest import app_state, auth, make_settings

A = auth("admin")
NEAR = "WITH near AS MATERIALIZED"
LATEST = "SELECT records.id, records.payload, records.sensitivity, records.created_at"
INDEX = "ix_records_episodes"


@contextmanager
def _executed(engine: Engine) -> Iterator[list[tuple[str, Any]]]:
    """The (statement, parameters) the engine runs meanwhile."""
    seen: list[tuple[str, Any]] = []

    def keep(_c: Any, _cur: Any, statement: str, parameters: Any, *_rest: Any) -> None:
        seen.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", keep)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", keep)


def _store(client: TestClient) -> None:
    """240 episodes in twelve scopes (as a store of many agents' scopes, where a scope
    holds few of the records), a minute apart, with facts among them (records of another
    type in the same scopes and minutes)."""
    start = time.time() - 86_400
    items: list[dict[str, Any]] = []
    for i in range(240):
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start + 60 * i))
        scope = f"s{i % 12}"
        summary = f"the harbor lights at dusk, turn {i}"
        items.append({"source_kind": "event", "source": "t", "scope": scope,
                      "summary": summary, "timestamp": stamp})  # fmt: skip
        if i % 4 == 0:
            fact = {"subject": f"boat-{i}", "predicate": "moored_at", "object": "harbor"}
            items.append({"source_kind": "observation", "source": "t", "scope": scope,
                          "content": fact})  # fmt: skip
    r = client.post("/v1/capture/batch", json={"items": items}, headers=A)
    assert r.status_code == 200 and r.json()["failed"] == 0, r.text


def _statements(client: TestClient) -> tuple[tuple[str, Any], tuple[str, Any]]:
    """The neighbours' look-up of an all-scope query retrieve and the latest-episode
    look-up of a capture, as run."""
    with _executed(app_state(client).db.engine) as seen:
        r = client.post("/v1/retrieve", json={"query": "harbor lights dusk"}, headers=A)
        assert r.status_code == 200 and "context" in r.json()["signals"], r.text
        body = {"source_kind": "event", "source": "t", "scope": "s1", "summary": "a reply"}
        assert client.post("/v1/capture", json=body, headers=A).status_code == 201
    near = [s for s in seen if s[0].startswith(NEAR)]
    latest = [s for s in seen if s[0].startswith(LATEST) and "ORDER BY" in s[0]]
    assert len(near) == 1 and len(latest) == 1, [s for s, _ in seen]
    return near[0], latest[0]


def _plan(db: Database, statement: str, parameters: Any) -> list[str]:
    explain = "EXPLAIN QUERY PLAN " if db.dialect == "sqlite" else "EXPLAIN (COSTS OFF) "
    with db.transaction() as session:
        conn = session.connection()
        rows = conn.exec_driver_sql(explain + statement, parameters).all()
    return [str(row[-1]) for row in rows]


def _analyzed(db: Database, statistics: bool) -> None:
    with db.transaction() as session:
        session.execute(text("ANALYZE"))
        if db.dialect == "sqlite" and not statistics:
            session.execute(text("DELETE FROM sqlite_stat1"))
            session.execute(text("ANALYZE sqlite_schema"))  # the planner forgets them


def _walks_the_episodes_index(db: Database, near: tuple[str, Any]) -> None:
    plan = _plan(db, *near)
    walks = [line for line in plan if INDEX in line]
    # six look-ups a seed (three places each side), each walking the episodes alone
    assert len(walks) >= 6, plan
    assert not any("ix_records_scope_created_id" in line for line in plan), plan
    by_key = "sqlite_autoindex_records_1" if db.dialect == "sqlite" else "records_pkey"
    assert any(by_key in line for line in plan), plan  # each slot's record by its key


def test_neighbours_and_the_latest_episode_walk_the_episodes_index(client: TestClient) -> None:
    _store(client)
    db = app_state(client).db
    _analyzed(db, statistics=True)
    near, latest = _statements(client)
    _walks_the_episodes_index(db, near)
    assert any(INDEX in line for line in _plan(db, *latest)), _plan(db, *latest)
    # the type is the index's literal, as the planners need to take a partial index
    assert "records.type = 'episodic'" in near[0] and "records.type = 'episodic'" in latest[0]


def test_without_statistics_sqlite_still_walks_the_episodes_index(
    sqlite_template: Path, tmp_path: Path, make_client: Callable[..., TestClient]
) -> None:
    """A new SQLite store has no statistics (SQLite has no autoanalyze; PostgreSQL's
    autovacuum keeps them): the literal type could then lead SQLite down the (type,
    created_at) index, through every scope's episodes; the order's id tie-break (the
    episodes' index's own order) keeps it on the episodes."""
    shutil.copyfile(sqlite_template, tmp_path / "membrane.db")
    client = make_client(make_settings(f"sqlite:///{tmp_path / 'membrane.db'}"))
    db = app_state(client).db
    _store(client)
    _analyzed(db, statistics=False)
    near, latest = _statements(client)
    _walks_the_episodes_index(db, near)
    plan = _plan(db, *latest)
    assert any(INDEX in line for line in plan) and not any(
        "ix_records_type_created" in line for line in plan
    ), plan


def test_a_batch_looks_up_its_scopes_latest_episodes_through_the_index(
    client: TestClient,
) -> None:
    """A batch looks up the latest episode of all its scopes in one statement: a walk of
    the episodes' index a scope, each episode's row by its key."""
    _store(client)
    db = app_state(client).db
    _analyzed(db, statistics=True)
    items = [
        {"source_kind": "event", "source": "t", "scope": f"s{k}", "summary": f"reply {k}"}
        for k in (1, 2, 3)
    ]
    with _executed(db.engine) as seen:
        r = client.post("/v1/capture/batch", json={"items": items}, headers=A)
        assert r.status_code == 200 and r.json()["failed"] == 0, r.text
    [latest] = [s for s in seen if s[0].startswith(LATEST) and " walked" in s[0]]
    assert "walked.type = 'episodic'" in latest[0]
    plan = _plan(db, *latest)
    assert any(INDEX in line for line in plan), plan
    assert not any("ix_records_type_created" in line for line in plan), plan
