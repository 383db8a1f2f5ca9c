"""One request's candidates as its signals find them (`Candidates`) and as ranking
leaves them (`Ranked`), and what the service derives from them without SQL: the
selector's picks, the lexical scores fusion takes, the sittings, the signals an answer
names."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from app.models import RecordRow
from app.relations.clauses import Edges
from app.retrieve.header_repository import RecordHeader
from app.retrieve.lexical_scores import LexicalScores
from app.retrieve.ranking import Components
from app.retrieve.selection import MAX_CANDIDATES, SELECTABLE
from app.trust import TrustContext, Visibility


@dataclass
class Ranked:
    """Candidates of one request, best first, with their score components."""

    order: list[RecordHeader]
    components: dict[str, Components] = field(default_factory=dict)
    cosine: dict[str, float] = field(default_factory=dict)
    terms: list[str] = field(default_factory=list)
    signals: list[str] = field(default_factory=list)
    rows: dict[str, RecordRow] = field(default_factory=dict)  # full rows loaded so far
    # The outgoing edges of loaded rows, read with them when the answer shows edges
    # (`reading`: whose view of their other ends; None: rows load without edges).
    edges: Edges = field(default_factory=dict)
    reading: Visibility | None = None
    # Whether a loaded record holds for this request (semantic validity windows and
    # conditions live in the payload, so they are checked once rows are loaded).
    holds: Callable[[RecordRow], bool] = lambda _row: True


@dataclass(frozen=True)
class Candidates:
    """What a query's signals found: BM25 scores, cosine similarities (None: no vectors),
    the records of entities the query names, the live readable ones among those
    (`linked`, which lend a lift), and the headers of every admitted candidate."""

    lexical: LexicalScores
    cosine: dict[str, float] | None
    entities: list[str]
    linked: list[str]
    metas: dict[str, RecordHeader]
    # Every record the request admits, when it read them all (small scopes), else None.
    admitted: dict[str, RecordHeader] | None = None


def selection_picks(ranked: Ranked, trust: TrustContext) -> list[str]:
    """The candidates the selector weighs: the best selectable ones the caller reads."""
    return [
        c.id for c in ranked.order if c.type in SELECTABLE and not trust.redacts(c.sensitivity)
    ][:MAX_CANDIDATES]


def lexical_scores(lexical: LexicalScores, metas: dict[str, RecordHeader]) -> dict[str, float]:
    """Each admitted lexical candidate's BM25 score: without the words of the names the
    query uses when the entity link lifts it, with them when it holds a name unlinked."""
    return {
        rid: (lexical.without_unscored if metas[rid].mentions_named else lexical.full)[rid]
        for rid in lexical.full
        if rid in metas
    }


def sittings_of(
    metas: dict[str, RecordHeader], trust: TrustContext
) -> list[tuple[str, str | None, float]]:
    """(id, scope, event time) of the readable episodic candidates with an event time:
    those that share in the best match of their sitting (never a redacted record)."""
    return [
        (m.id, m.scope, m.occurred_at)
        for m in metas.values()
        if m.occurred_at is not None and not trust.redacts(m.sensitivity)
    ]


def signals_of(components: dict[str, Components], *, vector: bool, context: bool) -> list[str]:
    """The signals that ranked an answer to a query, in the order they are applied
    (`context`: neighbours received a share; a sitting's share counts too)."""
    signals = ["lexical"] + (["vector"] if vector else [])
    signals += ["entity"] if any(c.entity for c in components.values()) else []
    context = context or any(c.sitting for c in components.values())
    return signals + (["context"] if context else []) + ["salience"]
