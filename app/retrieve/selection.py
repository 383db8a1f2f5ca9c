"""Competence and plan graph records → selector candidates → the API's Selection."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app import clock
from app.enums import MemoryType
from app.models import RecordRow
from app.records import payload_json
from app.retrieve import selector
from app.retrieve.applicability import context_fit
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
    context: Mapping[str, Any] | None = None,
    weights: tuple[float, float, float] = selector.SEED_WEIGHTS,
) -> Selection:
    """Judge readable competence / plan graph records (best-ranked first)."""
    options = [_option(row, terms, cosine.get(row.id), context) for row in rows]
    picked = selector.select(options, now, threshold, weights)
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


def applicability(
    row: RecordRow, terms: list[str], cosine: float | None, context: Mapping[str, Any] | None
) -> float:
    """How well the record fits the query — the larger of query-term coverage and cosine
    similarity (absolute measures, unlike the per-request scaled relevance) — and the
    request's `context` (its triggers or constraints, app/retrieve/applicability.py): the
    mean of the two when both speak, either alone otherwise, 0 when neither does."""
    asked = bool(terms) or cosine is not None
    by_query = max(coverage(terms, row.search_text), max(cosine or 0.0, 0.0)) if asked else None
    by_context = context_fit(row.type, row.payload or {}, context) if context else None
    known = [a for a in (by_query, by_context) if a is not None]
    return min(1.0, sum(known) / len(known)) if known else 0.0


def _option(
    row: RecordRow, terms: list[str], cosine: float | None, context: Mapping[str, Any] | None
) -> selector.Option:
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
        applicability=applicability(row, terms, cosine, context),
        successes=successes,
        failures=failures,
        stated_rate=float(stated) if stated else None,
        last_used_at=clock.epoch_of(last) or row.updated_at,
        confidence=row.confidence,
    )
