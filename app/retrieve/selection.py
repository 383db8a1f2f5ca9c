"""Competence and plan graph records → selector candidates → the API's Selection."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app import clock
from app.enums import MemoryType
from app.models import RecordRow
from app.records import payload_json
from app.retrieve import selector
from app.retrieve.schemas import Selection, SelectionCandidate
from app.retrieve.terms import coverage

SELECTABLE = frozenset({MemoryType.competence.value, MemoryType.plan_graph.value})
MAX_CANDIDATES = 10


def selection_for(
    rows: Sequence[RecordRow],
    terms: list[str],
    cosine: Mapping[str, float],
    now: float,
    threshold: float,
) -> Selection:
    """Judge readable competence / plan graph records (best-ranked first)."""
    options = [_option(row, terms, cosine.get(row.id)) for row in rows]
    picked = selector.select(options, now, threshold)
    return Selection(
        selected_id=picked.selected.record_id if picked.selected else None,
        confidence=picked.confidence,
        needs_more=picked.needs_more,
        threshold=picked.threshold,
        candidates=[
            SelectionCandidate(
                record_id=j.record_id,
                type=MemoryType(j.kind),
                applicability=j.applicability,
                success_rate=j.success_rate,
                recency=j.recency,
                score=j.score,
                confidence=j.confidence,
            )
            for j in picked.ranked
        ],
    )


def _option(row: RecordRow, terms: list[str], cosine: float | None) -> selector.Option:
    """Applicability: the larger of query-term coverage and cosine similarity (absolute
    measures, unlike the per-request scaled relevance); 0 without a query."""
    applicability = max(coverage(terms, row.search_text), max(cosine or 0.0, 0.0))
    payload = row.payload or {}
    if row.type == MemoryType.competence.value:
        performance = payload_json.competence(payload).get("performance") or {}
        successes = int(performance.get("success_count") or 0)
        failures = int(performance.get("failure_count") or 0)
        last = performance.get("last_used_at")
        stated = performance.get("success_rate") if successes + failures == 0 else None
    else:
        metrics = payload_json.plan_graph(payload).get("metrics") or {}
        successes = int(metrics.get("success_count") or 0)
        executions = int(metrics.get("execution_count") or 0)
        failures = int(metrics.get("failure_count") or max(0, executions - successes))
        last = metrics.get("last_executed_at")
        stated = None
    return selector.Option(
        record_id=row.id,
        kind=row.type,
        applicability=min(1.0, applicability),
        successes=successes,
        failures=failures,
        stated_rate=float(stated) if stated else None,
        last_used_at=clock.epoch_of(last) or row.updated_at,
        confidence=row.confidence,
    )
