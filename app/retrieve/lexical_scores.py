"""What a lexical search returns (`LexicalScores`) and how it learns what the query's
entity names decide (`Naming`), for both stores' BM25 (`repository.lexical`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from app.entities.clauses import NameMatch
from app.retrieve.header_repository import NameLookUp, RecordHeader


@dataclass(frozen=True)
class LexicalScores:
    """BM25 scores (higher is better) of the lexical candidates: with every query term, and
    without the unscored terms (the same dict when there are none); the candidates
    carry their headers (`headers`, as `header_repository.headers` gives them)."""

    full: dict[str, float]
    without_unscored: dict[str, float]
    headers: dict[str, RecordHeader] = field(default_factory=dict)
    # SQLite: the vector matrix's change signature, when asked for and read
    signature: tuple[int, int] | None = None
    # What the look-up of `Naming.look_up` found; None when it did not run (no statement
    # ran: the query has no term to match).
    names: list[NameMatch] | None = None
    # PostgreSQL: pg_matrix_repository.SIGNATURE's values, when asked for and read
    matrix: tuple[Any, ...] | None = None


class Naming(NamedTuple):
    """What the entity names of the query decide for a lexical search
    (`terms.unscored_names`): the `unscored` terms (they choose candidates but add
    nothing to their scores) and the entities whose mentions flag a candidate
    (`mentioning`, as for `header_repository.headers`), when the caller has found them;
    or the `look_up` that finds them, run inside the search's statement (a retrieve's
    round trip less), its matches returned (`LexicalScores.names`)."""

    unscored: Sequence[str] = ()
    mentioning: Sequence[str] = ()
    look_up: NameLookUp | None = None
