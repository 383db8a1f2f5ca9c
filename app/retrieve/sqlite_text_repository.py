"""SQLite BM25: FTS5's bm25() over `records_fts` (k1 = 1.2, b = 0.75), OR-ed query terms,
the request's filters in the same statement; across every scope of a large store only
the newest MAX_MATCHES matches are ranked, as on PostgreSQL (pg_text_repository.py)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from typing import Any, NamedTuple

from sqlalchemy import (
    CompoundSelect,
    Integer,
    Select,
    Text,
    and_,
    bindparam,
    case,
    column,
    exists,
    func,
    literal,
    literal_column,
    select,
    table,
    union_all,
)
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.selectable import CTE

from app.db import column_rows
from app.entities.clauses import matches_of_json
from app.models import RecordRow
from app.records.clauses import FilterShape, bound_clauses, filter_params, filter_shape
from app.records.filters import RecordQuery
from app.retrieve import pg_terms_repository, vector_cache
from app.retrieve import pg_text_repository as pg_text
from app.retrieve.header_repository import (
    NameLookUp,
    NameShape,
    RecordHeader,
    candidate_columns,
    header_from,
    inline_names,
    mentioning_params,
    name_params,
)
from app.retrieve.lexical_scores import LexicalScores, Naming
from app.retrieve.terms import most_unscored, name_words, unscored_names

_fts = table("records_fts", column("rowid", Integer), column("search_text", Text))


_RANK = func.bm25(literal_column("records_fts"), 1.0, 0.0)  # lower is better in FTS5


def bm25(
    session: Session,
    terms: list[str],
    records: RecordQuery,
    limit: int,
    naming: Naming,
    reads: Reads,
) -> LexicalScores:
    """The best `limit` matches of any of `terms` (see `repository.lexical`)."""
    matching = _fts5_matching(terms, records.filter.scopes)
    if matching is None:
        return LexicalScores({}, {})
    store_wide = not records.filter.scopes and records.visibility.scopes is None
    shape = filter_shape(records, "sqlite")
    names = NameShape.of(naming.look_up)
    params = {**filter_params(records), "match": matching, "limit": limit}
    if naming.look_up is not None:
        params |= name_params(naming.look_up, "sqlite") | _rescoring_params(terms, naming.look_up)
    else:
        params |= mentioning_params(naming.mentioning)
        scored = _scored_matching(terms, naming.unscored, records)
        if scored is not None:
            params["rescore_match"] = scored
    mentions = names or bool(naming.mentioning)
    stmt = _bm25_statement(shape, store_wide, mentions, reads, "rescore_match" in params)
    if store_wide:
        params["newest_match"] = _text_match(terms)
        params["newest_offset"] = pg_text.MAX_MATCHES - 1
        params["large_store"] = pg_terms_repository.LARGE_STORE
    read = _read(column_rows(session, stmt, params).all(), records.now, reads)
    unscored, found_names = naming.unscored, None
    if naming.look_up is not None:
        found_names = matches_of_json(read.matches)
        unscored = unscored_names(terms, {m.term for m in found_names if m.readable})
    without = _without(terms, records, unscored, read)
    return LexicalScores(read.full, without, read.headers, read.signature, found_names)


class _Read(NamedTuple):
    found: dict[int, tuple[str, float]]  # rowid → (record id, score)
    full: dict[str, float]  # record id → score
    headers: dict[str, RecordHeader]
    signature: tuple[int, int] | None
    bounded: bool  # only the newest MAX_MATCHES matches were ranked
    matches: str | None  # the name look-up's matches as JSON (`matches_of_json`)
    # rowid → score without the unscored terms, when the statement rescored (`_rescored`)
    rescored: dict[int, float]


def _read(rows: Any, now: float, reads: Reads) -> _Read:
    """The rows of `_bm25_statement`, told apart as its comment on the layout says."""
    found: dict[int, tuple[str, float]] = {}
    headers: dict[str, RecordHeader] = {}
    rescored: dict[int, float] = {}
    bounded, signature, matches = False, None, None
    for rowid, score, start, *header in rows:
        if start is None:
            if rowid is not None:
                rescored[rowid] = -float(score)
            else:
                matches = score
            continue
        if reads.signature:
            *header, removals, max_rowid = header
            signature = (int(removals), int(max_rowid))
        found[rowid] = (header[0], -float(score))
        if reads.headers:
            headers[header[0]] = header_from(now, header)
        bounded = bool(start)
    return _Read(found, dict(found.values()), headers, signature, bounded, matches, rescored)


def _without(
    terms: list[str], records: RecordQuery, unscored: Sequence[str], read: _Read
) -> dict[str, float]:
    """The found records' scores without the `unscored` terms. FTS5's bm25() sums one
    part per query term over the same statistics: under the scored terms alone they are
    the full scores less the unscored terms' parts (0 for a record that holds none of
    them), which the statement scored again (`_rescored`) whenever there are terms to
    leave out: with the look-up inside, or given a `rescore_match`."""
    if read.bounded or not _scored_matching(terms, unscored, records):
        # Bounded: the query's words match more than MAX_MATCHES records across every
        # scope of a large store; a second pass there cost 20-40 ms at 200,000 records
        # (each match in range scored, or each found rowid probed at ~200 µs), so the
        # names are scored as words.
        return read.full
    return {rid: read.rescored.get(rowid, 0.0) for rowid, (rid, _) in read.found.items()}


_MATCH: ColumnElement[bool] = literal_column("records_fts").op("MATCH")(bindparam("match"))


class Reads(NamedTuple):
    """What SQLite's BM25 statement reads beside the matches' ids and scores."""

    headers: bool
    signature: bool


@cache
def _bm25_statement(
    shape: FilterShape, store_wide: bool, mentions: NameShape | bool, reads: Reads, rescore: bool
) -> Select[Any] | CompoundSelect[Any]:
    """The best matches of the `match` parameter by BM25 under the filters, with their
    headers (`candidate_columns`), built once per shape; `store_wide` (no scope: every scope
    of the store) among the newest MAX_MATCHES matches of `newest_match` only on a large
    store (`_newest_matches_start`). The headers are read for the best `limit` only:
    FTS5 ranks every match, and reading a header's columns for each cost more.
    `mentions`: the entity-name look-up to run inside (`header_repository.InlineNames`),
    else whether the mentions of `mentioning_params` are read; the matches are scored
    again without the unscored terms (`_rescored`) with the look-up, or (`rescore`) by
    the `rescore_match` parameter. Those scores and the look-up's matches come back as
    rows of their own (UNION ALL)."""
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
    signature = vector_cache.SIGNATURE if reads.signature else ()
    inline = None if isinstance(mentions, bool) else inline_names(shape.dialect, mentions)
    mentioned = mentions is True if inline is None else inline.mentions
    columns = [*candidate_columns(shape.dialect, mentioned, reads.headers), *signature]
    # The rows: each match (rowid, rank, start: never NULL, then its header); with the
    # rescoring, each match's score without the unscored terms (rowid, rank, NULL…); with
    # the look-up, its matches (NULL, the matches' JSON, NULL…). Joined beside the matches
    # instead, these made SQLite write the matches with their headers to a temporary table
    # first (~1.3 M instructions a statement).
    matched = best.join(RecordRow, best.c.rowid == _RECORD_ROWID)
    head = (best.c.rowid, best.c.rank, best.c.start)
    parts = [select(*head, *columns).select_from(matched)]
    if inline is not None or rescore:
        rescored = _rescored(best, inline.named if inline is not None else None)
        # Only the best matches' scores come back. The rescoring scores every match
        # between their lowest and highest rowid, and where scopes interleave (agents
        # writing at once) that range is most of the store: a one-scope retrieve at
        # 200,000 records stepped 3,600 rows to keep 70 (12.4 -> 5.1 ms a statement).
        kept = rescored.join(best, best.c.rowid == rescored.c.rowid)
        parts.append(
            select(rescored.c.rowid, rescored.c.rank, *_nulls(1 + len(columns))).select_from(kept)
        )
    if inline is not None:
        matches = inline.found.c.matches
        parts.append(select(*_nulls(1), matches, *_nulls(1 + len(columns))))
    return parts[0] if len(parts) == 1 else union_all(*parts)


def _nulls(n: int) -> list[ColumnElement[Any]]:
    return [literal_column("NULL")] * n


# A MATCH no row satisfies, for a rescoring with nothing to leave out: a scope key never
# starts with 'y' (`fts5_scope_key`), so FTS5 looks one token up in its index.
_NO_ROW = 'scope_key : "y"'


def _rescored(best: CTE, named: CTE | None) -> CTE:
    """(rowid, rank) of the `best` matches under the `rescore_match` parameter, or with
    the name look-up `named` under the query's terms (`scored_terms`) less those it
    leaves unscored (`_scored_after`), when the matches were not bounded to the newest
    (as `_without` decides); otherwise `_NO_ROW`."""
    wanted: ColumnElement[bool] = select(func.max(best.c.start)).scalar_subquery() == 0
    scored: ColumnElement[Any] = bindparam("rescore_match")
    if named is not None:
        # most queries name no entity the caller may read: nothing to leave out then
        wanted = and_(exists(select(named.c.term).where(named.c.live)), wanted)
        scored = _scored_after(named)
    match = case((wanted, scored), else_=literal(_NO_ROW))
    lowest = select(func.min(best.c.rowid)).scalar_subquery()
    highest = select(func.max(best.c.rowid)).scalar_subquery()
    return (
        select(_fts.c.rowid, _RANK.label("rank"))
        .where(
            literal_column("records_fts").op("MATCH")(match), _fts.c.rowid.between(lowest, highest)
        )
        .cte("rescored")
        .prefix_with("MATERIALIZED")
    )


def _scored_after(named: CTE) -> ColumnElement[str]:
    """The MATCH of the query's terms (`scored_terms`) less the words of the names the
    look-up `named` found readable, among the (name, term) pairs `silent_pairs`, when no
    more than `most_silent` are (`terms.most_unscored`), as `terms.unscored_names`
    decides; a token no row holds when none is left out."""
    pairs = func.json_each(bindparam("silent_pairs")).table_valued("value").alias("pairs")
    readable = select(named.c.term).where(named.c.live)
    word = func.json_extract(pairs.c.value, "$[1]")
    silent = (
        select(word.label("word"))
        .where(func.json_extract(pairs.c.value, "$[0]").in_(readable))
        .distinct()
        .cte("silent")
    )
    terms = func.json_each(bindparam("scored_terms")).table_valued("value").alias("terms")
    bare = func.replace(terms.c.value, '"', "")
    quoted = literal('"').op("||")(bare).op("||")(literal('"'))
    listed = (
        select(func.group_concat(quoted, literal(" OR ")))
        .where(terms.c.value.not_in(select(silent.c.word)), bare != "")
        .scalar_subquery()
    )
    few = select(func.count()).select_from(silent).scalar_subquery()
    wanted = few.between(1, bindparam("most_silent"))
    scored = case((wanted, literal("search_text : (").op("||")(listed).op("||")(literal(")"))))
    return func.coalesce(scored, literal(_NO_ROW))


def _scored_matching(terms: list[str], unscored: Sequence[str], records: RecordQuery) -> str | None:
    """The MATCH of the terms less the `unscored`; None when there is none to leave out,
    or none left."""
    silent = set(unscored)
    if not silent:
        return None
    return _fts5_matching([t for t in terms if t not in silent], records.filter.scopes)


def _rescoring_params(terms: list[str], look_up: NameLookUp) -> dict[str, Any]:
    """The parameters of `_rescored`."""
    return {
        "silent_pairs": json.dumps(name_words(terms, look_up.terms)),
        "scored_terms": json.dumps(terms),
        "most_silent": most_unscored(terms),
    }


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
