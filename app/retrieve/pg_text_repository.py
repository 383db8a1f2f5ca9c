"""PostgreSQL BM25 (k1 = 1.2, b = 0.75) over the `search_tsv` column.

`ts_rank_cd` has no idf, so a name in every record would weigh as much as the one rare
word that matters; the formula is computed in SQL instead. Two things keep it cheap on
large stores:
- document frequencies: on a store of LARGE_STORE records or more, the record count comes
  from the planner's estimate and the frequency of common lexemes from ANALYZE's
  most-common-elements statistics of `search_tsv`, both cached per process for
  STATS_TTL_S; only lexemes too rare to be listed there are counted (a short GIN posting
  list), and those counts are cached as well. Below LARGE_STORE each query lexeme is
  counted on every query, which is cheap there, and the store's records are the planner's
  estimate scaled to the table's size now (counted until the table is first analyzed);
- candidates (on a store of LARGE_STORE records or more): when the query has a lexeme
  that occurs in at most COMMON_FRACTION of the records, lexemes more common than that
  only score, they do not select: the records that contain nothing but common lexemes
  are not ranked at all (they could only have a low score), and the rest are scored
  with every query lexeme, exactly. When even that selects more than MAX_MATCHES
  records (a query of common words only, across every scope of a large store), the
  newest MAX_MATCHES of them are scored — the same preference for recent memory that
  salience expresses — instead of all of them.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from sqlalchemy import (
    ARRAY,
    Double,
    Float,
    Select,
    Text,
    bindparam,
    case,
    cast,
    func,
    literal,
    literal_column,
    select,
    text,
    true,
    union_all,
)
from sqlalchemy.dialects.postgresql import TSQUERY, TSVECTOR
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from app.db import column_rows
from app.engine_cache import PerEngine
from app.models import RecordRow
from app.records.clauses import FilterShape, bound_clauses, filter_params, filter_shape
from app.records.filters import RecordQuery
from app.retrieve.header_repository import (
    RecordHeader,
    candidate_columns,
    header_from,
    mentioning_params,
)

K1 = 1.2
B = 0.75
MIN_IDF = 1e-6  # as FTS5: a term in more than half the records still counts a little
LARGE_STORE = 50_000
STATS_TTL_S = 300.0
COMMON_FRACTION = 0.01
MAX_MATCHES = 5_000

_tsv: ColumnElement[str] = literal_column("records.search_tsv")


@dataclass
class _StoreStats:
    total: float = 0.0
    common: dict[str, float] = field(default_factory=dict)  # lexeme → fraction of records
    rare: dict[str, float] = field(default_factory=dict)  # lexeme → counted frequency
    taken_at: float = -math.inf
    lock: threading.Lock = field(default_factory=threading.Lock)


_stats: PerEngine[_StoreStats] = PerEngine(_StoreStats)


def bm25(
    session: Session,
    terms: Sequence[str],
    records: RecordQuery,
    limit: int,
    *,
    small_scope: bool = False,
    unscored: Sequence[str] = (),
    mentioning: Sequence[str] = (),
    with_headers: bool = True,
) -> tuple[dict[str, float], dict[str, float], dict[str, RecordHeader]]:
    """record id → BM25 score of the best `limit` records `records` admits that match any
    query lexeme, their scores without the lexemes of `unscored`, and their headers
    (`small_scope`: the request's scopes hold few records, so every one of them is
    checked; `unscored`: terms whose lexemes choose and order the matches like the
    others; when they are all the query has, the second scores keep them; `mentioning`:
    as for `header_repository.headers`; `with_headers`: False when the caller has the
    headers already, the third dict is then empty)."""
    query, unscored_text = " ".join(terms), " ".join(unscored)
    if _store_is_small(session):
        # Below LARGE_STORE every lexeme is counted: with the lexemes, in one statement.
        lexemes, silent, total, df = _lexemes_counted(session, query, unscored_text)
    else:
        lexemes, silent = _lexemes(session, query, unscored_text)
        total, df = _frequencies(session, lexemes) if lexemes else (0.0, {})
    if not lexemes:
        return {}, {}, {}
    idf = {lx: max(MIN_IDF, math.log((total - d + 0.5) / (d + 0.5))) for lx, d in df.items()}
    selective = lexemes
    if total >= LARGE_STORE and not small_scope:
        rare = [lx for lx in lexemes if 0 < df[lx] <= COMMON_FRACTION * total]
        selective = rare or lexemes
    newest_only = not records.filter.scopes and sum(df[lx] for lx in selective) > MAX_MATCHES
    shape = filter_shape(records, "postgresql")
    stmt = _bm25_statement(shape, small_scope, newest_only, bool(mentioning), with_headers)
    params = {
        **filter_params(records),
        **mentioning_params(mentioning),
        "tsq": " | ".join(_quote(lx) for lx in selective),
        "marked": lexemes,
        "lexemes": list(idf),
        "idfs": list(idf.values()),
        "silent": sorted(silent if set(lexemes) - silent else set()),
        "limit": limit,
        "max_matches": MAX_MATCHES,
    }
    full: dict[str, float] = {}
    without: dict[str, float] = {}
    headers: dict[str, RecordHeader] = {}
    for score, unscored_score, *header in column_rows(session, stmt, params):
        rid = header[0]
        full[rid], without[rid] = float(score), float(unscored_score)
        if with_headers:
            headers[rid] = header_from(records.now, header)
    return full, without, headers


@cache
def _bm25_statement(
    shape: FilterShape, small_scope: bool, newest_only: bool, mentioning: bool, with_headers: bool
) -> Select[Any]:
    """The best `limit` matches of the `tsq` parameter under the filters, scored, with
    their headers (`candidate_columns`); built once per shape (`newest_only`: among the
    newest `max_matches` matches only)."""
    tsq = cast(bindparam("tsq", type_=Text), TSQUERY)
    # Only the query's lexemes are unnested per match: setweight marks them 'A' and
    # ts_filter keeps those (a record's vector has dozens of lexemes; this cut BM25 over
    # 5,000 matches from ~90 to ~50 ms at 1M records). dl stays the whole vector's length.
    marked = bindparam("marked", type_=ARRAY(Text))
    query_only = func.ts_filter(
        func.setweight(_tsv, literal_column("'A'"), marked), literal_column("'{a}'")
    )
    matched = select(
        RecordRow.id.label("id"),
        query_only.label("tsv"),
        cast(func.length(_tsv), Float).label("dl"),
    ).where(_matching(tsq, small_scope), *bound_clauses(shape))
    if newest_only:
        matched = matched.order_by(RecordRow.created_at.desc()).limit(bindparam("max_matches"))
    best = _scored(matched.cte("matches")).limit(bindparam("limit")).subquery("best")
    columns = candidate_columns(shape.dialect, mentioning, with_headers)
    return (
        select(best.c.score, best.c.unscored, *columns)
        .join_from(best, RecordRow, RecordRow.id == best.c.id)
        .order_by(best.c.score.desc(), best.c.id)
    )


def _scored(matches: Any) -> Select[Any]:
    """(id, score, score without the `silent` parameter's lexemes' parts) of the `matches`
    (id, query-only tsvector, dl), best first by BM25 over every query lexeme (the
    `lexemes` parameter, with their `idfs`)."""
    avgdl = select(func.greatest(func.avg(matches.c.dl), 1.0)).scalar_subquery()
    parts = (
        func.unnest(matches.c.tsv).table_valued("lexeme", "positions", "weights").lateral("parts")
    )
    weights = (
        func.unnest(bindparam("lexemes", type_=ARRAY(Text)), bindparam("idfs", type_=ARRAY(Double)))
        .table_valued("lexeme", "idf")
        .render_derived("weights")
    )
    tf = func.coalesce(func.cardinality(parts.c.positions), 1)
    norm = K1 * (1 - B + B * matches.c.dl / avgdl)
    part = weights.c.idf * tf * (K1 + 1) / (tf + norm)
    silent_lexemes = bindparam("silent", type_=ARRAY(Text))
    scored = func.sum(part).filter(weights.c.lexeme != func.all(silent_lexemes))
    return (
        select(
            matches.c.id,
            func.sum(part).label("score"),
            func.coalesce(scored, 0.0).label("unscored"),
        )
        .select_from(matches.join(parts, true()).join(weights, weights.c.lexeme == parts.c.lexeme))
        .group_by(matches.c.id)
        .order_by(func.sum(part).desc(), matches.c.id)
    )


def _matching(tsq: ColumnElement[Any], small_scope: bool) -> ColumnElement[bool]:
    """The full-text match. In a small scope it is checked on the scope's rows, which the
    scope index finds: the GIN index is kept out of the plan (an expression it does not
    index), as PostgreSQL otherwise ANDed the scope with the posting lists of common words
    (184,000 rows at 1M records: 62 ms, against ~2 ms for the scope's thousand rows)."""
    if small_scope:
        unindexed = func.coalesce(_tsv, cast(literal(""), TSVECTOR))
        return unindexed.op("@@")(tsq)
    return _tsv.op("@@")(tsq)


def _lexemes(session: Session, query: str, unscored: str) -> tuple[list[str], set[str]]:
    """The lexemes of `query` and of `unscored` under the same 'english' configuration as
    search_tsv (one round trip)."""
    rows = column_rows(session, _LEXEMES, {"query": query, "unscored": unscored}).all()
    lexemes = sorted({lx for lx, silent in rows if not silent})
    return lexemes, {lx for lx, silent in rows if silent}


def _lexeme_sources() -> list[Select[Any]]:
    """(lexeme, silent) of the `query` parameter (silent false) and of `unscored` (true)."""
    sources = []
    for name, silent in (("query", False), ("unscored", True)):
        text_ = bindparam(name, type_=Text)
        parts = func.unnest(func.to_tsvector("english", text_)).table_valued(
            "lexeme", "positions", "weights"
        )
        sources.append(select(parts.c.lexeme, literal(silent).label("silent")))
    return sources


_LEXEMES = union_all(*_lexeme_sources())


def _store_is_small(session: Session) -> bool:
    """Whether the store holds fewer than LARGE_STORE records, by the cached estimate."""
    stats = _stats.of(session)
    with stats.lock:
        if time.monotonic() - stats.taken_at > STATS_TTL_S:
            _refresh(session, stats)
        return stats.total < LARGE_STORE


def _lexemes_counted(
    session: Session, query: str, unscored: str
) -> tuple[list[str], set[str], float, dict[str, float]]:
    """`_lexemes` and the frequencies in one round trip: each query lexeme's records
    counted through the GIN index (quoted as `_quote` quotes it), and the store's records
    (`_RECORDS_IN_STORE`; never fewer than a lexeme's)."""
    rows = column_rows(session, _COUNTED, {"query": query, "unscored": unscored}).all()
    lexemes = sorted({lx for lx, silent, _, _ in rows if not silent})
    df = {lx: float(n) for lx, silent, n, _ in rows if not silent}
    stored = max([float(rows[0][3]) if rows else 0.0, *df.values()])
    return lexemes, {lx for lx, silent, _, _ in rows if silent}, stored, df


# The store's records as the planner estimates them once ANALYZE (or autovacuum) has run:
# the rows per page it saw, times the table's pages now. Counting them (a scan of the whole
# table, ~0.7 ms at 3,600 records and ten times that at 50,000) is left to a table never
# analyzed, where there is no estimate (a new store: small, and counted exactly).
_RECORDS_IN_STORE = literal_column(
    "(SELECT CASE WHEN c.reltuples > 0 AND c.relpages > 0"
    " THEN c.reltuples / c.relpages"
    " * (pg_relation_size(c.oid) / current_setting('block_size')::float8)"
    " ELSE (SELECT count(*) FROM records) END"
    " FROM pg_class c WHERE c.oid = 'records'::regclass)",
    Double,
)


def _counted_statement() -> Select[Any]:
    found = union_all(*_lexeme_sources()).subquery("found")
    quoted = func.replace(func.replace(found.c.lexeme, "\\", "\\\\"), "'", "''")
    tsq = cast(literal("'") + quoted + literal("'"), TSQUERY)
    matching = (
        select(func.count()).select_from(RecordRow).where(_tsv.op("@@")(tsq)).scalar_subquery()
    )
    stmt = select(found.c.lexeme, found.c.silent, case((found.c.silent, None), else_=matching))
    return stmt.add_columns(_RECORDS_IN_STORE)


_COUNTED = _counted_statement()


def _frequencies(session: Session, lexemes: list[str]) -> tuple[float, dict[str, float]]:
    """(records in the store, lexeme → records containing it)."""
    stats = _stats.of(session)
    with stats.lock:
        if time.monotonic() - stats.taken_at > STATS_TTL_S:
            _refresh(session, stats)
        if stats.total < LARGE_STORE:
            counted = _count(session, lexemes, with_total=True)
            return counted.pop(""), counted
        out = {lx: stats.common[lx] * stats.total for lx in lexemes if lx in stats.common}
        out |= {lx: stats.rare[lx] for lx in lexemes if lx in stats.rare}
        missing = [lx for lx in lexemes if lx not in out]
        counted = _count(session, missing, with_total=False) if missing else {}
        stats.rare.update(counted)
        return stats.total, out | counted


def _refresh(session: Session, stats: _StoreStats) -> None:
    estimate = session.scalar(
        text("SELECT reltuples FROM pg_class WHERE oid = 'records'::regclass")
    )
    stats.total = float(estimate) if estimate is not None and estimate > 0 else 0.0
    row = session.execute(
        text(
            "SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_stats "
            "WHERE tablename = 'records' AND attname = 'search_tsv'"
        )
    ).first()
    elems, freqs = (row[0] or [], row[1] or []) if row is not None else ([], [])
    stats.common = {e: float(f) for e, f in zip(elems, freqs, strict=False)}
    stats.rare = {}
    stats.taken_at = time.monotonic()


def _count(session: Session, lexemes: list[str], *, with_total: bool) -> dict[str, float]:
    """Exact counts through the GIN index ('' → every record, when asked)."""
    counts = [
        select(func.count())
        .select_from(RecordRow)
        .where(_tsv.op("@@")(cast(literal(_quote(lx)), TSQUERY)))
        .scalar_subquery()
        for lx in lexemes
    ]
    if with_total:
        counts.insert(0, select(func.count()).select_from(RecordRow).scalar_subquery())
    row = session.execute(select(*counts)).one()
    keys = ([""] if with_total else []) + lexemes
    return {k: float(v) for k, v in zip(keys, row, strict=True)}


def _quote(lexeme: str) -> str:
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"
