"""PostgreSQL + pgvector vector search: the HNSW walk is as broad as the setting asks
(never narrower than the candidates wanted), and it finds the nearest records."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.db import Database, Tier
from app.embedding import queue_repository as queue_repo
from app.records.filters import RecordFilter, RecordQuery
from app.retrieve import vector_repository as vector_repo
from app.trust import Visibility
from tests.conftest import make_settings
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
    assert ef == str(vector_repo.MAX_EF_SEARCH)


def test_small_scope_is_ranked_exactly_without_hnsw(
    db_with_vectors: tuple[Database, list[str]],
) -> None:
    db, ids = db_with_vectors
    found, ef = search(db, 10, 300, small=True)
    assert ef == "40"  # pgvector's default: the exact scan set nothing
    assert max(found, key=lambda r: found[r]) == ids[5]
    assert len(found) == 10
