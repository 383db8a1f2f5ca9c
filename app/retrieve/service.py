"""Ranked retrieval: filter by trust and request, gather lexical / vector / entity
candidates, fuse, spread context to neighbouring episodes, blend with salience, select.

Candidates are ranked on light rows (id, type, scope, sensitivity, time, salience); only
the records that make the answer are loaded in full."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy.orm import Session

from app import clock
from app.config import RankingSettings
from app.db import Tier
from app.embedding.providers import Embedder
from app.enums import EPISODIC, LIVE_STATUSES
from app.models import RecordRow
from app.records.filters import RecordFilter, RecordQuery
from app.records.references import unseen_in_rows
from app.records.views import full_view, redacted_view
from app.relations.clauses import Edges
from app.retrieve import header_repository as header_repo
from app.retrieve import neighbour_repository as neighbour_repo
from app.retrieve import ranking, validity
from app.retrieve import repository as search_repo
from app.retrieve import salience_repository as salience_repo
from app.retrieve.adjacent import adjacent_episodes
from app.retrieve.candidates import CandidateSearch
from app.retrieve.header_repository import RecordHeader
from app.retrieve.ranked import (
    Candidates,
    Ranked,
    lexical_scores,
    selection_picks,
    signals_of,
    sittings_of,
)
from app.retrieve.ranking import Components
from app.retrieve.schemas import (
    RetrievedItem,
    RetrieveRequest,
    RetrieveResponse,
    ScoreComponents,
    Selection,
    TrustNarrowingIn,
)
from app.retrieve.selection import selection_for
from app.retrieve.terms import query_terms
from app.trust import TrustContext, Visibility

log = logging.getLogger("membrane.retrieve")
# Edges shown with each retrieved record (a fact consolidated from thousands of episodes
# has thousands of derived_from edges); GET /v1/records/{id}/relations lists them all.
MAX_RELATIONS_PER_ITEM = 50


def narrow(trust: TrustContext, body: TrustNarrowingIn | None) -> TrustContext:
    """Apply the body's `trust` on top of the principal's (already header-narrowed) trust."""
    if body is None:
        return trust
    return trust.narrowed(body.max_sensitivity, body.scopes)


def validity_check(req: RetrieveRequest, now: float) -> Callable[[RecordRow], bool]:
    at = clock.to_epoch(req.valid_at) if req.valid_at is not None else now
    return lambda row: validity.holds(row.type, row.payload or {}, at, req.context)


# The no-query path reads `limit` rows; when facts among them are left out for validity,
# it reads again with this many more, so the answer is seldom short.
VALIDITY_SLACK = 20


def record_filter(req: RetrieveRequest) -> RecordFilter:
    return RecordFilter(
        types=[t.value for t in req.types],
        scopes=list(req.scopes),
        tags_all=list(req.tags),
        statuses=[s.value for s in req.statuses] if req.statuses else list(LIVE_STATUSES),
        min_salience=req.min_salience,
    )


class RetrieveService:
    def __init__(
        self,
        session: Session,
        ranking_settings: RankingSettings,
        embedder: Embedder | None,
        tier: Tier,
    ) -> None:
        self.session = session
        self.settings = ranking_settings
        self.embedder = embedder if tier is not Tier.postgres else None
        self.tier = tier

    # -- public -------------------------------------------------------------------------

    def retrieve(self, req: RetrieveRequest, trust: TrustContext) -> RetrieveResponse:
        trust = narrow(trust, req.trust)
        now = clock.now()
        ranked = self.rank(req, trust, now, record_filter(req), with_edges=True)
        picks = selection_picks(ranked, trust)
        rows = self.head(ranked, req.limit, also=picks)  # the selection's rows load with it
        if req.group_by_layer:
            rows.sort(key=lambda r: ranking.layer_index(r.type))  # stable: score order kept
        return RetrieveResponse(
            items=self.items(rows, ranked, trust, now),
            selection=self.selection(ranked, trust, now, req.context, picks),
            signals=ranked.signals,
        )

    def rank(
        self,
        req: RetrieveRequest,
        trust: TrustContext,
        now: float,
        flt: RecordFilter,
        *,
        with_edges: bool = False,
    ) -> Ranked:
        """The candidates in rank order (`with_edges`: the rows it loads carry the
        outgoing edges the answer shows, read in the same statements)."""
        records = RecordQuery(flt, trust.listing(), now)
        reading = trust.reading() if with_edges else None
        holds = validity_check(req, now)
        if not (req.query and req.query.strip()):
            ranked = self._rank_by_salience(records, req.limit, reading, holds)
        else:
            ranked = self._rank_query(req, trust, records)
        ranked.reading = reading
        ranked.holds = holds
        return ranked

    def _rank_by_salience(
        self,
        records: RecordQuery,
        limit: int,
        reading: Visibility | None,
        holds: Callable[[RecordRow], bool],
    ) -> Ranked:
        rows, edges = self._by_salience(records, limit, reading)
        if len(rows) == limit and sum(map(holds, rows)) < limit:  # some left out: read on
            rows, edges = self._by_salience(records, limit + VALIDITY_SLACK, reading)
        return Ranked(
            order=[header_repo.header_of(r, records.now) for r in rows],
            signals=["salience"],
            rows={r.id: r for r in rows},
            edges=edges,
        )

    def _by_salience(
        self, records: RecordQuery, limit: int, reading: Visibility | None
    ) -> tuple[list[RecordRow], Edges]:
        if reading is None:
            return salience_repo.by_salience(self.session, records, limit), {}
        return salience_repo.by_salience_with_edges(
            self.session, records, limit, reading, MAX_RELATIONS_PER_ITEM
        )

    def head(self, ranked: Ranked, n: int, also: Sequence[str] = ()) -> list[RecordRow]:
        """Full rows of the best `n` candidates that hold, in rank order; the rows of
        `also` are loaded with the first of them (one statement for both)."""
        out: list[RecordRow] = []
        start, first = 0, True
        while len(out) < n and start < len(ranked.order):
            wanted = [c.id for c in ranked.order[start : start + n - len(out)]]
            start += len(wanted)
            extra = [rid for rid in also if rid not in wanted] if first else []
            first = False
            self._load(ranked, [rid for rid in (*wanted, *extra) if rid not in ranked.rows])
            out += [
                ranked.rows[r] for r in wanted if r in ranked.rows and ranked.holds(ranked.rows[r])
            ]
        return out

    def _load(self, ranked: Ranked, ids: Sequence[str]) -> None:
        if ranked.reading is None:
            ranked.rows.update(search_repo.load(self.session, ids))
            return
        rows, edges = search_repo.load_with_edges(
            self.session, ids, ranked.reading, MAX_RELATIONS_PER_ITEM
        )
        ranked.rows.update(rows)
        ranked.edges.update(edges)

    def selection(
        self,
        ranked: Ranked,
        trust: TrustContext,
        now: float,
        context: Mapping[str, Any] | None,
        picks: Sequence[str],
    ) -> Selection | None:
        """The selector's choice among `picks` (`ranked.selection_picks`), loaded already
        by `head` unless they were left out for validity."""
        if not picks:
            return None
        missing = [rid for rid in picks if rid not in ranked.rows]
        ranked.rows.update(search_repo.load(self.session, missing))
        rows = [ranked.rows[rid] for rid in picks if rid in ranked.rows]
        rows = [row for row in rows if ranked.holds(row)]
        if not rows:
            return None
        threshold, weights = self.settings.selector_threshold, self.settings.selector_weights
        return selection_for(rows, ranked.terms, ranked.cosine, now, threshold, context, weights)

    def items(
        self, rows: Sequence[RecordRow], ranked: Ranked, trust: TrustContext, now: float
    ) -> list[RetrievedItem]:
        """The answer's items; each readable record with the edges read with its row (none
        where `rank` was not asked for them: the graph's roots)."""
        readable = [r for r in rows if not trust.redacts(r.sensitivity)]
        hidden = unseen_in_rows(self.session, readable, trust)
        out: list[RetrievedItem] = []
        for row in rows:
            if trust.redacts(row.sensitivity):
                # Metadata only: no payload and no scores that would hint at the content.
                out.append(
                    RetrievedItem(record=redacted_view(row, now), score=None, components=None)
                )
                continue
            view = full_view(row, now, ranked.edges.get(row.id, []), hidden=hidden)
            comp = ranked.components.get(row.id)
            out.append(
                RetrievedItem(
                    record=view,
                    score=comp.score if comp else view.salience,
                    components=_components_out(comp, view.salience),
                )
            )
        return out

    # -- ranking with a query ------------------------------------------------------------

    def _rank_query(
        self, req: RetrieveRequest, trust: TrustContext, records: RecordQuery
    ) -> Ranked:
        terms = query_terms(req.query or "")
        search = CandidateSearch(self.session, self.settings, self.embedder, self.tier)
        found = search.find(req, trust, records, terms)
        metas, cosine = found.metas, found.cosine
        components = ranking.fuse(lexical_scores(found.lexical, metas), cosine, found.entities)
        components = {rid: c for rid, c in components.items() if rid in metas}
        spread = req.expand_context and self._spread(components, metas, records, trust, found)
        # After the spread: a record found only as a neighbour may mention the entity too.
        ranking.link_mentions(components, [m.id for m in metas.values() if m.mentions_named])
        salience = {rid: m.salience for rid, m in metas.items()}
        ranking.finish(
            components,
            salience,
            self.settings.relevance_weight,
            self.settings.salience_weight,
            sittings_of(metas, trust) if req.expand_context else (),
        )
        order = ranking.in_rank_order(metas.values(), components)
        return Ranked(
            order=order,
            components=components,
            cosine=cosine or {},
            terms=terms,
            signals=signals_of(components, vector=cosine is not None, context=spread),
        )

    def _spread(
        self,
        components: dict[str, Components],
        metas: dict[str, RecordHeader],
        records: RecordQuery,
        trust: TrustContext,
        found: Candidates,
    ) -> bool:
        """Neighbouring episodes of the best readable episodic hits get a share (found
        among the admitted records' headers when the request read them all, else looked
        up)."""
        eligible = [
            rid
            for rid, m in metas.items()
            if m.type == EPISODIC and not trust.redacts(m.sensitivity)
        ]
        seeds = ranking.context_seeds(components, eligible)
        if not seeds:
            return False
        if found.admitted is not None:
            near = adjacent_episodes(found.admitted, seeds, ranking.CONTEXT_RADIUS)
            near_headers = found.admitted
        else:
            near, near_headers = neighbour_repo.temporal_neighbours(
                self.session,
                [metas[s] for s in seeds],
                records,
                ranking.CONTEXT_RADIUS,
                found.linked,
                known=metas,
            )
        ranking.spread_context(components, near)
        missing = [rid for rid in components if rid not in metas]
        metas.update((rid, near_headers[rid]) for rid in missing if rid in near_headers)
        for rid in missing:
            if rid not in metas:
                del components[rid]
        return bool(near)


def _components_out(comp: Components | None, salience: float) -> ScoreComponents:
    if comp is None:  # no query: salience alone
        return ScoreComponents(
            lexical=None, vector=None, entity=0.0, context=0.0, relevance=None, salience=salience
        )
    return ScoreComponents(
        lexical=comp.lexical,
        vector=comp.vector,
        entity=comp.entity,
        context=comp.context + comp.sitting,
        relevance=comp.relevance,
        salience=comp.salience,
    )
