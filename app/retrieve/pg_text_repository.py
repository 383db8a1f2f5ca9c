"""PostgreSQL BM25 (k1 = 1.2, b = 0.75) over the `search_tsv` column.

`ts_rank_cd` has no idf, so a name in every record would weigh as much as the one rare
word that matters; the formula is computed in SQL instead. Two things keep it cheap on
large stores:
- document frequencies: counted or estimated as `pg_terms_repository` says;
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

import enum
import math
from collections.abc import Sequence
from functools import cache
from typing import Any, NamedTuple

from sqlalchemy import (
    ARRAY,
    Float,
    Select,
    bindparam,
    case,
    cast,
    func,
    literal,
    literal_column,
    select,
    true,
    type_coerce,
)
from sqlalchemy.dialects.postgresql import TSVECTOR, aggregate_order_by
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from app.db import column_rows, prepared
from app.entities.clauses import NameMatch, matches_of_json, readable_ids
from app.models import RecordRow
from app.records.clauses import FilterShape, bound_clauses, filter_params, filter_shape
from app.records.filters import RecordQuery
from app.retrieve import pg_matrix_repository as pg_matrix
from app.retrieve import pg_terms_repository as terms_of
from app.retrieve.header_repository import (
    NameShape,
    RecordHeader,
    header_columns,
    header_from,
    inline_names,
    mentioning_params,
    name_params,
)
from app.retrieve.lexical_scores import LexicalScores, Naming
from app.retrieve.pg_terms_repository import MIN_IDF, TermSource

K1 = 1.2
B = 0.75
COMMON_FRACTION = 0.01
MAX_MATCHES = 5_000

_tsv: ColumnElement[str] = literal_column("records.search_tsv")


class Newest(enum.Enum):
    """Whether BM25 scores only the newest MAX_MATCHES matches."""

    never = "never"
    always = "always"  # the caller found the selecting lexemes' frequencies past it
    when_many = "when_many"  # the statement decides, from the frequencies it counted


def bm25(
    session: Session,
    terms: list[str],
    records: RecordQuery,
    limit: int,
    *,
    small_scope: bool = False,
    naming: Naming = Naming(),
    with_headers: bool = True,
    matrix_since: str | None = None,
) -> LexicalScores:
    """The best `limit` records `records` admits that match any query lexeme, by BM25
    over them all, and their scores without the lexemes of the unscored terms
    (`naming`'s, or those its look-up decides; when they are all the query has, the
    second scores keep them), with their headers (`small_scope`: the request's scopes
    hold few records, so every one of them is checked; `with_headers`: False when the
    caller has the headers already, none are read then; `matrix_since`: the snapshot of
    the vector matrix, whose `pg_matrix_repository.SIGNATURE` is read beside)."""
    query = " ".join(terms)
    shape = filter_shape(records, "postgresql")
    params = {**filter_params(records), "limit": limit, "max_matches": MAX_MATCHES}
    signed = matrix_since is not None
    params["matrix_since"] = matrix_since
    counted = terms_of.store_is_small(session)  # every lexeme counted by the scoring statement
    if counted:
        newest = Newest.never if records.filter.scopes else Newest.when_many
        params["query"] = query
        params |= _naming_params(naming, terms)
        inline = NameShape.of(naming.look_up)
        mentions: NameShape | bool = inline or bool(naming.mentioning)
        stmt = _bm25_statement(shape, small_scope, newest, mentions, with_headers, True, signed)
    else:
        given = _given_terms(session, query, naming, terms, records, small_scope)
        names = _found_names(naming, given.matches)
        if given.newest is None:
            return LexicalScores({}, {}, names=names)
        linked = readable_ids(names) if names is not None else list(naming.mentioning)
        params |= mentioning_params(linked) | given.values
        stmt = _bm25_statement(
            shape, small_scope, given.newest, bool(linked), with_headers, False, signed
        )
    scores = _scores(column_rows(session, stmt, params).all(), records, with_headers, signed)
    if counted:
        names = _found_names(naming, scores.matches)
    return LexicalScores(
        scores.full, scores.without, scores.headers, names=names, matrix=scores.signature
    )


class _Scores(NamedTuple):
    full: dict[str, float]
    without: dict[str, float]
    headers: dict[str, RecordHeader]
    matches: str | None  # the name look-up's, as JSON
    signature: tuple[Any, ...] | None  # pg_matrix_repository.SIGNATURE's values


def _scores(rows: Sequence[Any], records: RecordQuery, with_headers: bool, signed: bool) -> _Scores:
    """The scores, headers, name matches and matrix signature of `_bm25_statement`'s rows
    (the matches and the signature are on every row; the matches NULL: none, or not in
    this statement)."""
    out = _Scores({}, {}, {}, rows[-1][2] if rows else None, None)
    width = len(pg_matrix.SIGNATURE) if signed else 0
    if signed and rows:
        out = out._replace(signature=tuple(rows[-1][3 : 3 + width]))
    for score, unscored_score, _found, *rest in rows:
        if score is None:  # the name look-up's row alone: nothing matched
            continue
        header = rest[width:]
        rid = header[0]
        out.full[rid], out.without[rid] = float(score), float(unscored_score)
        if with_headers:
            out.headers[rid] = header_from(records.now, header)
    return out


def _naming_params(naming: Naming, terms: list[str]) -> dict[str, Any]:
    if naming.look_up is None:
        return {"unscored": " ".join(naming.unscored)} | mentioning_params(naming.mentioning)
    return name_params(naming.look_up, "postgresql") | terms_of.silent_params(terms, naming.look_up)


def _found_names(naming: Naming, matches: str | None) -> list[NameMatch] | None:
    return matches_of_json(matches) if naming.look_up is not None else None


class _Given(NamedTuple):
    newest: Newest | None  # None: the query has no lexeme
    values: dict[str, Any]
    matches: str | None


def _given_terms(
    session: Session,
    query: str,
    naming: Naming,
    terms: list[str],
    records: RecordQuery,
    small_scope: bool,
) -> _Given:
    """On a large store: the query's lexemes with their idfs from the cached statistics
    (`pg_terms_repository.frequencies`), as the parameters of `pg_terms_repository.GIVEN`,
    and whether only the newest matches are scored (the name look-up of `naming` runs
    with the lexemes' statement)."""
    lexemes, silent, matches = terms_of.lexemes(session, query, naming, terms)
    if not lexemes:
        return _Given(None, {}, matches)
    total, df = terms_of.frequencies(session, lexemes)
    idf = {lx: max(MIN_IDF, math.log((total - d + 0.5) / (d + 0.5))) for lx, d in df.items()}
    selective = lexemes
    if total >= terms_of.LARGE_STORE and not small_scope:
        rare = [lx for lx in lexemes if 0 < df[lx] <= COMMON_FRACTION * total]
        selective = rare or lexemes
    many = not records.filter.scopes and sum(df[lx] for lx in selective) > MAX_MATCHES
    values = {
        "tsq": " | ".join(terms_of.quote(lx) for lx in selective),
        "marked": lexemes,
        "lexemes": list(idf),
        "idfs": list(idf.values()),
        "silent": sorted(silent if set(lexemes) - silent else set()),
    }
    return _Given(Newest.always if many else Newest.never, values, matches)


@cache
def _bm25_statement(
    shape: FilterShape,
    small_scope: bool,
    newest: Newest,
    mentions: NameShape | bool,
    with_headers: bool,
    counted: bool,
    signed: bool = False,
) -> Select[Any]:
    """The best `limit` matches of the query's lexemes under the filters, scored, with
    their headers (`header_columns`; their ids alone without `with_headers`); built once
    per shape (`counted`: the lexemes and their frequencies counted by the statement,
    `pg_terms_repository.COUNTED`, else given as parameters, `pg_terms_repository.GIVEN`).
    `mentions`: the entity-name look-up to run inside (`header_repository.InlineNames`:
    it decides the unscored lexemes, and its summary is joined beside the matches, a row
    of its own when nothing matches), else whether the mentions of `mentioning_params`
    are read. `signed`: the vector matrix's SIGNATURE follows the look-up's column."""
    inline = None if isinstance(mentions, bool) else inline_names("postgresql", mentions)
    source = terms_of.COUNTED if counted else terms_of.GIVEN
    if inline is not None:
        source = terms_of.counted(terms_of.silent_text(inline.named))
    # Only the query's lexemes are unnested per match: setweight marks them 'A' and
    # ts_filter keeps those (a record's vector has dozens of lexemes; this cut BM25 over
    # 5,000 matches from ~90 to ~50 ms at 1M records). dl stays the whole vector's length.
    query_only = func.ts_filter(
        func.setweight(_tsv, literal_column("'A'"), source.marked), literal_column("'{a}'")
    )
    matched = select(
        RecordRow.id.label("id"),
        query_only.label("tsv"),
        cast(func.length(_tsv), Float).label("dl"),
    ).where(_matching(source.tsq, small_scope), *bound_clauses(shape))
    matched = _newest_only(matched, newest, source)
    best = _scored(matched.cte("matches"), source).limit(bindparam("limit")).subquery("best")
    found: Any = None if inline is None else inline.found
    matches: Any = literal_column("NULL") if found is None else found.c.matches
    read = [matches, *(pg_matrix.SIGNATURE if signed else ())]
    if with_headers:
        mentioned = inline.mentions if inline is not None else mentions is True
        columns = header_columns(shape.dialect, mentioned)
        stmt = select(best.c.score, best.c.unscored, *read, *columns)
        rows: Any = best.join(RecordRow, RecordRow.id == best.c.id)
    else:  # the ids alone: no join back to the records
        stmt = select(best.c.score, best.c.unscored, *read, best.c.id)
        rows = best
    stmt = stmt.select_from(rows if found is None else found.outerjoin(rows, true()))
    stmt = stmt.order_by(best.c.score.desc(), best.c.id)
    # In a small scope the plan is the scope's rows whatever the words (the GIN index is
    # kept out, `_matching`): prepared, it is parsed once a connection, and planned once
    # when PostgreSQL finds its generic plan no dearer than the custom ones. So is the
    # statement of a small store (`counted`, below LARGE_STORE records), across scopes
    # too: its plan is the GIN index's matches whatever the words, and parsing and
    # planning it had been 1.6 of its 6.4 ms of server time at 2,000 records. Its generic
    # plan ran as fast as the custom ones on 60-80 logged LoCoMo questions, at 2,000
    # records (median 3.95 against 4.18 ms) and on a store twice LARGE_STORE (49.3
    # against 51.2, p90 80.0 against 79.2). Above LARGE_STORE the statement is another
    # (`GIVEN`) and stays unprepared: one generic plan for it made BM25 822 ms at p95
    # at a million records (DESIGN.md §9).
    return prepared(stmt) if small_scope or counted else stmt


def _newest_only(matched: Select[Any], newest: Newest, source: TermSource) -> Select[Any]:
    """`matched` limited to its newest `max_matches` rows: always, never, or when the
    selecting lexemes' counted frequencies sum past it (LIMIT NULL is no limit)."""
    if newest is Newest.never:
        return matched
    if newest is Newest.always or source.frequency_sum is None:
        return matched.order_by(RecordRow.created_at.desc()).limit(bindparam("max_matches"))
    many = source.frequency_sum > bindparam("max_matches")
    newest_first = case((many, RecordRow.created_at)).desc()
    return matched.order_by(newest_first).limit(case((many, bindparam("max_matches"))))


def _scored(matches: Any, source: TermSource) -> Select[Any]:
    """(id, score, score without the unscored lexemes' parts) of the `matches` (id,
    query-only tsvector, dl), best first by BM25 over every query lexeme (the source's
    weights). Each match is scored by a lateral aggregate over its own few lexemes, each
    lexeme's idf looked up in two arrays made once, instead of every match's lexemes
    joined to the weights (a hash join built per match) and grouped again (a hash
    aggregate over all of them): a BM25 call 4.7-5.0 -> 4.3-4.5 ms at 2,000 records (80
    LoCoMo questions, across every scope, in one scope, with an unscored word)."""
    avgdl = type_coerce(select(func.greatest(func.avg(matches.c.dl), 1.0)).scalar_subquery(), Float)
    weights = source.weights
    names = select(func.array_agg(aggregate_order_by(weights.c.lexeme, weights.c.lexeme)))
    idfs = select(func.array_agg(aggregate_order_by(weights.c.idf, weights.c.lexeme)))
    parts = func.unnest(matches.c.tsv).table_valued("lexeme", "positions", "weights").alias("parts")
    idf = type_coerce(idfs.scalar_subquery(), ARRAY(Float))[
        func.array_position(names.scalar_subquery(), parts.c.lexeme)
    ]
    tf = func.coalesce(func.cardinality(parts.c.positions), 1)
    norm = K1 * (1 - B + B * matches.c.dl / avgdl)
    # each lexeme's part written once (twice, the statement passed psycopg's 4,096 bytes)
    each = (
        select(parts.c.lexeme, (idf * tf * (K1 + 1) / (tf + norm)).label("p"))
        .correlate(matches)
        .subquery("x")
    )
    sums = select(
        func.sum(each.c.p).label("score"),
        func.sum(each.c.p).filter(each.c.lexeme != func.all(source.silent)).label("scored"),
    ).lateral("sums")
    score = sums.c.score
    return (
        select(
            matches.c.id, score.label("score"), func.coalesce(sums.c.scored, 0.0).label("unscored")
        )
        .select_from(matches.join(sums, true()))
        .where(score.is_not(None))  # a match none of whose lexemes is weighed: as the join was
        .order_by(score.desc(), matches.c.id)
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
