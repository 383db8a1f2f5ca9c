"""PostgreSQL: a store's vectors kept in the API process as one matrix
(app/retrieve/pg_matrix_repository.py, migration 0018). Each search reads only the vectors
written since the matrix last looked, whatever order their transactions committed in; a
vector written again replaces its row; a repin starts the matrix over; a deleted record
is never returned; and a search through the matrix ranks as PostgreSQL's own scan does."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import numpy as np
import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

from app import deadline
from app.db import Database, Tier
from app.embedding import queue_repository as queue_repo
from app.embedding.service import repin
from app.embedding.worker import embed_pending
from app.models import TagRow
from app.records.filters import RecordFilter, RecordQuery
from app.retrieve import pg_matrix_repository as pg_matrix
from app.retrieve import repository as search_repo
from app.retrieve import vector_cache
from app.retrieve import vector_repository as vector_repo
from app.trust import Visibility
from tests.conftest import app_state, auth, make_settings
from tests.test_vector_cache import add_records
from tests.test_vector_search_pg import graded

RECORDS = 12
EMBEDDED = 10  # records 10 and 11 have no vector yet


@pytest.fixture
def store(
    pg_url: str, make_client: Callable[..., TestClient]
) -> Iterator[tuple[Database, list[str]]]:
    """RECORDS facts, the first EMBEDDED with vectors (record i: `graded(i)`)."""
    ids = add_records(make_client(make_settings(pg_url)), RECORDS)
    db = Database(pg_url)
    with db.transaction() as s:
        queue_repo.store_vectors(
            s, Tier.pgvector, "m", [(r, graded(i)) for i, r in enumerate(ids[:EMBEDDED])]
        )
    yield db, ids
    db.dispose()


def _records() -> RecordQuery:
    return RecordQuery(RecordFilter(statuses=["active"]), Visibility(4, None), time.time())


def through_matrix(db: Database, query: int = 3, limit: int = 5) -> dict[str, float]:
    """The `limit` nearest as an all-scope retrieve finds them through the matrix."""
    with deadline.serving_request(), db.read_transaction() as s:
        view = pg_matrix.view(s)
        return vector_repo.nearest(
            s, Tier.pgvector, lambda: graded(query), _records(), limit, ef_search=40, matrix=view
        )


def by_postgres(db: Database, query: int = 3, limit: int = 5) -> dict[str, float]:
    """The same search as PostgreSQL's exact scan makes it."""
    with db.transaction() as s:
        return vector_repo.nearest(
            s,
            Tier.pgvector,
            lambda: graded(query),
            _records(),
            limit,
            small_scope=True,
            ef_search=40,
        )


def held(db: Database) -> list[str]:
    """The ids the matrix holds now, brought up to date."""
    with deadline.serving_request(), db.read_transaction() as s:
        view = pg_matrix.view(s)
    assert view is not None
    return list(view.ids)


def _vector_text(i: int) -> str:
    return "[" + ",".join(map(str, graded(i))) + "]"


def test_the_matrix_ranks_as_the_exact_scan_and_reads_each_vector_once(
    store: tuple[Database, list[str]],
) -> None:
    db, ids = store
    statements: list[str] = []
    event.listen(db.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    for query in (0, 3, 9):
        got, exact = through_matrix(db, query), by_postgres(db, query)
        assert list(got) == list(exact)  # the same records, best first
        for rid, similarity in exact.items():
            assert got[rid] == pytest.approx(similarity, abs=1e-6)
    assert sorted(held(db)) == sorted(ids[:EMBEDDED])
    with deadline.serving_request(), db.read_transaction() as s:  # the next look reads
        since = pg_matrix.since_of(s)  # no vector row: none is new
        assert since is not None
        _, vectors = pg_matrix._read(s, since)
    assert vectors == []


def test_a_vector_committed_after_a_later_one_is_still_found(
    store: tuple[Database, list[str]], pg_url: str
) -> None:
    """Transaction A takes its id first and writes record 10's vector; B writes record
    11's and commits; the matrix looks; then A commits. A's vector is older by id than
    what the matrix has seen, and must be read at the next look all the same."""
    db, ids = store
    assert sorted(held(db)) == sorted(ids[:EMBEDDED])
    with (
        psycopg.connect(pg_url, autocommit=True) as a,
        psycopg.connect(pg_url, autocommit=True) as b,
    ):
        a.execute("BEGIN")
        a.execute("SELECT pg_current_xact_id()")  # A's id, before B's
        a.execute(
            "INSERT INTO record_embeddings (record_id, model, embedding, scope) "
            "VALUES (%s, 'm', %s::vector, '')",
            (ids[10], _vector_text(0)),
        )
        b.execute(
            "INSERT INTO record_embeddings (record_id, model, embedding, scope) "
            "VALUES (%s, 'm', %s::vector, '')",
            (ids[11], _vector_text(1)),
        )
        assert set(held(db)) == set(ids[:EMBEDDED]) | {ids[11]}
        a.execute("COMMIT")
    assert set(held(db)) == set(ids)
    got = through_matrix(db, query=0, limit=3)
    assert set(got) == {ids[0], ids[10], ids[1]} or set(got) == {ids[0], ids[10], ids[11]}
    assert got[ids[10]] == pytest.approx(1.0, abs=1e-6)


def test_a_vector_written_again_replaces_its_row(store: tuple[Database, list[str]]) -> None:
    db, ids = store
    assert max(through_matrix(db, query=9).items(), key=lambda kv: kv[1])[0] == ids[9]
    with db.transaction() as s:  # record 9 now points where record 0 does
        queue_repo.store_vectors(s, Tier.pgvector, "m", [(ids[9], graded(0))])
    got = through_matrix(db, query=9, limit=EMBEDDED)
    assert got[ids[9]] == pytest.approx(got[ids[0]], abs=1e-6)
    assert len(held(db)) == EMBEDDED  # overwritten, not appended
    assert got == pytest.approx(by_postgres(db, query=9, limit=EMBEDDED), abs=1e-6)


def test_a_repin_starts_the_matrix_over(store: tuple[Database, list[str]]) -> None:
    db, ids = store
    assert len(held(db)) == EMBEDDED
    repin(db, "another-model", 384)
    assert held(db) == [] and through_matrix(db) == {}
    with db.transaction() as s:
        queue_repo.store_vectors(s, Tier.pgvector, "another-model", [(ids[4], graded(4))])
    assert held(db) == [ids[4]]


def test_a_deleted_record_is_never_found_and_many_deletions_reload_the_matrix(
    store: tuple[Database, list[str]], pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, ids = store
    assert ids[3] in through_matrix(db, query=3)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DELETE FROM records WHERE id = ANY(%s)", ([ids[3], ids[4]],))
        conn.execute("SELECT pg_stat_force_next_flush()")
        conn.execute("SELECT 1")  # idle after it: the counters are sent
    got = through_matrix(db, query=3)
    assert ids[3] not in got and ids[4] not in got and len(got) == 5
    assert got == pytest.approx(by_postgres(db, query=3), abs=1e-6)
    monkeypatch.setattr(pg_matrix, "RELOAD_AFTER_DELETED", 1)
    deadline_s = time.monotonic() + 10
    while len(held(db)) != EMBEDDED - 2:  # the counter reaches the statistics within ~1 s
        assert time.monotonic() < deadline_s, "the matrix was not loaded again"
        time.sleep(0.2)
    assert ids[3] not in held(db)


def test_an_all_scope_retrieve_ranks_alike_with_and_without_the_matrix(
    pg_url: str, make_client: Callable[..., TestClient]
) -> None:
    """Over HTTP, with the local embedder: a store within `vector_matrix_size` is searched
    through the matrix, one past it (size 0 here) by PostgreSQL; the rankings agree."""
    settings = {"embedding": {"provider": "local", "worker_enabled": False}}
    with_matrix = make_client(make_settings(pg_url, **settings))
    items = [
        {"source": "t", "source_kind": "event", "summary": s, "scope": f"s{i % 3}"}
        for i, s in enumerate(
            ["the cat sat on the mat", "dogs bark at night", "a recipe for lemon cake",
             "the kitten chased a mouse", "stock markets fell today", "baking bread at home",
             "a puppy learned to sit", "bond yields rose again"]
        )
    ]  # fmt: skip
    r = with_matrix.post("/v1/capture/batch", json={"items": items}, headers=auth("writer"))
    assert r.status_code == 200, r.text
    state = app_state(with_matrix)
    assert state.embedding is not None and state.embedding.embedder is not None
    while embed_pending(state.db, state.embedding.embedder, 16, max_passages=16):
        pass
    without = make_client(make_settings(pg_url, ranking={"vector_matrix_size": 0}, **settings))
    for query in ("pets and animals", "cooking", "finance news"):
        body = {"query": query, "limit": 5}
        a = with_matrix.post("/v1/retrieve", json=body, headers=auth("reader"))
        b = without.post("/v1/retrieve", json=body, headers=auth("reader"))
        assert a.status_code == b.status_code == 200
        ranked = [x["record"]["id"] for x in a.json()["items"]]
        assert ranked == [x["record"]["id"] for x in b.json()["items"]] and len(ranked) == 5


def test_the_lexical_search_tells_whether_a_vector_was_written_since(
    store: tuple[Database, list[str]],
) -> None:
    """The BM25 statement reads the matrix's signature (`matrix_since`): with no vector
    written since, the matrix is brought up to date without a statement of its own;
    after one, the matrix reads it."""
    db, ids = store
    held(db)  # loaded
    statements: list[str] = []
    event.listen(db.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))

    def search() -> list[str]:
        with deadline.serving_request(), db.read_transaction() as s:
            since = pg_matrix.since_of(s)
            assert since
            found = search_repo.lexical(s, ["fact"], _records(), 50, matrix_since=since)
            assert found.matrix is not None and len(found.full) == RECORDS
            statements.clear()
            view = pg_matrix.view(s, found.matrix, since)
            assert view is not None
            return list(view.ids)

    assert sorted(search()) == sorted(ids[:EMBEDDED]) and statements == []
    with db.transaction() as s:
        queue_repo.store_vectors(s, Tier.pgvector, "m", [(ids[10], graded(1))])
    assert sorted(search()) == sorted(ids[:11]) and len(statements) == 1
    assert sorted(search()) == sorted(ids[:11]) and statements == []


def test_transaction_ids_that_went_back_reload_the_matrix(
    store: tuple[Database, list[str]],
) -> None:
    """A database restored to an earlier point (or failed over to a standby that missed
    the last commits) at the same identity numbers its transactions from further back
    than the matrix's snapshot: the matrix is loaded again, dropping what that timeline
    lost."""
    db, ids = store
    assert sorted(held(db)) == sorted(ids[:EMBEDDED])
    with deadline.serving_request(), db.read_transaction() as s:
        kept = pg_matrix._STORES.of(s)
        kept.matrix.put("lost", np.asarray(graded(0), dtype=np.float32), "")
        kept.since = "4000000000:4000000000:"  # a snapshot of the timeline given up
    assert sorted(held(db)) == sorted(ids[:EMBEDDED])


def test_a_filter_most_of_the_nearest_fail_is_searched_on_the_server(
    store: tuple[Database, list[str]],
) -> None:
    """Records 8 and 9, the farthest from query 0, carry a tag the search asks for: none
    of the matrix's best 4 x limit pass, so PostgreSQL's own search ranks them instead
    of the matrix checking ever wider windows by key."""
    db, ids = store
    with db.transaction() as s:
        s.add_all([TagRow(record_id=ids[8], tag="far"), TagRow(record_id=ids[9], tag="far")])
    records = RecordQuery(
        RecordFilter(statuses=["active"], tags_all=["far"]), Visibility(4, None), time.time()
    )
    q = np.asarray(graded(0), dtype=np.float32)
    q /= np.linalg.norm(q)
    with deadline.serving_request(), db.read_transaction() as s:
        view = pg_matrix.view(s)
        assert view is not None
        assert vector_cache.nearest_in(s, view, q, records, 2, (), widest=8) is None
        got = vector_repo.nearest(
            s, Tier.pgvector, lambda: graded(0), records, 2, ef_search=40, matrix=view
        )
    assert list(got) == [ids[8], ids[9]]
