"""The query's lexemes and their document frequencies, for PostgreSQL BM25
(`pg_text_repository`).

On a store of LARGE_STORE records or more, the record count comes from the planner's
estimate and the frequency of common lexemes from ANALYZE's most-common-elements
statistics of `search_tsv`, both cached per process for STATS_TTL_S; only lexemes too
rare to be listed there are counted (a short GIN posting list), and those counts are
cached as well: the caller computes the idfs and hands them to the scoring statement
(`GIVEN`). Below LARGE_STORE each query lexeme is counted on every query, which is cheap
there, inside the scoring statement itself (`COUNTED`: one round trip, not two), and the
store's records are the planner's estimate scaled to the table's size now (counted until
the table is first analyzed).
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from functools import cache
from typing import Any, NamedTuple

from sqlalchemy import (
    ARRAY,
    Double,
    Select,
    Text,
    bindparam,
    case,
    cast,
    exists,
    func,
    literal,
    literal_column,
    select,
    text,
    true,
    union_all,
)
from sqlalchemy.dialects.postgresql import TSQUERY
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.selectable import CTE, FromClause

from app.db import column_rows
from app.engine_cache import PerEngine
from app.models import RecordRow
from app.retrieve.header_repository import NameLookUp, NameShape, inline_names, name_params
from app.retrieve.lexical_scores import Naming
from app.retrieve.terms import most_unscored, name_words

MIN_IDF = 1e-6  # as FTS5: a term in more than half the records still counts a little
LARGE_STORE = 50_000
STATS_TTL_S = 300.0

_tsv: ColumnElement[str] = literal_column("records.search_tsv")


@dataclass(frozen=True)
class TermSource:
    """Where a BM25 statement takes the query's lexemes from."""

    tsq: ColumnElement[Any]  # the tsquery that selects the matches
    marked: ColumnElement[Any]  # text[]: every query lexeme (the parts that are scored)
    weights: FromClause  # (lexeme, idf) of every query lexeme
    silent: ColumnElement[Any]  # text[]: the lexemes left out of the second score
    # The selecting lexemes' summed frequencies (COUNTED only: the caller knows them).
    frequency_sum: ColumnElement[Any] | None


def _given() -> TermSource:
    """Parameters the caller computed: `tsq`, `marked`, `lexemes` with their `idfs`,
    `silent`."""
    weights = (
        func.unnest(bindparam("lexemes", type_=ARRAY(Text)), bindparam("idfs", type_=ARRAY(Double)))
        .table_valued("lexeme", "idf")
        .render_derived("weights")
    )
    return TermSource(
        tsq=cast(bindparam("tsq", type_=Text), TSQUERY),
        marked=bindparam("marked", type_=ARRAY(Text)),
        weights=weights,
        silent=bindparam("silent", type_=ARRAY(Text)),
        frequency_sum=None,
    )


def counted(unscored: ColumnElement[str]) -> TermSource:
    """The lexemes of the `query` parameter and of the `unscored` text (a parameter, or
    what `silent_text` makes of a name look-up), counted by the statement
    (`_counted_statement`); idf = ln((N - df + 0.5) / (df + 0.5)), at least MIN_IDF, N
    never below a lexeme's count. The second score leaves the unscored lexemes out only
    when the query has others."""
    counted = _counted_statement(unscored).cte("counted").prefix_with("MATERIALIZED")
    total = func.greatest(counted.c.stored, func.max(counted.c.df).over())
    idf = func.greatest(MIN_IDF, func.ln((total - counted.c.df + 0.5) / (counted.c.df + 0.5)))
    weights = (
        select(counted.c.lexeme, idf.label("idf"), counted.c.df)
        .where(~counted.c.silent)
        .cte("weights")
    )
    tsq = select(func.string_agg(_quoted(weights.c.lexeme), literal(" | ")))
    unscored = func.array(select(counted.c.lexeme).where(counted.c.silent).scalar_subquery())
    others = exists(select(weights.c.lexeme).where(weights.c.lexeme != func.all(unscored)))
    return TermSource(
        tsq=cast(tsq.scalar_subquery(), TSQUERY),
        marked=select(func.array_agg(weights.c.lexeme)).scalar_subquery(),
        weights=weights,
        silent=case((others, unscored), else_=cast(literal([]), ARRAY(Text))),
        frequency_sum=select(func.sum(weights.c.df)).scalar_subquery(),
    )


@dataclass
class _StoreStats:
    total: float = 0.0
    common: dict[str, float] = field(default_factory=dict)  # lexeme → fraction of records
    rare: dict[str, float] = field(default_factory=dict)  # lexeme → counted frequency
    taken_at: float = -math.inf
    lock: threading.Lock = field(default_factory=threading.Lock)


_stats: PerEngine[_StoreStats] = PerEngine(_StoreStats)


class Lexemes(NamedTuple):
    lexemes: list[str]  # the query's
    silent: set[str]  # the unscored terms'
    matches: str | None  # the name look-up's, as JSON (`entities.clauses.matches_of_json`)


def lexemes(session: Session, query: str, naming: Naming, terms: list[str]) -> Lexemes:
    """The lexemes of `query` and of the unscored terms (`naming`'s, or those its look-up
    decides, run in the same statement) under the same 'english' configuration as
    search_tsv (one round trip)."""
    params: dict[str, Any] = {"query": query}
    if naming.look_up is None:
        params["unscored"] = " ".join(naming.unscored)
    else:
        params |= name_params(naming.look_up, "postgresql") | silent_params(terms, naming.look_up)
    stmt = _lexemes_statement(NameShape.of(naming.look_up))
    rows = column_rows(session, stmt, params).all()
    found = sorted({lx for lx, silent, _ in rows if lx is not None and not silent})
    matches = rows[0][2] if rows else None
    return Lexemes(found, {lx for lx, silent, _ in rows if silent}, matches)


@cache
def _lexemes_statement(names: NameShape | None) -> Select[Any]:
    if names is None:
        found = union_all(*_lexeme_sources(bindparam("unscored", type_=Text))).subquery("lx")
        return select(found.c.lexeme, found.c.silent, literal_column("NULL"))
    inline = inline_names("postgresql", names)
    found = union_all(*_lexeme_sources(silent_text(inline.named))).subquery("lx")
    joined = inline.found.outerjoin(found, true())
    return select(found.c.lexeme, found.c.silent, inline.found.c.matches).select_from(joined)


def _lexeme_sources(unscored: ColumnElement[str]) -> list[Select[Any]]:
    """(lexeme, silent) of the `query` parameter (silent false) and of `unscored` (true)."""
    sources = []
    for text_, silent in ((bindparam("query", type_=Text), False), (unscored, True)):
        parts = func.unnest(func.to_tsvector("english", text_)).table_valued(
            "lexeme", "positions", "weights"
        )
        sources.append(select(parts.c.lexeme, literal(silent).label("silent")))
    return sources


def silent_text(named: CTE) -> ColumnElement[str]:
    """The unscored terms as `terms.unscored_names` chooses them, from the name look-up
    `named` of the same statement: the words of the names it found readable, among the
    (name, term) pairs of `silent_params`, none unless no more than `most_silent` of them
    (`terms.most_unscored`)."""
    pairs = (
        func.unnest(
            bindparam("silent_names", type_=ARRAY(Text)),
            bindparam("silent_words", type_=ARRAY(Text)),
        )
        .table_valued("name", "word")
        .render_derived("pairs")
    )
    readable = select(named.c.term).where(named.c.live)
    words = pairs.c.word.distinct()
    few = func.count(words) <= bindparam("most_silent")
    chosen = select(case((few, func.string_agg(words, literal(" "))), else_=literal("")))
    return func.coalesce(chosen.where(pairs.c.name.in_(readable)).scalar_subquery(), "")


def silent_params(terms: list[str], look_up: NameLookUp) -> dict[str, Any]:
    """The parameters of `silent_text`."""
    pairs = name_words(terms, look_up.terms)
    return {
        "silent_names": [name for name, _ in pairs],
        "silent_words": [word for _, word in pairs],
        "most_silent": most_unscored(terms),
    }


def store_is_small(session: Session) -> bool:
    """Whether the store holds fewer than LARGE_STORE records, by the cached estimate."""
    stats = _stats.of(session)
    with stats.lock:
        if time.monotonic() - stats.taken_at > STATS_TTL_S:
            _refresh(session, stats)
        return stats.total < LARGE_STORE


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


def _counted_statement(unscored: ColumnElement[str]) -> Select[Any]:
    """(lexeme, silent, df, stored) of the `query` parameter and the `unscored` text: each
    query lexeme's records counted through the GIN index (none for the unscored ones), and
    the store's records (`_RECORDS_IN_STORE`)."""
    found = union_all(*_lexeme_sources(unscored)).subquery("found")
    tsq = cast(_quoted(found.c.lexeme), TSQUERY)
    matching = (
        select(func.count()).select_from(RecordRow).where(_tsv.op("@@")(tsq)).scalar_subquery()
    )
    df = case((found.c.silent, None), else_=matching)
    return select(found.c.lexeme, found.c.silent, df.label("df"), _RECORDS_IN_STORE.label("stored"))


def frequencies(session: Session, lexemes: list[str]) -> tuple[float, dict[str, float]]:
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
        .where(_tsv.op("@@")(cast(literal(quote(lx)), TSQUERY)))
        .scalar_subquery()
        for lx in lexemes
    ]
    if with_total:
        counts.insert(0, select(func.count()).select_from(RecordRow).scalar_subquery())
    row = session.execute(select(*counts)).one()
    keys = ([""] if with_total else []) + lexemes
    return {k: float(v) for k, v in zip(keys, row, strict=True)}


def _quoted(lexeme: ColumnElement[Any]) -> ColumnElement[Any]:
    """`quote`, in SQL."""
    escaped = func.replace(func.replace(lexeme, "\\", "\\\\"), "'", "''")
    return literal("'") + escaped + literal("'")


def quote(lexeme: str) -> str:
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


GIVEN = _given()
COUNTED = counted(bindparam("unscored", type_=Text))
