"""PostgreSQL + pgvector vector search: the HNSW walk is as broad as the setting asks
(never narrower than the candidates wanted), and it finds the nearest records."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from psycopg.pq import TransactionStatus
from sqlalchemy import event, text

from app import deadline
from app.db import Database, Tier
from app.embedding import queue_repository as queue_repo
from app.embedding.unit import unit_vector
from app.models.binary_vector import VectorBinary
from app.records.filters import RecordFilter, RecordQuery
from app.retrieve import header_repository as header_repo
from app.retrieve import pg_vector_repository
from app.retrieve import vector_repository as vector_repo
from app.retrieve.header_repository import CarriedHeaders, header_from
from app.trust import Visibility
from tests.conftest import auth, make_settings, transaction_status
from tests.test_vector_cache import add_records, axis

QUERY = axis(5)


@pytest.fixture
def db_with_vectors(
    pg_url: str, make_client: Callable[..., TestClient]
) -> Iterator[tuple[Database, list[str]]]:
    """40 records; record i points along axis i."""
    client = make_client(make_settings(pg_url))
    ids = add_records(client, 40)
    db = Database(pg_url)
    with db.transaction() as s:
        queue_repo.store_vectors(s, Tier.pgvector, "m", [(r, axis(i)) for i, r in enumerate(ids)])
    yield db, ids
    db.dispose()


def search(
    db: Database, limit: int, ef_search: int, *, small: bool = False
) -> tuple[dict[str, float], str]:
    """The nearest records and the hnsw.ef_search the search left in its transaction."""
    records = RecordQuery(RecordFilter(statuses=["active"]), Visibility(4, None), time.time())
    with db.transaction() as s:
        found = vector_repo.nearest(
            s, Tier.pgvector, lambda: QUERY, records, limit, small_scope=small, ef_search=ef_search
        )
        return found, str(s.scalar(text("SHOW hnsw.ef_search")))


def test_hnsw_search_breadth_follows_the_setting(
    db_with_vectors: tuple[Database, list[str]],
) -> None:
    db, ids = db_with_vectors
    found, ef = search(db, 10, 300)
    assert ef == "300"
    assert max(found, key=lambda r: found[r]) == ids[5]
    assert found[ids[5]] == pytest.approx(1.0)
    assert len(found) == 10


def test_hnsw_search_is_never_narrower_than_the_candidates_wanted(
    db_with_vectors: tuple[Database, list[str]],
) -> None:
    db, _ = db_with_vectors
    found, ef = search(db, 30, 20)
    assert ef == "30"
    assert len(found) == 30
    _, ef = search(db, 10, 5000)  # pgvector's ceiling
    assert ef == str(pg_vector_repository.MAX_EF_SEARCH)


def test_small_scope_is_ranked_exactly_without_hnsw(
    db_with_vectors: tuple[Database, list[str]],
) -> None:
    db, ids = db_with_vectors
    found, ef = search(db, 10, 300, small=True)
    assert ef == "40"  # pgvector's default: the exact scan set nothing
    assert max(found, key=lambda r: found[r]) == ids[5]
    assert len(found) == 10


def graded(i: int) -> list[float]:
    """Record i's vector: its similarity to axis 0 falls as i grows (cos = 1/sqrt(1+i²/100))."""
    v = [0.0] * len(QUERY)
    v[0], v[1] = 1.0, i / 10
    return v


def store_graded(db: Database, tier: Tier, ids: list[str]) -> None:
    """Give the records of `ids` the vectors `graded(i)`, in their order."""
    with db.transaction() as s:
        queue_repo.store_vectors(s, tier, "m", [(r, graded(i)) for i, r in enumerate(ids)])


def nearest_of_every_scope(db: Database, limit: int, also: list[str]) -> dict[str, float]:
    """The exact search of a small store for a request that names no scope (live only)."""
    records = RecordQuery(RecordFilter(statuses=["active"]), Visibility(4, None), time.time())
    with db.transaction() as s:
        return vector_repo.nearest(
            s, Tier.pgvector, lambda: graded(0), records, limit, also,
            small_scope=True, ef_search=40,
        )  # fmt: skip


def test_a_small_store_is_ranked_exactly_when_the_nearest_fail_the_filters(
    pg_url: str, make_client: Callable[..., TestClient]
) -> None:
    """The nearest vectors are checked against the filters first; when too few of them
    pass (here the 30 nearest are retracted), the same statement ranks every record the
    filters admit, so the answer is still the exact nearest among them."""
    ids = add_records(make_client(make_settings(pg_url)), 40)
    db = Database(pg_url)
    try:
        store_graded(db, Tier.pgvector, ids)
        found = nearest_of_every_scope(db, 8, [ids[39]])
        assert sorted(found, key=lambda r: -found[r])[:8] == ids[:8]
        assert set(found) == {*ids[:8], ids[39]}
        assert found[ids[39]] == pytest.approx(1 / (1 + 0.39**2 * 100) ** 0.5)
        with db.transaction() as s:
            s.execute(
                text("UPDATE records SET status = 'retracted' WHERE id = ANY(:ids)"),
                {"ids": ids[:30]},
            )
        found = nearest_of_every_scope(db, 8, [])
        assert sorted(found, key=lambda r: -found[r]) == ids[30:38]
        assert found[ids[30]] == pytest.approx(1 / (1 + 9.0) ** 0.5)
    finally:
        db.dispose()


def test_a_requests_read_runs_outside_a_transaction_block_and_walks_as_broad(
    db_with_vectors: tuple[Database, list[str]],
) -> None:
    """Inside a request PostgreSQL reads run without BEGIN / COMMIT (each statement has its
    own snapshot at READ COMMITTED anyway), and the HNSW walk still gets its breadth;
    outside one (jobs, the worker) a read is a transaction, where SET LOCAL lifts the
    request timeouts."""
    db, ids = db_with_vectors
    records = RecordQuery(RecordFilter(statuses=["active"]), Visibility(4, None), time.time())
    with deadline.serving_request(), db.read_transaction() as s:
        found = vector_repo.nearest(
            s, Tier.pgvector, lambda: QUERY, records, 10, small_scope=False, ef_search=300
        )
        ef = str(s.scalar(text("SHOW hnsw.ef_search")))
        in_request = transaction_status(s)
    assert ef == "300" and in_request is TransactionStatus.IDLE
    assert max(found, key=lambda r: found[r]) == ids[5] and len(found) == 10
    with db.read_transaction() as s:
        s.scalar(text("SELECT 1"))
        outside = transaction_status(s)
    assert outside is TransactionStatus.INTRANS


def add_scoped(client: TestClient, scopes: list[str]) -> list[str]:
    """One fact per entry of `scopes`, in that scope; their ids in order."""
    items = [
        {"source": "t", "source_kind": "observation", "content": {"text": f"fact {i}"},
         "scope": scope}
        for i, scope in enumerate(scopes)
    ]  # fmt: skip
    r = client.post("/v1/capture/batch", json={"items": items}, headers=auth("writer"))
    assert r.status_code == 200, r.text
    return [x["result"]["primary_record"]["id"] for x in r.json()["results"]]


def nearest_in_scope(db: Database, scope: str, limit: int, also: list[str]) -> dict[str, float]:
    """The exact search of one scope (live records only), nearest first."""
    flt = RecordFilter(statuses=["active"], scopes=[scope])
    records = RecordQuery(flt, Visibility(4, None), time.time())
    with db.transaction() as s:
        found = vector_repo.nearest(
            s, Tier.pgvector, lambda: graded(0), records, limit, also,
            small_scope=True, ef_search=40,
        )  # fmt: skip
    return dict(sorted(found.items(), key=lambda kv: -kv[1]))


def test_a_scope_is_ranked_exactly_from_its_own_vectors(
    pg_url: str, make_client: Callable[..., TestClient]
) -> None:
    """Every vector row carries its record's scope (migration 0015), and a scope's exact
    search ranks that scope's vectors: the other scope's records, all nearer the query,
    never crowd its nearest out; only the `also` ids of other scopes get a similarity. A
    row whose scope is not known yet (NULL) is searched with every scope. When too few
    of the scope's nearest pass the filters (its 30 nearest retracted), and only then,
    the same statement ranks every record the filters admit."""
    scopes = ["other" if i % 2 == 0 else "mine" for i in range(120)]
    ids = add_scoped(make_client(make_settings(pg_url)), scopes)
    db = Database(pg_url)
    try:
        with db.transaction() as s:  # the other scope's records take the nearest grades
            other = [rid for rid, scope in zip(ids, scopes, strict=True) if scope == "other"]
            mine = [rid for rid, scope in zip(ids, scopes, strict=True) if scope == "mine"]
            vectors = [(rid, graded(k)) for k, rid in enumerate(other + mine)]
            queue_repo.store_vectors(s, Tier.pgvector, "m", vectors)
            stored = s.execute(
                text(
                    "SELECT e.scope, r.scope FROM record_embeddings e "
                    "JOIN records r ON r.id = e.record_id"
                )
            ).all()
        assert len(stored) == 120 and all(e == r for e, r in stored)
        found = nearest_in_scope(db, "mine", 8, [other[0]])
        assert list(found)[:1] == [other[0]]  # asked for by id: scored, whatever its scope
        assert list(found)[1:] == mine[:8]
        assert found[mine[0]] == pytest.approx(1 / (1 + 0.6**2 * 100) ** 0.5)
        assert fallback_runs(db, "mine", 8) == 0  # the scope's own window sufficed
        with db.transaction() as s:  # as a worker older than migration 0015 leaves it
            s.execute(
                text("UPDATE record_embeddings SET scope = NULL WHERE record_id = :id"),
                {"id": mine[0]},
            )
        assert list(nearest_in_scope(db, "mine", 8, [])) == mine[:8]
        assert fallback_runs(db, "mine", 8) == 0
        with db.transaction() as s:
            s.execute(
                text("UPDATE records SET status = 'retracted' WHERE id = ANY(:ids)"),
                {"ids": mine[:30]},
            )
        assert list(nearest_in_scope(db, "mine", 8, [])) == mine[30:38]
        assert fallback_runs(db, "mine", 8) == 1  # its nearest 12 are retracted
    finally:
        db.dispose()


def fallback_runs(db: Database, scope: str, limit: int) -> int:
    """How often the exact search of `scope` ran its fallback scan (every record the
    filters admit), read off the statement's plan as PostgreSQL executed it."""
    flt = RecordFilter(statuses=["active"], scopes=[scope])
    records = RecordQuery(flt, Visibility(4, None), time.time())
    ask = pg_vector_repository._Ask.of(np.asarray(graded(0)), records, None)
    stmt = pg_vector_repository._nearest_first(ask.shape, False)
    params = {**ask.params, "limit": limit, "window": limit + limit // 2, "also": []}

    def explained(conn: Any, cursor: Any, sql: str, *rest: Any) -> tuple[str, Any]:
        return f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}", rest[0]

    event.listen(db.engine, "before_cursor_execute", explained, retval=True)
    try:
        with db.transaction() as s:
            row = s.connection().execute(stmt, params).cursor.fetchone()
    finally:
        event.remove(db.engine, "before_cursor_execute", explained)
    assert row is not None
    plan = row[0][0]["Plan"]
    guarded = [node for node in _nodes(plan) if "One-Time Filter" in node]
    assert len(guarded) == 1
    (scan,) = [c for c in guarded[0]["Plans"] if c["Parent Relationship"] == "Outer"]
    return int(scan["Actual Loops"])


def _nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


@pytest.mark.parametrize("mentioning", [[], ["an-entity-id"]], ids=["plain", "mentioning"])
def test_a_scopes_nearest_carry_their_headers(
    pg_url: str, make_client: Callable[..., TestClient], mentioning: list[str]
) -> None:
    """The records an exact scope search returns carry the headers ranking needs, the
    same as a look-up by id gives, whether the scope's window sufficed or its fallback
    scan ran (the window's nearest retracted)."""
    ids = add_scoped(make_client(make_settings(pg_url)), ["mine"] * 30)
    db = Database(pg_url)
    flt = RecordFilter(statuses=["active"], scopes=["mine"])
    try:
        with db.transaction() as s:
            vectors = [(r, graded(i)) for i, r in enumerate(ids)]
            queue_repo.store_vectors(s, Tier.pgvector, "m", vectors)
        for kept in (ids, ids[12:]):
            records = RecordQuery(flt, Visibility(4, None), time.time())
            carry = CarriedHeaders(mentioning)
            with db.transaction() as s:
                found = vector_repo.nearest(
                    s, Tier.pgvector, lambda: graded(0), records, 8, [],
                    small_scope=True, ef_search=40, carry=carry,
                )  # fmt: skip
                looked_up = header_repo.headers(s, list(found), records, mentioning)
            assert set(found) == set(kept[:8])
            carried = {rid: header_from(records.now, row) for rid, row in carry.rows.items()}
            assert carried == looked_up
            with db.transaction() as s:  # the next round: the 12 nearest retracted
                s.execute(
                    text("UPDATE records SET status = 'retracted' WHERE id = ANY(:ids)"),
                    {"ids": ids[:12]},
                )
    finally:
        db.dispose()


def test_vectors_travel_in_binary_and_read_back_exactly(
    db_with_vectors: tuple[Database, list[str]],
) -> None:
    """Stored vectors and the query vector are sent in pgvector's binary form (no text
    parameter reaches the server), and what is stored is the float32 value written."""
    db, ids = db_with_vectors
    exact = np.random.default_rng(7).standard_normal(len(QUERY)).astype(np.float32)
    exact /= np.linalg.norm(exact)
    sent: list[Any] = []

    def keep_params(conn: Any, cursor: Any, statement: str, params: Any, *_: Any) -> None:
        sent.append(params)

    event.listen(db.engine, "before_cursor_execute", keep_params)
    try:
        with db.transaction() as s:
            queue_repo.store_vectors(s, Tier.pgvector, "m", [(ids[0], exact.tolist())])
        found, _ = search(db, 5, 40)
        with db.transaction() as s:
            raw = s.scalar(
                text("SELECT vector_send(embedding) FROM record_embeddings WHERE record_id = :r"),
                {"r": ids[0]},
            )
    finally:
        event.remove(db.engine, "before_cursor_execute", keep_params)
    stored = VectorBinary.decoded(raw)
    assert stored.tolist() == unit_vector(exact.tolist()).tolist()
    assert found[ids[5]] == pytest.approx(1.0)  # QUERY is axis 5
    values = [v for p in sent for row in (p if isinstance(p, list) else [p]) for v in row.values()]
    vectors = [v for v in values if isinstance(v, bytes) and not isinstance(v, str)]
    assert vectors and all(type(v).__name__ == "VectorBinary" for v in vectors)
    assert not any(isinstance(v, str) and v.startswith("[") for v in values)


@pytest.mark.parametrize("small", [True, False])
def test_a_zero_vector_is_as_far_as_an_unrelated_one(
    db_with_vectors: tuple[Database, list[str]], small: bool
) -> None:
    """A zero vector (a provider's answer for a text it could not read) scores 0, as an
    orthogonal one does, whether an exact scan (1 - the inner product of the unit vectors
    stored) or the HNSW walk found it; its cosine distance is NaN, which no ranking can
    order."""
    db, ids = db_with_vectors
    with db.transaction() as s:
        queue_repo.store_vectors(s, Tier.pgvector, "m", [(ids[3], [0.0] * len(QUERY))])
    found, _ = search(db, 40, 40, small=small)
    assert found[ids[5]] == pytest.approx(1.0)  # QUERY is axis 5
    assert found[ids[3]] == 0.0
    assert all(v == pytest.approx(0.0) for rid, v in found.items() if rid != ids[5])


def test_the_hnsw_walks_other_candidates_are_scored_by_a_prepared_look_up(
    db_with_vectors: tuple[Database, list[str]],
) -> None:
    """The candidates the walk did not return (the lexical ones) get their similarities by
    a look-up by key, prepared on the connection (parsed and planned once)."""
    db, ids = db_with_vectors
    records = RecordQuery(RecordFilter(statuses=["active"]), Visibility(4, None), time.time())
    with db.transaction() as s:
        found = vector_repo.nearest(
            s, Tier.pgvector, lambda: QUERY, records, 5, [ids[30]], ef_search=40
        )
        prepared = [
            str(stmt) for (stmt,) in s.execute(text("SELECT statement FROM pg_prepared_statements"))
        ]
    assert found[ids[5]] == pytest.approx(1.0) and found[ids[30]] == pytest.approx(0.0)
    by_key = [p for p in prepared if "record_embeddings.record_id = ANY" in p]
    assert len(by_key) == 1 and "<#>" in by_key[0]
