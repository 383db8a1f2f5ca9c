"""GET /v1/metrics (domain snapshot, read role) and GET /metrics (Prometheus, no auth)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from app import clock
from app.deps import ReadSessionDep, ReadTrust, StateDep
from app.errors import error_responses
from app.metrics.registry import CONTENT_TYPE
from app.metrics.schemas import MetricsSnapshot
from app.metrics.service import prometheus_text, snapshot

router = APIRouter(tags=["metrics"])


@router.get(
    "/v1/metrics",
    operation_id="getMetrics",
    response_model=MetricsSnapshot,
    responses=error_responses(401, 403, 429),
    summary="Domain snapshot: counts, salience histogram, growth, usefulness, revision rate",
)
def get_metrics(session: ReadSessionDep, trust: ReadTrust) -> MetricsSnapshot:
    return snapshot(session, trust, clock.now())


@router.get(
    "/metrics",
    operation_id="prometheusMetrics",
    response_class=PlainTextResponse,
    response_model=str,
    summary="Prometheus exposition: requests, records by type, jobs, embedding queue",
)
def prometheus(state: StateDep, session: ReadSessionDep) -> PlainTextResponse:
    pending = state.embedding_status().pending
    body = prometheus_text(session, state.db.tier, pending)
    return PlainTextResponse(body, media_type=CONTENT_TYPE)
