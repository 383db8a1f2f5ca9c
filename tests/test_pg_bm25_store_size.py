"""PostgreSQL BM25 below LARGE_STORE takes the store's size from the planner's estimate
once the table has been analyzed (`pg_terms_repository._RECORDS_IN_STORE`): the estimate
follows the table's growth, and a word in more records than an old estimate still scores
(the size used is never below a word's count)."""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, text

from app.db import Database, column_rows
from app.records.filters import RecordFilter, RecordQuery
from app.retrieve import pg_terms_repository
from app.retrieve import pg_text_repository as pg_text
from app.retrieve.lexical_scores import Naming
from app.retrieve.pg_terms_repository import MIN_IDF
from app.trust import Visibility
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
            session,
            select(weights.c.lexeme, weights.c.idf, weights.c.df),
            {"query": "pottery kiln", "unscored": ""},
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


def _reference_parts(
    rows: list[tuple[str, str, int]], query: list[str]
) -> dict[str, dict[str, float]]:
    """BM25 as pg_text_repository documents it, in Python, each match's part per lexeme:
    k1 1.2, b 0.75; idf ln((N - df + 0.5) / (df + 0.5)), at least MIN_IDF, N the store's
    records; tf a lexeme's positions in the record's tsvector; dl its lexemes; avgdl over
    the matches. `rows`: (id, tsvector as text, its length)."""
    vectors = {rid: _tf(tsv) for rid, tsv, _dl in rows}
    lengths = {rid: dl for rid, _tsv, dl in rows}
    n = len(rows)
    df = {lx: sum(lx in v for v in vectors.values()) for lx in query}
    idf = {lx: max(MIN_IDF, math.log((n - d + 0.5) / (d + 0.5))) for lx, d in df.items()}
    matches = [rid for rid, v in vectors.items() if any(lx in v for lx in query)]
    avgdl = max(sum(lengths[rid] for rid in matches) / len(matches), 1.0)
    k1, b = pg_text.K1, pg_text.B
    parts: dict[str, dict[str, float]] = {}
    for rid in matches:
        norm = k1 * (1 - b + b * lengths[rid] / avgdl)
        tfs = {lx: vectors[rid][lx] for lx in query if lx in vectors[rid]}
        parts[rid] = {lx: idf[lx] * tf * (k1 + 1) / (tf + norm) for lx, tf in tfs.items()}
    return parts


def _tf(tsv: str) -> dict[str, int]:
    """lexeme → how many positions, from a tsvector's text form ('word':1,3 'other':2)."""
    found = re.findall(r"'((?:[^']|'')+)'(?::([\d,]+))?", tsv)
    return {lx.replace("''", "'"): len(pos.split(",")) if pos else 1 for lx, pos in found}


def test_scores_are_bm25_as_documented(pg_url: str, make_client: Callable[..., TestClient]) -> None:
    """Every match's score across every scope (the statement counting the lexemes), and
    its second score without an unscored word, equal BM25 computed in Python from the
    records' own tsvectors."""
    client = make_client(make_settings(pg_url))
    texts = [
        "the harbor lights were on", "lights lights lights in the harbor at night",
        "a quiet morning by the old harbor", "the market sold fish",
        "night fishing near the lights", "harbor",
        "the ferry left the harbor before the lights came on at the pier",
    ]  # fmt: skip
    for t in texts:
        capture(client, t)
    records = RecordQuery(RecordFilter(statuses=["active"]), Visibility(4, None), time.time())
    with app_state(client).db.read_transaction() as session:
        stored = session.execute(
            text("SELECT id, search_tsv::text, length(search_tsv) FROM records")
        )
        rows = [(str(rid), str(tsv), int(dl)) for rid, tsv, dl in stored]
        lexemes = ["harbor", "light", "night"]  # the query's, as to_tsvector stems them
        naming = Naming(unscored=["night"])
        found = pg_text.bm25(session, ["harbor", "lights", "night"], records, 50, naming=naming)
        full, without = found.full, found.without_unscored
    parts = _reference_parts(rows, lexemes)
    assert len(parts) == 6  # every text but the market's
    assert full == pytest.approx({rid: sum(p.values()) for rid, p in parts.items()}, rel=1e-9)
    kept = {rid: sum(v for lx, v in p.items() if lx != "night") for rid, p in parts.items()}
    assert without == pytest.approx(kept, rel=1e-9, abs=1e-12)
