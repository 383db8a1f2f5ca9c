"""Retrieval SQL: lexical candidates per backend, full rows (light candidate rows:
header_repository.py; temporal neighbours: neighbour_repository.py; the order of a
retrieve without a query: salience_repository.py).

Both backends rank lexical matches by BM25 (k1 = 1.2, b = 0.75) over OR-ed query terms:
SQLite through FTS5's bm25(); PostgreSQL by the same formula over the `search_tsv`
column (app/retrieve/pg_text_repository.py). Callers pass a RecordQuery; its clauses come from
app.records.clauses (`query_clauses`, or `bound_clauses` in statements built once per
filter shape), so retrieval and listing agree on visibility.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, NamedTuple

from sqlalchemy import (
    Integer,
    Select,
    Text,
    bindparam,
    case,
    column,
    func,
    literal,
    literal_column,
    select,
    table,
)
from sqlalchemy.engine import Result
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.selectable import CTE

from app.db import column_rows, dialect_of, prepared
from app.enums import LAYER_ORDER
from app.models import RecordRow
from app.models.clauses import among_param, visibility_params
from app.records.clauses import (
    FilterShape,
    bound_clauses,
    filter_params,
    filter_shape,
)
from app.records.filters import RecordQuery
from app.relations.clauses import Edges, edges_column, edges_of
from app.retrieve import pg_terms_repository, vector_cache
from app.retrieve import pg_text_repository as pg_text
from app.retrieve.header_repository import (
    RecordHeader,
    candidate_columns,
    header_from,
    mentioning_params,
)
from app.trust import Visibility

K1 = 1.2
B = 0.75
MIN_IDF = 1e-6  # as FTS5: a term in more than half the records still counts a little

_fts = table("records_fts", column("rowid", Integer), column("search_text", Text))
_tsv: ColumnElement[Any] = literal_column("records.search_tsv")


def layer_rank() -> ColumnElement[int]:
    """Position of the record's type in LAYER_ORDER (working first, episodic last)."""
    return case(
        {t.value: i for i, t in enumerate(LAYER_ORDER)},
        value=RecordRow.type,
        else_=len(LAYER_ORDER),
    )


def records_in_scopes(session: Session, scopes: Sequence[str], n: int) -> int:
    """The records that lie in `scopes` (no scopes: in the whole store), counted up to `n`
    at most (an index-only count)."""
    inside = select(RecordRow.id).limit(n)
    if scopes:
        inside = inside.where(RecordRow.scope.in_(list(scopes)))
    return int(session.scalar(select(func.count()).select_from(inside.subquery())) or 0)


# -- lexical ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LexicalScores:
    """BM25 scores (higher is better) of the lexical candidates: with every query term, and
    without the `unscored` terms (the same dict when there are none); the candidates
    carry their headers (`headers`, as `header_repository.headers` gives them)."""

    full: dict[str, float]
    without_unscored: dict[str, float]
    headers: dict[str, RecordHeader] = field(default_factory=dict)
    # SQLite: the vector matrix's change signature, when asked for and a match was found
    signature: tuple[int, int] | None = None


def lexical(
    session: Session,
    terms: Sequence[str],
    records: RecordQuery,
    limit: int,
    *,
    small_scope: bool = False,
    unscored: Sequence[str] = (),
    mentioning: Sequence[str] = (),
    with_headers: bool = True,
    with_signature: bool = False,
) -> LexicalScores:
    """The best `limit` matches of any of `terms` by BM25 over all of them, scored with
    all of them and without the `unscored` ones (the words of names the entity links
    match: see retrieve.terms.unscored_names). `small_scope`: see
    retrieve.candidates.SMALL_SCOPE. `mentioning`: as for `header_repository.headers`;
    `with_headers`: False when the caller has the candidates' headers already;
    `with_signature` (SQLite): read the vector matrix's change signature too
    (`vector_cache.SIGNATURE`), for the vector search that follows."""
    if not terms:
        return LexicalScores({}, {})
    if dialect_of(session) == "sqlite":
        reads = _Reads(with_headers, with_signature)
        return _sqlite_bm25(session, list(terms), records, limit, unscored, mentioning, reads)
    full, without, headers = pg_text.bm25(
        session,
        terms,
        records,
        limit,
        small_scope=small_scope,
        unscored=unscored,
        mentioning=mentioning,
        with_headers=with_headers,
    )
    return LexicalScores(full, without, headers)


_RANK = func.bm25(literal_column("records_fts"), 1.0, 0.0)  # lower is better in FTS5


def _sqlite_bm25(
    session: Session,
    terms: list[str],
    records: RecordQuery,
    limit: int,
    unscored: Sequence[str],
    mentioning: Sequence[str],
    reads: _Reads,
) -> LexicalScores:
    matching = _fts5_matching(terms, records.filter.scopes)
    if matching is None:
        return LexicalScores({}, {})
    store_wide = not records.filter.scopes and records.visibility.scopes is None
    shape = filter_shape(records, "sqlite")
    stmt = _bm25_statement(shape, store_wide, bool(mentioning), reads)
    params = {
        **filter_params(records),
        **mentioning_params(mentioning),
        "match": matching,
        "limit": limit,
    }
    if store_wide:
        params["newest_match"] = _text_match(terms)
        params["newest_offset"] = pg_text.MAX_MATCHES - 1
        params["large_store"] = pg_terms_repository.LARGE_STORE
    found: dict[int, tuple[str, float]] = {}
    headers: dict[str, RecordHeader] = {}
    bounded, signature = False, None
    for rowid, score, oldest, *header in column_rows(session, stmt, params):
        if reads.signature:
            *header, removals, max_rowid = header
            signature = (int(removals), int(max_rowid))
        found[rowid] = (header[0], -float(score))
        if reads.headers:
            headers[header[0]] = header_from(records.now, header)
        bounded = bool(oldest)
    full = dict(found.values())
    silent = set(unscored)
    scored = None
    if silent and found and not bounded:
        scored = _fts5_matching([t for t in terms if t not in silent], records.filter.scopes)
    if scored is None:
        # Bounded: the query's words match more than MAX_MATCHES records across every
        # scope of a large store; a second pass there cost 20-40 ms at 200,000 records
        # (each match in range scored, or each found rowid probed at ~200 µs), so the
        # names are scored as words.
        return LexicalScores(full, full, headers, signature)
    # FTS5's bm25() sums one part per query term over the same statistics: the found
    # records' scores under the scored terms alone are their full scores less the
    # unscored terms' (0 for a record that holds none of them). The same match as above
    # without those terms, over the found rowids' range: no more rows than the first pass
    # visited (an IN list of the rowids is not handed to FTS5; each is probed alone).
    rescored = {"match": scored, "lowest": min(found), "highest": max(found)}
    without = dict.fromkeys(full, 0.0)
    for rowid, score in column_rows(session, _RESCORED, rescored):
        if rowid in found:
            without[found[rowid][0]] = -float(score)
    return LexicalScores(full, without, headers, signature)


_MATCH: ColumnElement[bool] = literal_column("records_fts").op("MATCH")(bindparam("match"))
_RESCORED = select(_fts.c.rowid, _RANK).where(
    _MATCH, _fts.c.rowid.between(bindparam("lowest"), bindparam("highest"))
)


class _Reads(NamedTuple):
    """What SQLite's BM25 statement reads beside the matches' ids and scores."""

    headers: bool
    signature: bool


@cache
def _bm25_statement(
    shape: FilterShape, store_wide: bool, mentioning: bool, reads: _Reads
) -> Select[Any]:
    """The best matches of the `match` parameter by BM25 under the filters, with their
    headers (`candidate_columns`), built once per shape; `store_wide` (no scope: every scope
    of the store) among the newest MAX_MATCHES matches of `newest_match` only on a large
    store (`_newest_matches_start`). The headers are read for the best `limit` only:
    FTS5 ranks every match, and reading a header's columns for each cost more."""
    texts: Any = _fts
    start: ColumnElement[int] = literal(0)
    if store_wide:
        bound = _newest_matches_start()
        texts = bound.join(_fts, _fts.c.rowid >= bound.c.start)
        start = bound.c.start
    joined = texts.join(RecordRow, _fts.c.rowid == _RECORD_ROWID)
    best = (
        select(_fts.c.rowid, _RANK.label("rank"), start.label("start"))
        .select_from(joined)
        .where(_MATCH, *bound_clauses(shape))
        .order_by(_RANK)
        .limit(bindparam("limit"))
        .cte("best")
        .prefix_with("MATERIALIZED")
    )
    columns = candidate_columns(shape.dialect, mentioning, reads.headers)
    signature = vector_cache.SIGNATURE if reads.signature else ()
    return select(best.c.rowid, best.c.rank, best.c.start, *columns, *signature).join_from(
        best, RecordRow, best.c.rowid == _RECORD_ROWID
    )


_RECORD_ROWID: ColumnElement[int] = literal_column("records.rowid", Integer)


def _text_match(terms: list[str]) -> str:
    return "search_text : (" + fts5_match(terms) + ")"


def _fts5_matching(terms: list[str], scopes: Sequence[str]) -> str | None:
    """FTS5's MATCH expression of any of `terms` in the search text, within `scopes` when
    given; None when no term is left to match."""
    if not fts5_match(terms):
        return None
    match = _text_match(terms)
    if scopes:
        # The scope is indexed too (migration 0003): FTS5 intersects the text query with
        # the scopes' posting lists and ranks only their records.
        keys = " OR ".join(f'"{fts5_scope_key(s)}"' for s in scopes)
        match = f"scope_key : ({keys}) AND {match}"
    return match


# records_fts as the walk for the newest matches reads it (the ranking reads it too).
_NEWEST = _fts.alias("newest")


def _newest_matches_start() -> CTE:
    """One row, `start`: on a large store (`large_store` records), the rowid from which on
    the newest MAX_MATCHES records (`newest_offset` + 1) match the `newest_match`
    parameter; 0 when fewer match or the store is smaller. FTS5 computes bm25() for every
    match it visits (~4 µs each): a query of common words across every scope of 200,000
    records matched ~50,000 of them. As on PostgreSQL (app/retrieve/pg_text_repository.py),
    the newest MAX_MATCHES are ranked then. Walking the matches in rowid order computes no
    score, and the rowid bound keeps FTS5 inside that range. Materialized and joined
    first, so that it is computed once and FTS5 receives the bound as a rowid constraint
    (one statement with the ranking; the size and the walk used to be two more)."""
    newest = (
        select(_NEWEST.c.rowid)
        .where(literal_column("newest.records_fts").op("MATCH")(bindparam("newest_match")))
        .order_by(_NEWEST.c.rowid.desc())
        .limit(1)
        .offset(bindparam("newest_offset"))
        .scalar_subquery()
    )
    largest = literal_column("(SELECT coalesce(max(rowid), 0) FROM records)", Integer)
    start = case((largest >= bindparam("large_store"), func.coalesce(newest, 0)), else_=0)
    return select(start.label("start")).cte("bound").prefix_with("MATERIALIZED")


def fts5_scope_key(scope: str) -> str:
    """The token migration 0003 indexes for a scope (hex, E→G and D→H: nothing for the
    porter stemmer to strip)."""
    return "x" + scope.encode("utf-8").hex().upper().replace("E", "G").replace("D", "H")


def fts5_match(terms: list[str]) -> str:
    """An FTS5 MATCH expression: each term quoted (no operators leak in), OR-ed."""
    return " OR ".join('"' + t.replace('"', "") + '"' for t in terms if t.replace('"', ""))


# -- full rows -------------------------------------------------------------------------


def load(
    session: Session, ids: Sequence[str], records: RecordQuery | None = None
) -> dict[str, RecordRow]:
    """Full rows of the records among `ids` (that `records` admits, when given)."""
    if not ids:
        return {}
    dialect = dialect_of(session)
    shape = filter_shape(records, dialect) if records is not None else None
    params = filter_params(records) if records is not None else {}
    stmt = _load_statement(dialect, shape)
    return {r.id: r for r in session.scalars(stmt, {**params, "ids": sorted(set(ids))})}


@cache
def _load_statement(dialect: str, shape: FilterShape | None) -> Select[RecordRow]:
    clauses = bound_clauses(shape) if shape is not None else ()
    return select(RecordRow).where(among_param(RecordRow.id, "ids", dialect), *clauses)


def load_with_edges(
    session: Session, ids: Sequence[str], reading: Visibility, edge_limit: int
) -> tuple[dict[str, RecordRow], Edges]:
    """`load`, each row with its outgoing edges that `reading` may see (the first
    `edge_limit`), in the same statement."""
    if not ids:
        return {}, {}
    dialect = dialect_of(session)
    stmt = _load_with_edges_statement(dialect, reading.scopes is not None)
    params = {**visibility_params(reading), "edge_limit": edge_limit, "ids": sorted(set(ids))}
    return rows_and_edges(session.execute(stmt, params))


@cache
def _load_with_edges_statement(dialect: str, scoped: bool) -> Select[Any]:
    edges = edges_column(dialect, scoped)
    stmt = select(RecordRow, edges).where(among_param(RecordRow.id, "ids", dialect))
    # Look-ups by key whatever the ids: prepared on PostgreSQL (parsing and planning it
    # had been ~0.5 ms of server time a retrieve).
    return prepared(stmt)


def rows_and_edges(result: Result[RecordRow, Any]) -> tuple[dict[str, RecordRow], Edges]:
    """Rows in the statement's order (dicts keep it), with their listed edges."""
    rows: dict[str, RecordRow] = {}
    edges: Edges = {}
    for row, listed in result:
        rows[row.id] = row
        edges[row.id] = edges_of(row.id, listed)
    return rows, edges
