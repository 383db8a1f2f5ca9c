"""PostgreSQL BM25 below LARGE_STORE takes the store's size from the planner's estimate
once the table has been analyzed (`pg_text_repository._RECORDS_IN_STORE`): the estimate
follows the table's growth, and a word in more records than an old estimate still scores
(the size used is never below a word's count)."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient
from sqlalchemy import text

from app.db import Database
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
    with app_state(client).db.read_transaction() as session:
        lexemes, _silent, total, df = pg_text._lexemes_counted(session, "pottery kiln", "")
    assert lexemes == ["kiln", "potteri"] and df == {"kiln": 40.0, "potteri": 41.0}
    assert total >= df["potteri"]  # the table grew since ANALYZE: never below a count
    result = retrieve(client, query="cobalt pottery glaze", expand_context=False, limit=5)
    assert ids(result)[0] == rare and set(ids(result)[1:]) <= set(kiln)
