"""PostgreSQL BM25 below LARGE_STORE takes the store's size from the planner's estimate
once the table has been analyzed (`pg_terms_repository._RECORDS_IN_STORE`): the estimate
follows the table's growth, and a word in more records than an old estimate still scores
(the size used is never below a word's count)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, text

from app.db import Database, column_rows
from app.retrieve import pg_terms_repository
from app.retrieve import pg_text_repository as pg_text
from tests.conftest import app_state, make_settings
from tests.test_retrieve import capture, ids, retrieve


def test_an_analyzed_store_estimates_its_size_and_still_ranks(
    pg_url: str, make_client: Callable[..., TestClient]
) -> None:
    client = make_client(make_settings(pg_url))
    for i in range(3):
        capture(client, f"the weather on day {i}")
    db = Database(pg_url)
    with db.transaction() as session:
        session.execute(text("ANALYZE records"))  # the estimate now says 3 records
    db.dispose()
    kiln = [capture(client, f"the pottery kiln cooled on day {i}")["id"] for i in range(40)]
    rare = capture(client, "a pottery glaze recipe with cobalt")["id"]
    weights = pg_terms_repository.COUNTED.weights  # what the scoring statement counts
    with app_state(client).db.read_transaction() as session:
        rows = column_rows(
            session, select(*weights.c), {"query": "pottery kiln", "unscored": ""}
        ).all()
    df = {lexeme: n for lexeme, _idf, n in rows}
    assert df == {"kiln": 40, "potteri": 41}
    # The table grew since ANALYZE: the store's size is never below a count (a word in
    # 41 records of 41 gets the least idf; an estimate of fewer would make ln fail).
    idf = {lexeme: idf for lexeme, idf, _n in rows}
    assert idf["potteri"] == pytest.approx(pg_terms_repository.MIN_IDF)
    result = retrieve(client, query="cobalt pottery glaze", expand_context=False, limit=5)
    assert ids(result)[0] == rare and set(ids(result)[1:]) <= set(kiln)


@pytest.mark.parametrize("large", [False, True], ids=["counted", "estimated"])
def test_across_every_scope_only_the_newest_matches_are_scored_past_max_matches(
    pg_url: str,
    make_client: Callable[..., TestClient],
    monkeypatch: pytest.MonkeyPatch,
    large: bool,
) -> None:
    """When the words match more than MAX_MATCHES records and the request names no scope,
    the newest MAX_MATCHES of them are scored: decided by the scoring statement from the
    frequencies it counts (a small store), or by the caller from the estimated ones."""
    monkeypatch.setattr(pg_text, "MAX_MATCHES", 2)
    if large:
        monkeypatch.setattr(pg_terms_repository, "LARGE_STORE", 1)
    client = make_client(make_settings(pg_url))
    kiln = [
        capture(client, f"the kiln cooled on day {i}", scope=f"s{i % 2}")["id"] for i in range(4)
    ]
    newest = set(kiln[2:])
    if large:
        db = Database(pg_url)
        with db.transaction() as session:
            session.execute(text("ANALYZE records"))
        db.dispose()
    across = retrieve(client, query="kiln", expand_context=False)
    lexical = {i["record"]["id"]: i["components"]["lexical"] for i in across["items"]}
    assert {rid for rid, score in lexical.items() if score} == newest
    within = retrieve(client, query="kiln", expand_context=False, scopes=["s0", "s1"])
    lexical = {i["record"]["id"]: i["components"]["lexical"] for i in within["items"]}
    assert {rid for rid, score in lexical.items() if score} == set(kiln)
