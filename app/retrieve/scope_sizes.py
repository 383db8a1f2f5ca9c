"""Whether a request's scopes (or, with none, the whole store) hold fewer records than
the small-scope threshold, remembered per database for a minute instead of counted on
every retrieve.

The answer only picks how a scope is searched (small: read all of its records; large: the
store-wide indexes). A scope crosses the threshold (20,000 records) rarely and then
stays across it, so an answer a minute old is as good as a fresh count: at worst a scope
that has just grown is searched exhaustively for up to a minute more.

A count stops at the threshold asked about; one that stopped short of it is the scopes'
size, which answers every other threshold too (a query retrieve asks about three: the
small-scope threshold, the candidate pool, the SQLite listing bound), so a scope is
counted once a minute, not once per threshold."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from app.engine_cache import PerEngine
from app.retrieve import repository as search_repo

TTL_S = 60.0
MAX_KEPT = 10_000  # distinct scope sets remembered per database


@dataclass(frozen=True)
class _Count:
    records: int  # counted up to `bound`: the exact size when below it
    bound: int
    at: float

    def answers(self, n: int) -> bool | None:
        """Whether fewer than `n` records lie in the scopes, when this count tells."""
        if self.records < self.bound:
            return self.records < n
        return False if n <= self.bound else None


@dataclass
class _Known:
    counts: dict[tuple[str, ...], _Count] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


_known: PerEngine[_Known] = PerEngine(_Known)


def scopes_hold_fewer(session: Session, scopes: Sequence[str], n: int) -> bool:
    known = _known.of(session)
    key = tuple(sorted(set(scopes)))
    now = time.monotonic()
    with known.lock:
        seen = known.counts.get(key)
    if seen is not None and now - seen.at < TTL_S and (answer := seen.answers(n)) is not None:
        return answer
    counted = _Count(search_repo.records_in_scopes(session, scopes, n), n, now)
    with known.lock:
        if len(known.counts) >= MAX_KEPT:
            known.counts.clear()
        known.counts[key] = counted
    return counted.records < n
