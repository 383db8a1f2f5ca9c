"""Graph retrieval: ranked roots plus a bounded neighbourhood over relations.

Roots are ranked like /v1/retrieve (entity names and aliases the query spells out boost
entity roots). From them, edges are followed in both directions, one query for the
edges and one for the records at the far ends per hop, up to max_hops, node_limit and
edge_limit. Every node passes the same trust and status filter as the roots (types,
tags, scopes and min_salience select roots only; semantic validity, as in retrieve,
applies to every node); a redacted node is shown but never
expanded; edges to records the caller cannot see are left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from app import clock
from app.models import RecordRow, RelationRow
from app.records.filters import RecordFilter, RecordQuery
from app.records.references import unseen_in_rows
from app.records.schemas import RecordView
from app.records.views import full_view, redacted_view, relation_out
from app.relations import service as relations
from app.retrieve import repository as search_repo
from app.retrieve.schemas import GraphNode, GraphRequest, GraphResponse
from app.retrieve.service import RetrieveService, narrow, record_filter
from app.trust import TrustContext


@dataclass
class _Walk:
    nodes: dict[str, tuple[RecordRow, int]] = field(default_factory=dict)
    expanded: set[str] = field(default_factory=set)
    edges: list[RelationRow] = field(default_factory=list)
    seen_edges: set[tuple[str, str, str]] = field(default_factory=set)
    truncated: bool = False


class GraphService:
    def __init__(self, retrieve: RetrieveService) -> None:
        self.retrieve = retrieve
        self.session = retrieve.session

    def neighbourhood(self, req: GraphRequest, trust: TrustContext) -> GraphResponse:
        trust = narrow(trust, req.trust)
        now = clock.now()
        flt = record_filter(req)
        ranked = self.retrieve.rank(req, trust, now, flt)
        roots = self.retrieve.head(ranked, min(req.limit, req.node_limit))
        walk = _Walk(nodes={r.id: (r, 0) for r in roots})
        nodes = RecordQuery(RecordFilter(statuses=flt.statuses), trust.listing(), now)
        frontier = [r.id for r in roots if not trust.redacts(r.sensitivity)]
        for depth in range(1, req.max_hops + 1):
            if not frontier:
                break
            walk.expanded.update(frontier)
            frontier = self._hop(walk, frontier, depth, req, trust, nodes, ranked.holds)
        readable = [row for row, _ in walk.nodes.values() if not trust.redacts(row.sensitivity)]
        hidden = unseen_in_rows(self.retrieve.session, readable, trust)
        return GraphResponse(
            roots=self.retrieve.items(roots, ranked, trust, now),
            nodes=[
                GraphNode(
                    record=self._view(row, trust, now, hidden),
                    depth=d,
                    expanded=rid in walk.expanded,
                )
                for rid, (row, d) in walk.nodes.items()
            ],
            edges=[relation_out(e) for e in walk.edges],
            truncated=walk.truncated,
            signals=ranked.signals,
        )

    def _hop(
        self,
        walk: _Walk,
        frontier: list[str],
        depth: int,
        req: GraphRequest,
        trust: TrustContext,
        nodes: RecordQuery,
        holds: Callable[[RecordRow], bool],
    ) -> list[str]:
        """Follow the frontier's edges once; returns the next frontier."""
        budget = req.edge_limit - len(walk.edges)
        if budget <= 0:
            walk.truncated = True
            return []
        # Every edge the service writes has an inverse: ask for both halves of the budget.
        edges = relations.touching(self.session, frontier, limit=2 * budget + 1)
        if len(edges) > 2 * budget:
            walk.truncated = True
        if req.predicates is not None:
            edges = [e for e in edges if e.predicate in req.predicates]
        inside = set(frontier)
        far = {e.target_id if e.source_id in inside else e.source_id for e in edges}
        found = search_repo.load(self.session, [i for i in far if i not in walk.nodes], nodes)
        found = {rid: row for rid, row in found.items() if holds(row)}  # facts out of validity
        nxt: list[str] = []
        for edge in edges:
            other = edge.target_id if edge.source_id in inside else edge.source_id
            if other not in walk.nodes:
                if other not in found:
                    continue  # invisible, filtered out, or an external reference
                if len(walk.nodes) >= req.node_limit:
                    walk.truncated = True
                    continue
                walk.nodes[other] = (found[other], depth)
                if not trust.redacts(found[other].sensitivity):
                    nxt.append(other)
            self._keep(walk, edge, req.edge_limit)
        return nxt

    @staticmethod
    def _keep(walk: _Walk, edge: RelationRow, edge_limit: int) -> None:
        """Keep one edge of each inverse pair, within the edge limit."""
        key = (edge.source_id, edge.predicate, edge.target_id)
        inverse = relations.INVERSE.get(edge.predicate)
        twin = (edge.target_id, inverse, edge.source_id) if inverse else None
        if key in walk.seen_edges or (twin is not None and twin in walk.seen_edges):
            return
        if len(walk.edges) >= edge_limit:
            walk.truncated = True
            return
        walk.seen_edges.add(key)
        walk.edges.append(edge)

    @staticmethod
    def _view(
        row: RecordRow, trust: TrustContext, now: float, hidden: frozenset[str]
    ) -> RecordView:
        if trust.redacts(row.sensitivity):
            return redacted_view(row, now)
        return full_view(row, now, hidden=hidden)
