"""Whether a request's scopes (or, with none, the whole store) hold fewer records than
the small-scope threshold, remembered per database for a minute instead of counted on
every retrieve.

The answer only picks how a scope is searched (small: read all of its records; large: the
store-wide indexes). A scope crosses the threshold (20,000 records) rarely and then
stays across it, so an answer a minute old is as good as a fresh count: at worst a scope
that has just grown is searched exhaustively for up to a minute more."""

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


@dataclass
class _Known:
    answers: dict[tuple[tuple[str, ...], int], tuple[bool, float]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


_known: PerEngine[_Known] = PerEngine(_Known)


def scopes_hold_fewer(session: Session, scopes: Sequence[str], n: int) -> bool:
    known = _known.of(session)
    key = (tuple(sorted(set(scopes))), n)
    now = time.monotonic()
    with known.lock:
        hit = known.answers.get(key)
    if hit is not None and now - hit[1] < TTL_S:
        return hit[0]
    answer = search_repo.scopes_hold_fewer(session, scopes, n)
    with known.lock:
        if len(known.answers) >= MAX_KEPT:
            known.answers.clear()
        known.answers[key] = (answer, now)
    return answer
