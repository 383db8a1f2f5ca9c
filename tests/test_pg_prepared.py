"""PostgreSQL prepared statements (app/db.py PREPARED): the statements marked in the code
(a record read by its id, a scope's latest episode, a small scope's two retrieval reads:
its admitted records and its BM25, whose plan is the scope's rows whatever the words,
a small store's BM25 across scopes (the GIN index's matches whatever the words), the full
rows of the selected records (a read by key), the temporal neighbours of episodic hits,
and a retrieve without a query) are prepared on their connection and, after
PostgreSQL's five custom plans, run on one generic plan without planning where it costs
no more; nothing else is prepared, since one generic plan for a large store's BM25 made
it 822 ms at p95 at a million records (DESIGN.md §9).
Turned off (an old PgBouncer), nothing is prepared."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from tests.conftest import app_state, auth, make_settings

RUNS = 8  # PostgreSQL tries a generic plan after five custom ones
NEAR = "WITH near AS MATERIALIZED"  # the temporal neighbours' statement
A = auth("admin")


def _prepared(client: TestClient) -> list[tuple[str, int]]:
    """(statement, generic plans run) of what the service's one connection prepared."""
    with app_state(client).db.read_transaction() as session:
        rows = session.execute(
            text(
                "SELECT statement, generic_plans FROM pg_prepared_statements "
                "WHERE statement NOT LIKE '%pg_prepared_statements%'"
            )
        )
        return [(str(statement), int(generic)) for statement, generic in rows]


def _read_and_retrieve(client: TestClient) -> str:
    body = {"source_kind": "event", "source": "t", "summary": "the harbor", "scope": "s"}
    r = client.post("/v1/capture", json=body, headers=A)
    assert r.status_code == 201, r.text
    record_id = str(r.json()["primary_record"]["id"])
    for _ in range(RUNS):
        r = client.get(f"/v1/records/{record_id}", headers=A)
        assert r.status_code == 200 and r.json()["id"] == record_id
        r = client.post("/v1/retrieve", json={"query": "harbor"}, headers=A)
        assert [i["record"]["id"] for i in r.json()["items"]] == [record_id]
    return record_id


def _retrieve_in_scope(client: TestClient, record_id: str) -> None:
    for i in range(RUNS):
        body = {"scopes": ["s"], "limit": 3 + i}  # limits 3 to 10: one statement, LIMIT 10
        r = client.post("/v1/retrieve", json=body, headers=A)
        assert [i["record"]["id"] for i in r.json()["items"]] == [record_id]  # no query
        words = ["harbor", "old", "quiet", "lights"][: 1 + i % 4]  # 1 to 4 words
        body = {"query": " ".join(words), "scopes": ["s"]}
        r = client.post("/v1/retrieve", json=body, headers=A)
        assert [i["record"]["id"] for i in r.json()["items"]] == [record_id]


@pytest.mark.parametrize("on", [True, False], ids=["on", "off"])
def test_only_the_marked_read_is_prepared_and_it_runs_a_generic_plan(
    pg_url: str, make_client: Callable[..., TestClient], on: bool
) -> None:
    database = {"pool_size": 1, "max_overflow": 0, "pg_prepared_statements": on}
    client = make_client(make_settings(pg_url, database=database))
    _retrieve_in_scope(client, _read_and_retrieve(client))
    found = _prepared(client)
    if not on:
        assert found == []
        return
    reads = [generic for statement, generic in found if "WHERE records.id = $" in statement]
    latest = [s for s, _ in found if s.startswith("SELECT records.id, records.payload")]
    bm25 = [(s, generic) for s, generic in found if "counted AS MATERIALIZED" in s]
    unindexed = "coalesce(records.search_tsv"  # a small scope's rows, checked for words
    scope_bm25 = [generic for s, generic in bm25 if unindexed in s]
    store_bm25 = [generic for s, generic in bm25 if unindexed not in s]
    # the admitted records', with the entity-name look-up of the request's scope
    headers = "WITH named AS"
    admitted = [
        generic
        for statement, generic in found
        if statement.startswith(headers) and "counted AS MATERIALIZED" not in statement
    ]
    assert len(reads) == 1 and reads[0] >= 1  # the record read, on its generic plan
    assert len(latest) == 1  # the capture's look-up of the scope's latest episode
    assert len(scope_bm25) == 1 and scope_bm25[0] >= 1  # the scope's BM25, planned no more
    # A small store's BM25 across scopes: parsed once, and on its generic plan once
    # PostgreSQL finds it no dearer than the custom ones (it did here)
    assert len(store_bm25) == 1 and store_bm25[0] >= 1
    assert len(admitted) == 1 and admitted[0] >= 1  # the scope's admitted records
    names = [
        generic
        for statement, generic in found
        if "FROM entity_terms" in statement and not statement.startswith(headers)
    ]
    by_ids = "WHERE records.id = ANY ("  # the selected records' rows, with their edges
    rows = [
        generic for statement, generic in found if "AS edges" in statement and by_ids in statement
    ]
    # the look-up runs alone no more: inside the scope's admitted records' statement in
    # one small scope, inside the BM25 statement across scopes
    assert names == []
    # Prepared (parsed once); its generic plan is taken when it is no dearer than the
    # custom ones, as for a retrieve's dozen ids, not for this store's single record.
    assert len(rows) == 1
    # The scope's records by salience (a retrieve without a query), its limit written in,
    # rounded up to a step (salience_repository.LIMIT_STEPS): one statement for 3 to 10
    best = [generic for statement, generic in found if "LIMIT 10) AS best" in statement]
    assert len(best) == 1 and best[0] >= 1
    # The temporal neighbours of the all-scope retrieve's episodic hits: one statement
    # whatever the number of seeds (an array); its generic plan: the next test
    near = [s for s, _ in found if s.startswith(NEAR)]
    assert len(near) == 1
    assert len(found) == 8  # and none of the all-scope retrieve's data-dependent ones


def test_the_temporal_neighbours_run_on_their_generic_plan(
    pg_url: str, make_client: Callable[..., TestClient]
) -> None:
    """A retrieve across scopes whose hits are episodes (twenty seeds, in a store of some
    size) plans its neighbours' look-ups five times, then no more: their LIMIT and
    OFFSET are written into the statement (as parameters, PostgreSQL costed the generic
    plan as if each look-up kept a tenth of the scope, and planned every run)."""
    database = {"pool_size": 1, "max_overflow": 0}
    client = make_client(make_settings(pg_url, database=database))
    for batch in range(6):  # 600 episodes in 3 scopes, analyzed as autovacuum would
        items = [
            {"source_kind": "event", "source": "t", "summary": f"the harbor at dusk {i}",
             "scope": f"s{i % 3}"}
            for i in range(batch * 100, batch * 100 + 100)
        ]  # fmt: skip
        r = client.post("/v1/capture/batch", json={"items": items}, headers=A)
        assert r.status_code == 200 and r.json()["failed"] == 0, r.text
    with app_state(client).db.transaction() as session:
        session.execute(text("ANALYZE records"))
    for _ in range(RUNS):
        r = client.post("/v1/retrieve", json={"query": "harbor dusk", "limit": 5}, headers=A)
        assert r.status_code == 200 and len(r.json()["items"]) == 5
        assert "context" in r.json()["signals"]  # the neighbours were looked up
    near = [generic for statement, generic in _prepared(client) if statement.startswith(NEAR)]
    assert len(near) == 1 and near[0] >= 1


def test_the_latest_episode_look_up_runs_on_its_generic_plan(
    pg_url: str, make_client: Callable[..., TestClient]
) -> None:
    """Each capture of an episode looks up its scope's latest episode: planned five
    times, then no more (its LIMIT written in and its type the episodes' index's literal;
    with either a parameter, PostgreSQL planned every capture anew)."""
    database = {"pool_size": 1, "max_overflow": 0}
    client = make_client(make_settings(pg_url, database=database))
    for i in range(RUNS):
        body = {"source_kind": "event", "source": "t", "summary": f"turn {i}", "scope": "s"}
        r = client.post("/v1/capture", json=body, headers=A)
        assert r.status_code == 201, r.text
    latest = [
        (statement, generic)
        for statement, generic in _prepared(client)
        if statement.startswith("SELECT records.id, records.payload")
    ]
    assert len(latest) == 1 and latest[0][1] >= 1, latest
    assert "LIMIT 1" in latest[0][0] and "records.type = 'episodic'" in latest[0][0]
