"""A vector search that checks its candidates against the filters in SQL reads their
ranking headers in the same statement (`CarriedHeaders`): a query retrieve then looks up
no headers of its own for them. The headers carried are those a look-up would give, and
only for records the filters admit."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.db import Database, Tier
from app.records.filters import RecordFilter, RecordQuery
from app.retrieve import header_repository as header_repo
from app.retrieve import vector_repository as vector_repo
from app.retrieve.header_repository import CarriedHeaders
from app.trust import Visibility
from tests.conftest import make_settings
from tests.test_vector_cache import add_records
from tests.test_vector_search_pg import graded, store_graded


@pytest.mark.parametrize("exact", [True, False], ids=["small-store", "index"])
def test_vector_candidates_carry_the_headers_a_look_up_gives(
    db_url: str, store: str, make_client: Callable[..., TestClient], exact: bool
) -> None:
    tier = Tier.sqlite if store == "sqlite" else Tier.pgvector
    ids = add_records(make_client(make_settings(db_url)), 40)
    db = Database(db_url)
    try:
        store_graded(db, tier, ids)
        with db.transaction() as s:
            s.execute(  # the five nearest leave the live statuses
                text("UPDATE records SET status = 'retracted' WHERE id IN (:a, :b, :c, :d, :e)"),
                dict(zip("abcde", ids[:5], strict=True)),
            )
        records = RecordQuery(RecordFilter(statuses=["active"]), Visibility(4, None), time.time())
        carry = CarriedHeaders(mentioning=[])
        with db.transaction() as s:
            found = vector_repo.nearest(
                s, tier, lambda: graded(0), records, 10, small_scope=exact, ef_search=100,
                selective=False, carry=carry,
            )  # fmt: skip
            looked_up = header_repo.headers(s, ids, records)
        assert sorted(found, key=lambda r: -found[r]) == ids[5:15]
        assert set(found) <= set(carry.rows) <= set(ids[5:])
        carried = {rid: header_repo.header_from(records.now, carry.rows[rid]) for rid in found}
        assert carried == {rid: looked_up[rid] for rid in found}
    finally:
        db.dispose()


@pytest.mark.parametrize("store", ["sqlite"])  # the process's vector matrix: SQLite's search
def test_candidates_whose_headers_the_request_holds_pass_without_a_look_up(
    db_url: str, make_client: Callable[..., TestClient]
) -> None:
    """An all-scope retrieve holds its lexical candidates' headers (BM25 read them under
    the same filters): the vector search's filter check counts those as passing and
    reads only the others' headers."""
    ids = add_records(make_client(make_settings(db_url)), 40)
    db = Database(db_url)
    try:
        store_graded(db, Tier.sqlite, ids)
        with db.transaction() as s:
            s.execute(text("UPDATE records SET status = 'retracted' WHERE id = :a"), {"a": ids[1]})
        records = RecordQuery(RecordFilter(statuses=["active"]), Visibility(4, None), time.time())
        known = frozenset(ids[2:8])  # pass the filters: held already
        carry = CarriedHeaders(mentioning=[], known=known)
        with db.transaction() as s:
            found = vector_repo.nearest(
                s, Tier.sqlite, lambda: graded(0), records, 10, ef_search=100,
                selective=False, carry=carry,
            )  # fmt: skip
        assert sorted(found, key=lambda r: -found[r]) == [ids[0], *ids[2:11]]
        # the nearest 15 were checked (the first window): the known ones were not read, the
        # retracted one was and did not pass
        assert set(carry.rows) == {ids[0], *ids[8:15]}
    finally:
        db.dispose()
