"""The entity-name look-up of a query retrieve across scopes runs inside its BM25
statement (`Naming.look_up`): what it decides (the unscored words, the mentions flags,
the matches) must be what the look-up run alone and `terms.unscored_names` decide."""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

from app.entities import repository as entity_repo
from app.entities.repository import normalize
from app.records.filters import RecordFilter, RecordQuery
from app.retrieve import repository as search_repo
from app.retrieve.header_repository import NameLookUp
from app.retrieve.lexical_scores import LexicalScores, Naming
from app.retrieve.terms import name_candidates, query_terms, unscored_names
from app.trust import Visibility
from tests.conftest import app_state
from tests.test_retrieve import capture, create

QUERIES = [
    "did Alice like the garden party in New York",  # two names, one of two words
    "what did Bob say about the harbor",
    "Zed garden party",  # a name the reader may not read
    "Alice party",  # too few other words: the name stays scored
    "new york harbor lights tonight",  # a multi-word name alone
    "nothing named here at all",
]


def _store(client: TestClient) -> None:
    create(client, {"kind": "entity", "canonical_name": "New York"}, scope="a")
    create(client, {"kind": "entity", "canonical_name": "Zed"}, sensitivity="high")
    lines = [
        ("Alice", "the garden party was lovely"), ("Bob", "I told Alice about New York"),
        ("Alice", "thanks, see you at the harbor"), ("Zed", "the garden party at dawn"),
        ("Bob", "the harbor lights of New York tonight"), ("Alice", "party party party"),
    ]  # fmt: skip
    for i, (who, text) in enumerate(lines):
        capture(client, f"{who}: {text}", content={"speaker": who}, scope="ab"[i % 2])


def _both(
    client: TestClient, query: str, vis: Visibility, scopes: list[str] | None = None
) -> tuple[LexicalScores, ...]:
    terms = query_terms(query)
    names = [normalize(n) for n in name_candidates(query)]
    records = RecordQuery(RecordFilter(statuses=["active"], scopes=scopes or []), vis, time.time())
    with app_state(client).db.read_transaction() as session:
        inside = search_repo.lexical(
            session, terms, records, 50, naming=Naming(look_up=NameLookUp(names, None, vis))
        )
        alone = entity_repo.matching_terms(session, names, None, vis)
        readable = [m for m in alone if m.readable]
        unscored = unscored_names(terms, {m.term for m in readable})
        mentioning = sorted({m.record_id for m in readable})
        given = search_repo.lexical(
            session, terms, records, 50, naming=Naming(unscored, mentioning)
        )
        if unscored and app_state(client).db.engine.dialect.name == "sqlite":
            # FTS5's scores sum one part per term over store-wide statistics: the scores
            # without the unscored terms are a search of the others' (0: none of them).
            scored = [t for t in terms if t not in unscored]
            alone_scores = search_repo.lexical(session, scored, records, 1000).full
            expected = {rid: alone_scores.get(rid, 0.0) for rid in given.full}
            assert given.without_unscored == pytest.approx(expected, rel=1e-9), query
    assert inside.names is not None
    assert sorted(map(tuple, _fields(inside.names))) == sorted(map(tuple, _fields(alone)))
    return inside, given


def _fields(matches: Any) -> list[list[Any]]:
    return [[m.record_id, m.term, m.readable] for m in matches]


@pytest.mark.parametrize("max_rank", [4, 1], ids=["hyper", "low"])
def test_the_look_up_inside_decides_as_the_look_up_alone(client: TestClient, max_rank: int) -> None:
    _store(client)
    vis = Visibility(max_rank, None)
    flagged = 0
    for query in QUERIES:
        inside, given = _both(client, query, vis)
        assert inside.full == pytest.approx(given.full, rel=1e-9), query
        assert inside.without_unscored == pytest.approx(given.without_unscored, rel=1e-9), query
        assert inside.headers == given.headers, query  # the mentions flags among them
        flagged += sum(h.mentions_named for h in inside.headers.values())
    assert flagged > 0  # some candidate mentions a readable entity the query names


def test_without_a_lexical_match_the_look_up_still_answers(client: TestClient) -> None:
    _store(client)
    create(client, {"kind": "entity", "canonical_name": "Quill"}, scope="a")
    create(client, {"kind": "entity", "canonical_name": "Quill"}, sensitivity="high")
    # The readable entity is no lexical candidate under a filter of episodes only: the
    # statement's one row is the look-up's, and its matches come back.
    records = RecordQuery(RecordFilter(statuses=["active"], types=["episodic"]),
                          Visibility(1, None), time.time())  # fmt: skip
    look_up = NameLookUp(["quill"], None, Visibility(1, None))
    with app_state(client).db.read_transaction() as session:
        inside = search_repo.lexical(
            session, ["quill"], records, 50, naming=Naming(look_up=look_up)
        )
    assert inside.full == {} and inside.names is not None
    assert sorted(m.readable for m in inside.names) == [False, True]


@pytest.mark.parametrize("store", ["sqlite"])  # the rescoring statement is SQLite's (FTS5)
def test_a_scope_s_rescoring_returns_its_own_matches_only(client: TestClient) -> None:
    """The rescoring without the unscored names scores the matches between the lowest and
    highest rowid of the best ones; where scopes interleave (here a and b alternate) that
    range holds other scopes' matches, which must not come back as rows (at 200,000
    records a one-scope retrieve stepped 3,600 such rows to keep 70)."""
    state = app_state(client)
    _store(client)
    for i in range(6):  # more matches of both scopes, alternating
        capture(client, f"Alice at the garden party, take {i}", scope="ab"[i % 2])
    query = "did Alice like the garden party"
    vis = Visibility(4, None)
    records = RecordQuery(RecordFilter(statuses=["active"], scopes=["a"]), vis, time.time())
    names = NameLookUp([normalize(n) for n in name_candidates(query)], ["a"], vis)
    seen: list[tuple[str, Any]] = []

    def keep(_conn: Any, _cursor: Any, statement: str, params: Any, *_rest: Any) -> None:
        seen.append((statement, params))

    event.listen(state.db.engine, "before_cursor_execute", keep)
    try:
        with state.db.read_transaction() as session:
            found = search_repo.lexical(
                session, query_terms(query), records, 50, naming=Naming(look_up=names)
            )
    finally:
        event.remove(state.db.engine, "before_cursor_execute", keep)
    assert found.full and found.without_unscored != found.full  # "alice" was rescored
    [(statement, params)] = [(s, p) for s, p in seen if "rescored" in s]
    with state.db.engine.connect() as conn:
        rows = conn.exec_driver_sql(statement, params).all()
    best = {row[0] for row in rows if row[2] is not None}
    rescored = {row[0] for row in rows if row[2] is None and row[0] is not None}
    assert rescored and rescored <= best
