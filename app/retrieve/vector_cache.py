"""SQLite vector search: exact cosine over a per-process matrix of unit vectors, loaded
from record_embeddings incrementally (new rowids appended; rebuilt when rows were deleted
or replaced), with the rows of each scope."""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
from sqlalchemy import Integer, Select, bindparam, literal_column, select, text
from sqlalchemy.orm import Session

from app.db import column_rows, dialect_of
from app.engine_cache import PerEngine
from app.models import RecordRow
from app.records.clauses import FilterShape, bound_clauses, filter_params, filter_shape
from app.records.filters import RecordQuery
from app.retrieve import header_repository as header_repo
from app.retrieve.header_repository import CarriedHeaders


@dataclass
class Matrix:
    """Unit vectors of one database, rows appended in record_embeddings rowid order."""

    removals: int = -1  # vector_removals.n when loaded (the change signature with max_rowid)
    max_rowid: int = 0
    ids: list[str] = field(default_factory=list)
    position: dict[str, int] = field(default_factory=dict)
    # The rows of each scope (a record's scope never changes): a request of a few scopes
    # too large to list scores their rows only, not the whole store.
    in_scope: dict[str | None, list[int]] = field(default_factory=dict)
    buffer: np.ndarray | None = None  # capacity doubles; rows [0, len(ids)) are live
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reset(self) -> None:
        self.removals, self.max_rowid = -1, 0
        self.ids, self.position, self.in_scope, self.buffer = [], {}, {}, None

    def append(self, rid: str, vector: np.ndarray, scope: str | None = None) -> None:
        n = len(self.ids)
        if self.buffer is None:
            self.buffer = np.empty((1024, vector.shape[0]), dtype=np.float32)
        if vector.shape[0] != self.buffer.shape[1]:
            return  # a vector of another dimension cannot be compared: leave it out
        if n == self.buffer.shape[0]:
            grown = np.empty((2 * n, self.buffer.shape[1]), dtype=np.float32)
            grown[:n] = self.buffer
            self.buffer = grown
        self.buffer[n] = vector
        self.position[rid] = n
        self.in_scope.setdefault(scope, []).append(n)
        self.ids.append(rid)

    def put(self, rid: str, vector: np.ndarray, scope: str | None) -> None:
        """`append`, or the record's row overwritten in place when it has one (PostgreSQL
        rewrites a vector in place; a record's scope never changes). A view taken before
        sees the new vector too: it is the newer one."""
        at = self.position.get(rid)
        if at is None or self.buffer is None or vector.shape[0] != self.buffer.shape[1]:
            self.append(rid, vector, scope)
        else:
            self.buffer[at] = vector

    def snapshot(self) -> MatrixView:
        """A consistent view: later appends write past it or into a new buffer (a reset
        makes new containers; the view keeps the old)."""
        n = len(self.ids)
        view = self.buffer[:n] if self.buffer is not None else None
        # The lists are shared, not copied (200,000 ids were 0.28 ms a search): rows are
        # only appended to them, and a reset makes new ones.
        return MatrixView(view, self.ids, self.position, self.in_scope)


@dataclass(frozen=True)
class MatrixView:
    matrix: np.ndarray | None  # the rows in view
    ids: list[str]  # may hold later rows: those at `size` and past it
    position: dict[str, int]  # likewise: check against `size`
    in_scope: dict[str | None, list[int]]  # likewise

    @property
    def size(self) -> int:
        return 0 if self.matrix is None else len(self.matrix)

    def rows_among(self, record_ids: Sequence[str]) -> np.ndarray:
        """The rows of those of `record_ids` the view holds (rows appended after the
        snapshot are not in it), in the order given."""
        n = self.size
        at = (self.position.get(rid, n) for rid in record_ids)
        return np.fromiter((p for p in at if p < n), dtype=np.int64)

    def rows_of(self, scopes: Sequence[str | None]) -> np.ndarray:
        """The rows of the records of `scopes`, in order. Each scope's list grows in row
        order, so the rows past the view are its tail."""
        n = self.size
        parts: list[np.ndarray] = []
        for scope in set(scopes):
            rows = self.in_scope.get(scope, [])
            if rows:
                parts.append(np.asarray(rows[: bisect_left(rows, n)], dtype=np.int64))
        if not parts:
            return _NONE
        return np.sort(np.concatenate(parts)) if len(parts) > 1 else parts[0]


_NONE = np.empty(0, dtype=np.int64)
# Scattered rows are gathered this many at a time (bounding the copy) when they are few
# enough for the gather to cost less than one pass over the whole matrix.
_GATHER_CHUNK = 16_384
_GATHER_SHARE = 4  # gather when rows are at most 1/4 of the matrix


def similarities(matrix: np.ndarray, rows: np.ndarray, q: np.ndarray) -> np.ndarray:
    """matrix[rows] @ q without copying a large share of the matrix at once."""
    if len(rows) * _GATHER_SHARE > len(matrix):
        return np.asarray((matrix @ q)[rows])
    out = np.empty(len(rows), dtype=np.float32)
    for start in range(0, len(rows), _GATHER_CHUNK):
        part = rows[start : start + _GATHER_CHUNK]
        out[start : start + len(part)] = matrix[part] @ q
    return out


_caches: PerEngine[Matrix] = PerEngine(Matrix)
Params = dict[str, Any]  # filter_params of the request's RecordQuery


# The change signature of record_embeddings (see _refresh), as two uncorrelated scalar
# subqueries: SQLite evaluates each once per statement, so they ride along with the
# statement that lists the admitted ids (and are the only statement when none is listed).
SIGNATURE = (
    literal_column("(SELECT n FROM vector_removals WHERE id = 1)", Integer),
    literal_column("(SELECT coalesce(max(rowid), 0) FROM record_embeddings)", Integer),
)
# The admitted ids, and the change signature read with them, when the caller has listed
# them already (a small-scope retrieve reads every admitted record's header first).
Listed = tuple[list[str], tuple[int, int]]


def _refresh(session: Session, cache: Matrix, removals: int, max_rowid: int) -> None:
    """Bring the matrix up to the signature (removals, max_rowid) read with the request's
    first statement: load rows added since the last look; rebuild when any row was
    removed. Both checks take constant time: max(rowid), and the counter migration
    0008's trigger keeps."""
    if removals != cache.removals:  # rows were deleted or replaced: start over
        cache.reset()
        cache.removals = removals
    if max_rowid == cache.max_rowid:
        return
    new = column_rows(session, _NEW_VECTORS, {"after": cache.max_rowid, "upto": max_rowid})
    for rid, blob, scope in new:
        if blob is not None:
            cache.append(rid, np.frombuffer(blob, dtype=np.float32), scope)
    cache.max_rowid = max_rowid


_NEW_VECTORS = text(
    "SELECT e.record_id, e.vector, r.scope FROM record_embeddings AS e "
    "LEFT JOIN records AS r ON r.id = e.record_id "
    "WHERE e.rowid > :after AND e.rowid <= :upto ORDER BY e.rowid"
)


# Ids per statement when checking rows against the filters (SQLite binds at most 32,766
# parameters in a statement).
_PASSING_CHUNK = 10_000


def _filter_check(
    session: Session, records: RecordQuery, carry: CarriedHeaders | None
) -> Callable[[list[str]], set[str]]:
    """Which of the ids given pass the filters of `records` (read with their headers into
    `carry` when given; those it knows already pass unread: of an all-scope retrieve's
    300 nearest at 2,000 LoCoMo records, about half are lexical candidates). A literal IN
    list lets SQLite look the ids up by primary key (an IN over json_each made it scan an
    index on status instead)."""
    shape, params = filter_shape(records, dialect_of(session)), filter_params(records)

    def passing(ids: list[str]) -> set[str]:
        out: set[str] = set()
        for start in range(0, len(ids), _PASSING_CHUNK):
            chunk = ids[start : start + _PASSING_CHUNK]
            if carry is None:
                stmt = _passing_statement(shape)
                out.update(row[0] for row in column_rows(session, stmt, {**params, "ids": chunk}))
                continue
            out.update(rid for rid in chunk if rid in carry.known)
            unknown = [rid for rid in chunk if rid not in carry.known]
            found = header_repo.header_rows(session, unknown, records, carry.mentioning)
            carry.rows.update(found)
            out.update(found)
        return out

    return passing


@cache
def _passing_statement(shape: FilterShape) -> Select[str]:
    ids: Any = bindparam("ids", expanding=True)
    return select(RecordRow.id).where(RecordRow.id.in_(ids), *bound_clauses(shape))


@cache
def _listing_statement(shape: FilterShape) -> Select[str, int, int]:
    """The ids the filters admit, `limit` at most, with the change signature."""
    admitted = select(RecordRow.id, *SIGNATURE).where(*bound_clauses(shape))
    return admitted.limit(bindparam("limit"))


def listing_bound(limit: int) -> int:
    """The most records a filter's scopes may hold for `sqlite_nearest` to list them
    (`selective`); the listing reads one more to see that it overflows."""
    return 32 * limit + 1


def sqlite_nearest(
    session: Session,
    query: Callable[[], np.ndarray],
    records: RecordQuery,
    limit: int,
    also: Sequence[str],
    *,
    selective: bool,
    listed: Listed | None = None,
    signature: tuple[int, int] | None = None,
    carry: CarriedHeaders | None = None,
) -> dict[str, float]:
    """record id → cosine of the `limit` nearest records `records` admits, plus `also`.
    `query` gives the query's unit vector; it is asked for once the candidates are listed
    (the query embedding may still be running meanwhile, on another core).

    `selective`: the filter may name few records (a small scope, some tags); they are
    listed (at most 32 x limit + 1) and, when few, scored alone. Otherwise, or when the
    listing overflows, the rows of the filter's scopes (every row when it names none) are
    scored and the best checked against the filter: listing up to 6,401 ids of the whole
    store took most of an all-scopes retrieve, and saturated the API in the soak once the
    store held a few thousand; scoring every row for one scope of 3,000 in a store of
    24,000 cost 14-26 ms a search instead of 5-7.
    `listed`: the admitted ids and the change signature, read by the caller already;
    `signature`: the change signature alone, read by an earlier statement of the
    transaction (the BM25 candidates').
    `carry`: the best rows checked against the filter are read with their headers."""
    small = listing_bound(limit) - 1
    if listed is None:
        listed = _listed(session, records, small + 1) if selective else None
    allowed, signature = listed if listed is not None else (None, signature)
    if allowed is not None and not allowed:  # nothing passes (`also`, found under them, too)
        return {}
    if signature is None:
        signature = column_rows(session, select(*SIGNATURE)).one().tuple()
    cache = _caches.of(session)
    with cache.lock:
        _refresh(session, cache, *signature)
        view = cache.snapshot()
    q = query()
    allowed = allowed if allowed is not None and len(allowed) <= small else None
    found = nearest_in(session, view, q, records, limit, also, allowed=allowed, carry=carry)
    assert found is not None  # every window is tried (no `widest`)
    return found


def nearest_in(
    session: Session,
    view: MatrixView,
    q: np.ndarray,
    records: RecordQuery,
    limit: int,
    also: Sequence[str],
    *,
    allowed: Sequence[str] | None = None,
    carry: CarriedHeaders | None = None,
    unknown_scope: Sequence[None] = (),
    widest: int | None = None,
) -> dict[str, float] | None:
    """record id → cosine of the `limit` nearest of the `view`'s rows that `records`
    admits, plus `also` (those the view holds): among `allowed` when given (ids the
    filters admit, few), else the rows of the filter's scopes (every row when it names
    none; with `unknown_scope`, (None,), the rows kept under no scope too), the best
    checked against the filters (`carry`: read with their headers). None when fewer
    than `limit` of the best `widest` pass (the caller searches otherwise)."""
    matrix, ids = view.matrix, view.ids
    if matrix is None or matrix.shape[1] != q.shape[0]:
        return {}
    passing = _filter_check(session, records, carry)
    chosen: list[tuple[int, float]] | None
    if allowed is not None:
        rows = view.rows_among(allowed)
        chosen = _best(rows, matrix[rows] @ q, limit)
    elif records.filter.scopes:  # scopes too large to list: their rows, not the store's
        rows = view.rows_of([*records.filter.scopes, *unknown_scope])
        sims = similarities(matrix, rows, q)
        chosen = _best_passing(rows, sims, ids, passing, limit, widest)
    else:
        rows = np.arange(view.size)
        chosen = _best_passing(rows, matrix @ q, ids, passing, limit, widest)
    if chosen is None:
        return None
    out = {ids[i]: s for i, s in chosen}
    rest = view.rows_among([rid for rid in also if rid not in out])
    out.update((ids[at], float(sim)) for at, sim in zip(rest, matrix[rest] @ q, strict=True))
    return out


def _listed(session: Session, records: RecordQuery, limit: int) -> Listed:
    """The ids `records` admits, `limit` at most, and the change signature read with them
    (none when nothing is admitted: the matrix is not needed then)."""
    shape, params = filter_shape(records, "sqlite"), filter_params(records)
    admitted = column_rows(session, _listing_statement(shape), {**params, "limit": limit}).all()
    signature = (admitted[0][1], admitted[0][2]) if admitted else (0, 0)
    return [row[0] for row in admitted], signature


def _best(rows: np.ndarray, sims: np.ndarray, k: int) -> list[tuple[int, float]]:
    """(row, similarity) of the k most similar, best first."""
    if len(rows) > k:
        keep = np.argpartition(-sims, k - 1)[:k]
        rows, sims = rows[keep], sims[keep]
    order = np.argsort(-sims, kind="stable")
    return [(int(rows[i]), float(sims[i])) for i in order]


def _best_passing(
    rows: np.ndarray,
    sims: np.ndarray,
    ids: list[str],
    passing: Callable[[list[str]], set[str]],
    limit: int,
    widest: int | None = None,
) -> list[tuple[int, float]] | None:
    """Widen a window over the best of `rows` (`sims` their similarities) until `limit`
    of them pass the filters. The first window is a little wider than `limit`: most rows
    pass when the filter is the caller's read rule and the live statuses, and each id it
    checks costs a look-up (800 ids, the former first window, were 2.9 ms of a 16-ms
    all-scopes retrieve at 2,000 records). None when fewer than `limit` of the best
    `widest` pass (a selective filter, which the caller's own search serves better)."""
    checked: dict[str, bool] = {}  # a wider window checks only the ids it adds
    for window in (limit + limit // 2, 4 * limit, 32 * limit, len(rows)):
        top = _best(rows, sims, window)
        fresh = [ids[i] for i, _ in top if ids[i] not in checked]
        ok = passing(fresh)
        checked.update((rid, rid in ok) for rid in fresh)
        passed = [(i, s) for i, s in top if checked[ids[i]]]
        if len(passed) >= limit or window >= len(rows):
            return passed[:limit]
        if widest is not None and window >= widest:
            return None
    return []  # the last window covers every row (none when `rows` is empty)
