"""PostgreSQL: a small scope's stored vectors are kept in the process by record and
version (app/retrieve/pg_vector_cache.py). A retrieve whose scopes hold no more records
than its candidate pool reads each record's version with its header, scores the cached
vectors, and reads only the vectors it lacks; a vector written again (re-embedded) is
read again, never scored stale."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, text
from sqlalchemy.engine import make_url

from app import deadline
from app.db import Database, Tier
from app.embedding import queue_repository as queue_repo
from app.records.filters import RecordFilter, RecordQuery
from app.retrieve import header_repository as header_repo
from app.retrieve import pg_vector_cache, pg_vector_repository
from app.retrieve import vector_repository as vector_repo
from app.retrieve.pg_vector_repository import VECTOR_VERSION
from app.trust import Visibility
from tests.conftest import app_state, auth, make_settings
from tests.test_vector_cache import add_records
from tests.test_vector_search_pg import graded

RECORDS = 12
EMBEDDED = 10  # the first ten have vectors; the last two are not embedded yet


@pytest.fixture
def small_scope(
    pg_url: str, make_client: Callable[..., TestClient]
) -> Iterator[tuple[Database, list[str], list[str]]]:
    """A store of RECORDS records, EMBEDDED of them with vectors (record i: `graded(i)`);
    the database, the ids, and the statements each search makes (cleared by it)."""
    ids = add_records(make_client(make_settings(pg_url)), RECORDS)
    db = Database(pg_url)
    with db.transaction() as s:
        vectors = [(r, graded(i)) for i, r in enumerate(ids[:EMBEDDED])]
        queue_repo.store_vectors(s, Tier.pgvector, "m", vectors)
    statements: list[str] = []
    event.listen(db.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    yield db, ids, statements
    db.dispose()


def _records() -> RecordQuery:
    return RecordQuery(RecordFilter(statuses=["active"]), Visibility(4, None), time.time())


def search(
    db: Database, ids: list[str], statements: list[str], query: int = 3, cache_size: int = 100
) -> dict[str, float]:
    """A small-scope vector search as a retrieve makes it: every admitted record's header
    and version read, their vectors scored (the statements it made left in `statements`)."""
    records = _records()
    with deadline.serving_request(), db.read_transaction() as s:
        every = header_repo.every_admitted(s, records, None, 200, (), VECTOR_VERSION)
        assert every is not None and every.versions is not None
        assert set(every.headers) == set(every.versions) == set(ids)
        statements.clear()
        return vector_repo.nearest(
            s, Tier.pgvector, lambda: graded(query), records, 200, small_scope=True,
            ef_search=40, admitted=ids,
            admitted_vectors=pg_vector_cache.cached_vectors(s, every.versions, cache_size),
        )  # fmt: skip


def by_postgres(db: Database, query: int = 3) -> dict[str, float]:
    """The same similarities computed by PostgreSQL (the exact scan of the store)."""
    with db.transaction() as s:
        return vector_repo.nearest(
            s, Tier.pgvector, lambda: graded(query), _records(), 200, small_scope=True,
            ef_search=40,
        )  # fmt: skip


def cache_of(db: Database) -> pg_vector_cache.VectorCache:
    """The cache of a request's reads (kept per engine, as SQLite's vector matrix is)."""
    with deadline.serving_request(), db.read_transaction() as s:
        return pg_vector_cache.cache_of(s)


def reads_vectors(statements: list[str]) -> bool:
    return any("vector_send" in stmt for stmt in statements)


def test_the_vectors_are_read_once_and_scored_as_postgres_scores_them(
    small_scope: tuple[Database, list[str], list[str]],
) -> None:
    db, ids, statements = small_scope
    first = search(db, ids, statements)
    assert reads_vectors(statements) and len(statements) == 1
    again = search(db, ids, statements)
    assert statements == []  # every vector from the cache, a record without one too
    exact = by_postgres(db)
    assert set(first) == set(again) == set(exact) == set(ids[:EMBEDDED])
    for rid, similarity in exact.items():
        assert first[rid] == pytest.approx(similarity, abs=1e-6)
        assert again[rid] == pytest.approx(similarity, abs=1e-6)
    assert max(again, key=lambda r: again[r]) == ids[3]
    with db.transaction() as s:  # writers' sessions share the read sessions' cache
        assert pg_vector_cache.cache_of(s) is cache_of(db)


def test_a_vector_written_again_is_read_again(
    small_scope: tuple[Database, list[str], list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Record 9 re-embedded to point where record 0 did, record 10 embedded at last: the
    next search reads those two vectors (their records' versions changed) and ranks by
    them; the others still come from the cache."""
    db, ids, statements = small_scope
    search(db, ids, statements, query=0)
    with db.transaction() as s:
        queue_repo.store_vectors(s, Tier.pgvector, "m", [(ids[9], graded(0)), (ids[10], graded(1))])
    asked: list[list[str]] = []

    def read(session: Any, wanted: list[str]) -> list[tuple[str, int, bytes | None]]:
        asked.append(wanted)
        return pg_vector_repository.versioned_vectors(session, wanted)

    monkeypatch.setattr(pg_vector_cache, "versioned_vectors", read)
    found = search(db, ids, statements, query=0)
    assert reads_vectors(statements) and asked == [[ids[9], ids[10]]]  # those two only
    assert found[ids[9]] == pytest.approx(1.0) and found[ids[10]] == pytest.approx(
        by_postgres(db, 0)[ids[10]], abs=1e-6
    )
    assert set(found) == {*ids[:EMBEDDED], ids[10]}
    assert len(cache_of(db)) == RECORDS


def test_vectors_dropped_with_the_model_are_not_scored(
    small_scope: tuple[Database, list[str], list[str]],
) -> None:
    """Every vector dropped (a model change): the records' rows are updated with it, so
    the cached vectors are not scored any more; that of a record without text (an
    import's, or one forget scrubbed) neither."""
    db, ids, statements = small_scope
    with db.transaction() as s:
        queue_repo.store_vectors(s, Tier.pgvector, "m", [(ids[11], graded(11))])
        s.execute(text("UPDATE records SET search_text = '' WHERE id = :i"), {"i": ids[11]})
    assert len(search(db, ids, statements)) == EMBEDDED + 1
    with db.transaction() as s:
        queue_repo.drop_all_vectors(s)
    assert search(db, ids, statements) == {}
    assert reads_vectors(statements)


def test_a_full_cache_keeps_its_newest_half_and_a_size_of_0_keeps_none(
    small_scope: tuple[Database, list[str], list[str]],
) -> None:
    db, ids, statements = small_scope
    exact = by_postgres(db)
    found = search(db, ids, statements, cache_size=8)
    assert 0 < len(cache_of(db)) <= 8
    assert found == pytest.approx(exact, abs=1e-6)
    assert search(db, ids, statements, cache_size=8) == pytest.approx(exact, abs=1e-6)
    assert reads_vectors(statements)  # what was dropped is read again
    cache_of(db).clear()
    for _ in range(2):
        assert search(db, ids, statements, cache_size=0) == pytest.approx(exact, abs=1e-6)
        assert reads_vectors(statements)
    assert len(cache_of(db)) == 0


def test_vectors_read_in_binary_are_those_read_as_text(
    small_scope: tuple[Database, list[str], list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The vectors come in binary form (bytes, not 3 KB of hex each): the same bytes, and
    the same versions, as the text form gives."""
    db, ids, _ = small_scope

    def read() -> list[tuple[str, int, bytes | None]]:
        with deadline.serving_request(), db.read_transaction() as s:
            return sorted(pg_vector_repository.versioned_vectors(s, ids))

    binary = read()
    pg_vector_repository._versioned_statement.cache_clear()
    monkeypatch.setattr(pg_vector_repository, "binary_rows", lambda stmt: stmt)
    as_text = read()
    pg_vector_repository._versioned_statement.cache_clear()
    assert binary == as_text and len(binary) == RECORDS
    assert sum(raw is not None for _, _, raw in binary) == EMBEDDED
    with db.transaction() as s:
        xmin: Any = s.scalar(
            text("SELECT xmin::text::bigint FROM records WHERE id = :i"), {"i": ids[0]}
        )
    assert dict((rid, v) for rid, v, _ in binary)[ids[0]] == xmin
    vec = np.frombuffer(dict((rid, raw) for rid, _, raw in binary)[ids[0]] or b"", ">f4", offset=4)
    assert vec.shape == (len(graded(0)),)


def test_a_database_replaced_at_the_same_url_starts_the_cache_over(
    small_scope: tuple[Database, list[str], list[str]],
    pg_url: str,
    pg_server: Any,
    pg_template: str,
    make_client: Callable[..., TestClient],
) -> None:
    """The versions are the rows' transaction ids, which a restored database or a new
    cluster numbers anew: when the connections reach another database at the URL (its
    oid, the cluster's identifier), the vectors kept from the old one are dropped."""
    db, ids, statements = small_scope
    search(db, ids, statements)
    assert len(cache_of(db)) == RECORDS
    name = str(make_url(pg_url).database)
    with psycopg.connect(str(pg_server.get_uri()), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{pg_template}"')
    others = add_records(make_client(make_settings(pg_url)), 3)
    found = search(db, others, statements)
    assert found == {} and len(cache_of(db)) == 3  # none of the old database's twelve


def test_retrieves_over_http_read_a_small_scopes_vectors_once(
    pg_url: str, make_client: Callable[..., TestClient]
) -> None:
    """The service's own retrieve fills its cache: a query retrieve in a scope of a few
    embedded records reads their vectors once, the next one none (its statements counted
    on the service's engine)."""
    embedding = {"provider": "local", "worker_enabled": False}  # the bundled model
    client = make_client(make_settings(pg_url, embedding=embedding))
    ids = add_records(client, 6)
    with app_state(client).db.transaction() as s:
        s.execute(text("UPDATE records SET scope = 'kept'"))
        vectors = [(r, graded(i)) for i, r in enumerate(ids)]
        queue_repo.store_vectors(s, Tier.pgvector, "m", vectors)
    statements: list[str] = []
    engine = app_state(client).db.engine
    event.listen(engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    body = {"query": "fact 3", "scopes": ["kept"], "expand_context": False}
    headers = auth("reader")
    first = client.post("/v1/retrieve", json=body, headers=headers)
    assert first.status_code == 200, first.text
    assert reads_vectors(statements)
    statements.clear()
    second = client.post("/v1/retrieve", json={**body, "query": "fact 4"}, headers=headers)
    assert second.status_code == 200, second.text
    assert statements and not reads_vectors(statements)
    assert len(cache_of(app_state(client).db)) == len(ids)
