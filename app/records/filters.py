"""Plain descriptions of which records a read asks for. Services build them from a
request; repositories turn them into SQL (app/records/repository.py:query_clauses)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.trust import Visibility


@dataclass(frozen=True)
class RecordFilter:
    """What a request asks for, besides trust (every field narrows; empty → no limit)."""

    types: Sequence[str] = ()
    scopes: Sequence[str] = ()
    tags_all: Sequence[str] = ()
    sensitivities: Sequence[int] = ()
    statuses: Sequence[str] = ()
    min_salience: float | None = None
    max_salience: float | None = None  # the original's ListOptions.MaxSalience
    created_after: float | None = None
    created_before: float | None = None
    ids: Sequence[str] = field(default_factory=tuple)


@dataclass(frozen=True)
class RecordQuery:
    """The records one read may touch: the filter, within the caller's visibility, with
    salience evaluated at `now`."""

    filter: RecordFilter
    visibility: Visibility
    now: float
