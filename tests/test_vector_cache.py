"""The SQLite vector matrix stays current without counting rows: added vectors appear,
replaced ones are re-read, removed ones are gone (migration 0008's removal counter); and
a candidate-id filter looks ids up by key whatever the number of ids."""

from __future__ import annotations

import math
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete, select, text, update

from app.db import Database, Tier, column_rows
from app.embedding import queue_repository as queue_repo
from app.models import RecordRow, TagRow
from app.records.filters import RecordFilter, RecordQuery
from app.records.repository import query_clauses
from app.retrieve import repository as search_repo
from app.retrieve import vector_cache
from app.retrieve.vector_cache import sqlite_nearest
from app.trust import Visibility
from tests.conftest import auth, make_settings

DIM = 384


@pytest.fixture
def sqlite_db(
    sqlite_template: Path, tmp_path: Path, make_client: Callable[..., TestClient]
) -> Iterator[tuple[Database, TestClient]]:
    target = tmp_path / "membrane.db"
    shutil.copyfile(sqlite_template, target)
    db = Database(f"sqlite:///{target}")
    yield db, make_client(make_settings(f"sqlite:///{target}"))
    db.dispose()


def axis(i: int) -> list[float]:
    v = [0.0] * DIM
    v[i] = 1.0
    return v


def add_records(client: TestClient, n: int) -> list[str]:
    """n semantic facts through batch capture; their ids in order."""
    ids: list[str] = []
    for start in range(0, n, 1000):
        items = [
            {"source": "t", "source_kind": "observation", "content": {"text": f"fact {i}"}}
            for i in range(start, min(n, start + 1000))
        ]
        r = client.post("/v1/capture/batch", json={"items": items}, headers=auth("writer"))
        assert r.status_code == 200, r.text
        ids += [x["result"]["primary_record"]["id"] for x in r.json()["results"]]
    return ids


def checked_ids(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids the vector search checks against the filters from now on, in order."""
    checked: list[str] = []
    filter_check = vector_cache._filter_check

    def spy(*args: Any) -> Callable[[list[str]], set[str]]:
        check = filter_check(*args)

        def recorded(candidates: list[str]) -> set[str]:
            checked.extend(candidates)
            return check(candidates)

        return recorded

    monkeypatch.setattr(vector_cache, "_filter_check", spy)
    return checked


def nearest(
    db: Database,
    query: int,
    also: Sequence[str] = (),
    *,
    selective: bool = True,
    types: Sequence[str] = (),
) -> dict[str, float]:
    q = np.asarray(axis(query), dtype=np.float32)
    flt = RecordFilter(statuses=["active"], types=list(types))
    records = RecordQuery(flt, Visibility(4, None), time.time())
    with db.transaction() as s:
        return sqlite_nearest(s, lambda: q, records, 10, list(also), selective=selective)


@pytest.mark.parametrize("selective", [True, False], ids=["listed", "scored-then-checked"])
def test_matrix_follows_added_replaced_and_removed_vectors(
    sqlite_db: tuple[Database, TestClient], selective: bool
) -> None:
    """Both ways of searching (the filter's records listed, or every row scored and the
    best checked against the filter) follow the table."""
    db, client = sqlite_db

    def near(query: int, also: Sequence[str] = ()) -> dict[str, float]:
        return nearest(db, query, also, selective=selective)

    a, b, c = add_records(client, 3)
    with db.transaction() as s:
        queue_repo.store_vectors(s, Tier.sqlite, "m", [(a, axis(0)), (b, axis(1))])
    assert near(0)[a] == pytest.approx(1.0)

    with db.transaction() as s:  # added: c appears
        queue_repo.store_vectors(s, Tier.sqlite, "m", [(c, axis(2))])
    assert near(2)[c] == pytest.approx(1.0)

    with db.transaction() as s:  # replaced: a now points along axis 3
        queue_repo.store_vectors(s, Tier.sqlite, "m", [(a, axis(3))])
    found = near(3)
    assert found[a] == pytest.approx(1.0)
    assert near(0, also=[a])[a] == pytest.approx(0.0)

    with db.transaction() as s:  # removed with its record (ON DELETE CASCADE)
        s.execute(text("PRAGMA foreign_keys = ON"))
        s.execute(delete(RecordRow).where(RecordRow.id == b))
    with db.transaction() as s:
        removals = s.scalar(text("SELECT n FROM vector_removals"))
        left = set(s.scalars(text("SELECT record_id FROM record_embeddings")))
    assert left == {a, c}
    assert removals == 2  # a's replacement and b's removal
    assert b not in near(1, also=[b])


def test_scored_then_checked_finds_few_passing_rows_in_chunks(
    sqlite_db: tuple[Database, TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a selective filter every row is scored and the best are checked against the
    filter, widening to every row, in statements of at most _PASSING_CHUNK ids: a filter
    that passes one record finds it however far down it ranks, and one that passes none
    answers nothing."""
    db, client = sqlite_db
    monkeypatch.setattr(vector_cache, "_PASSING_CHUNK", 7)
    ids = add_records(client, 500)
    with db.transaction() as s:
        vectors = [(rid, axis(0 if i < 499 else 1)) for i, rid in enumerate(ids)]
        queue_repo.store_vectors(s, Tier.sqlite, "m", vectors)
        s.execute(update(RecordRow).where(RecordRow.id == ids[-1]).values(type="competence"))
    found = nearest(db, 0, selective=False, types=["competence"])
    assert list(found) == [ids[-1]] and found[ids[-1]] == pytest.approx(0.0)
    assert nearest(db, 0, selective=False, types=["plan_graph"]) == {}
    assert len(nearest(db, 0, selective=False)) == 10


def test_scored_then_checked_returns_the_nearest_passing_rows_in_order(
    sqlite_db: tuple[Database, TestClient],
) -> None:
    """When some of the nearest rows fail the filter, the answer is still the `limit`
    nearest that pass, nearest first: six of the fifteen nearest are retracted, so the
    first window (a little wider than the limit) holds nine that pass and is widened."""
    db, client = sqlite_db
    ids = add_records(client, 40)
    angles = [0.02 * i for i in range(40)]  # rank i: cosine cos(0.02 i) with axis 0
    retracted = [ids[i] for i in (0, 2, 4, 6, 8, 10)]
    with db.transaction() as s:
        vectors = [
            (rid, [math.cos(a), math.sin(a)] + [0.0] * (DIM - 2))
            for rid, a in zip(ids, angles, strict=True)
        ]
        queue_repo.store_vectors(s, Tier.sqlite, "m", vectors)
        s.execute(update(RecordRow).where(RecordRow.id.in_(retracted)).values(status="retracted"))
    found = nearest(db, 0, selective=False)
    ranks = [1, 3, 5, 7, 9, 11, 12, 13, 14, 15]
    assert list(found) == [ids[i] for i in ranks]
    assert [found[ids[i]] for i in ranks] == pytest.approx([math.cos(angles[i]) for i in ranks])


def test_a_scope_too_large_to_list_is_scored_alone(
    sqlite_db: tuple[Database, TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request of scopes that hold too many records to list scores their rows only:
    the best rows of other scopes are never checked against the filter, and the scope's
    best are found however far down the whole store they rank."""
    db, client = sqlite_db
    items = [
        {"source": "t", "source_kind": "observation", "content": {"text": f"fact {i}"},
         "scope": "small" if i % 10 == 0 else "big"}
        for i in range(300)
    ]  # fmt: skip
    r = client.post("/v1/capture/batch", json={"items": items}, headers=auth("writer"))
    ids = [x["result"]["primary_record"]["id"] for x in r.json()["results"]]
    small = {rid for i, rid in enumerate(ids) if i % 10 == 0}
    with db.transaction() as s:  # every record of "big" is nearer the query than "small"
        vectors = [(rid, axis(1) if rid in small else axis(0)) for rid in ids]
        vectors[10] = (ids[10], [0.6, 0.8] + [0.0] * (DIM - 2))  # small's nearest
        queue_repo.store_vectors(s, Tier.sqlite, "m", vectors)
    checked = checked_ids(monkeypatch)
    q = np.asarray(axis(0), dtype=np.float32)
    records = RecordQuery(RecordFilter(scopes=["small"]), Visibility(4, None), time.time())
    with db.transaction() as s:
        found = sqlite_nearest(s, lambda: q, records, 10, [], selective=False)
    assert set(found) <= small and len(found) == 10
    assert next(iter(found)) == ids[10] and found[ids[10]] == pytest.approx(0.6)
    assert checked and set(checked) <= small


def test_a_wider_window_checks_only_the_ids_it_adds(
    sqlite_db: tuple[Database, TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Across scopes, a filter only the farthest records pass (a tag): the window widens
    (3, 8, 64, every row for a limit of 2) until two pass, and each id is checked against
    the filters once, not once per window."""
    db, client = sqlite_db
    ids = add_records(client, 100)
    with db.transaction() as s:
        vectors = [(rid, [1.0, i / 10] + [0.0] * (DIM - 2)) for i, rid in enumerate(ids)]
        queue_repo.store_vectors(s, Tier.sqlite, "m", vectors)
        s.add_all([TagRow(record_id=rid, tag="far") for rid in ids[95:]])
    checked = checked_ids(monkeypatch)
    q = np.asarray(axis(0), dtype=np.float32)
    flt = RecordFilter(statuses=["active"], tags_all=["far"])
    records = RecordQuery(flt, Visibility(4, None), time.time())
    with db.transaction() as s:
        found = sqlite_nearest(s, lambda: q, records, 2, [], selective=False)
    assert list(found) == [ids[95], ids[96]]
    assert sorted(checked) == sorted(ids)  # every row once: the last window is the store


@pytest.mark.parametrize("share", [0.05, 0.6])
def test_similarities_of_some_rows_match_the_whole_product(
    share: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scope's rows are gathered a chunk at a time when few, read from one pass over the
    matrix when many: either way each row's similarity, in the rows' order."""
    monkeypatch.setattr(vector_cache, "_GATHER_CHUNK", 7)
    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((200, 16)).astype(np.float32)
    q = rng.standard_normal(16).astype(np.float32)
    rows = np.sort(rng.choice(200, size=int(200 * share), replace=False))
    got = vector_cache.similarities(matrix, rows, q)
    assert got.shape == (len(rows),)
    assert np.allclose(got, (matrix @ q)[rows], atol=1e-5)
    assert vector_cache.similarities(matrix, rows[:0], q).shape == (0,)


# sqlite_stat1 of the records table as ANALYZE (analysis_limit 1000) left it in the
# 200,000-record scale store: ~1,000 records per status, which is wrong by two orders.
SCALE_STATS = {
    "ix_records_status": "206700 1001",
    "ix_records_embedding_status": "201159 1001",
    "ix_records_created": "204309 1 1",
    "ix_records_type_created": "197505 1001 1",
    "ix_records_scope_created_id": "249936 167 1 1",
    "sqlite_autoindex_records_1": "216376 1",
}


def test_many_candidate_ids_are_looked_up_by_key(sqlite_db: tuple[Database, TestClient]) -> None:
    """With statistics that count ~1,000 records per status, SQLite used to scan the status
    index for an IN list of 800 ids (126 ms at 200,000 records instead of 7)."""
    db, client = sqlite_db
    ids = add_records(client, 5) + [f"missing-{i}" for i in range(795)]
    with db.transaction() as s:
        s.execute(text("ANALYZE"))
        s.execute(text("DELETE FROM sqlite_stat1 WHERE tbl = 'records'"))
        for index, stat in SCALE_STATS.items():
            s.execute(
                text("INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('records', :i, :s)"),
                {"i": index, "s": stat},
            )
        s.execute(text("ANALYZE sqlite_schema"))  # reload the statistics
    records = RecordQuery(
        RecordFilter(statuses=["active", "contested"]), Visibility(4, None), time.time()
    )
    with db.transaction() as s:
        clauses = query_clauses(records, "sqlite")
        stmt = select(RecordRow.id).where(RecordRow.id.in_(ids), *clauses)
        compiled = stmt.compile(s.get_bind(), compile_kwargs={"literal_binds": True})
        plan = " ".join(str(r[-1]) for r in s.execute(text(f"EXPLAIN QUERY PLAN {compiled}")))
        assert len(set(s.scalars(stmt))) == 5
    assert "ix_records_status" not in plan
    assert "sqlite_autoindex_records_1" in plan


def test_bm25_reads_the_matrix_signature_for_the_vector_search(
    sqlite_db: tuple[Database, TestClient],
) -> None:
    """Across every scope, SQLite's BM25 statement reads the vector matrix's change
    signature too, so the vector search that follows makes no statement for it; it is
    the signature a statement of its own reads, and follows the vectors' changes."""
    db, client = sqlite_db
    a, b = add_records(client, 2)
    records = RecordQuery(RecordFilter(statuses=["active"]), Visibility(4, None), time.time())

    def signatures() -> tuple[tuple[int, int] | None, tuple[int, int]]:
        with db.transaction() as s:
            found = search_repo.lexical(s, ["fact"], records, 10, with_signature=True)
            assert set(found.full) == {a, b}
            own = column_rows(s, select(*vector_cache.SIGNATURE)).one().tuple()
            return found.signature, own

    before, own = signatures()
    assert before == own
    with db.transaction() as s:
        queue_repo.store_vectors(s, Tier.sqlite, "m", [(a, axis(0)), (b, axis(1))])
    after, own = signatures()
    assert after == own and after != before
    with db.transaction() as s:
        unmatched = search_repo.lexical(s, ["nowhere"], records, 10, with_signature=True)
    assert unmatched.signature is None and not unmatched.full
