"""SQLite's planner statistics follow a store that grows after start-up: the embedding
worker, once it has embedded a burst of captures, takes them again when the records table
has outgrown them (app/embedding/planner_stats_repository.py); PostgreSQL analyzes on its own."""

from __future__ import annotations

import time
from collections.abc import Callable

from fastapi.testclient import TestClient
from sqlalchemy import text

from app.embedding.planner_stats_repository import GROWTH, MIN_ROWS, planner_stats_stale
from tests.conftest import app_state, auth, make_settings
from tests.embedding_support import FakeOpenAI, openai_settings


def _described_rows(client: TestClient) -> int | None:
    """The records' row count in sqlite_stat1 (None: not described)."""
    with app_state(client).db.read_transaction() as s:
        stat = s.execute(
            text("SELECT stat FROM sqlite_stat1 WHERE tbl = 'records' AND idx IS NOT NULL")
        ).scalar()
    return int(str(stat).split()[0]) if stat else None


def _capture(client: TestClient, n: int, start: int = 0) -> None:
    items = [
        {"source": "t", "source_kind": "event", "summary": f"note {i} about the harbour"}
        for i in range(start, start + n)
    ]
    r = client.post("/v1/capture/batch", json={"items": items}, headers=auth("writer"))
    assert r.status_code == 200 and r.json()["created"] == n, r.text


def test_the_worker_analyzes_a_store_grown_after_start_up(
    db_url: str, make_client: Callable[..., TestClient], fake_openai: FakeOpenAI
) -> None:
    client = make_client(openai_settings(db_url, fake_openai, worker_enabled=True))
    if app_state(client).db.dialect != "sqlite":
        _capture(client, MIN_ROWS + 100)
        with app_state(client).db.read_transaction() as s:
            assert not planner_stats_stale(s)  # PostgreSQL: autovacuum's business
        return
    assert not _described_rows(client)  # analyzed at start-up, empty
    _capture(client, MIN_ROWS + 100)
    deadline = time.monotonic() + 60
    while (_described_rows(client) or 0) < MIN_ROWS:
        assert time.monotonic() < deadline, "the worker never took the statistics again"
        time.sleep(0.1)
    described = _described_rows(client)
    assert described is not None and described >= MIN_ROWS + 100
    with app_state(client).db.read_transaction() as s:
        assert not planner_stats_stale(s)


def test_statistics_are_stale_only_once_the_table_has_outgrown_them(
    db_url: str, make_client: Callable[..., TestClient]
) -> None:
    client = make_client(make_settings(db_url))
    db = app_state(client).db
    with db.read_transaction() as s:
        assert not planner_stats_stale(s)  # a few rows: never worth an ANALYZE
    _capture(client, MIN_ROWS)
    with db.read_transaction() as s:
        stale = planner_stats_stale(s)
    assert stale is (db.dialect == "sqlite")  # PostgreSQL analyzes on its own
    db.refresh_planner_stats()
    with db.read_transaction() as s:
        assert not planner_stats_stale(s)
    if db.dialect == "sqlite":  # grown past GROWTH times what they describe: stale again
        _capture(client, (GROWTH - 1) * MIN_ROWS + 1, start=MIN_ROWS)
        with db.read_transaction() as s:
            assert planner_stats_stale(s)
