"""GET /v1/metrics (domain snapshot, read role) and GET /metrics (Prometheus, no auth)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from app import clock
from app.deps import ReadTrust, SessionDep, StateDep
from app.embedding.runtime import current_status
from app.errors import error_responses
from app.metrics.registry import CONTENT_TYPE, gauge_lines, render_process_metrics
from app.metrics.service import snapshot
from app.metrics import repository as metrics_repo
from app.enums import MemoryType
from app.revise.schemas import MetricsSnapshot

router = APIRouter(tags=["metrics"])


@router.get(
    "/v1/metrics",
    operation_id="getMetrics",
    response_model=MetricsSnapshot,
    responses=error_responses(401, 403, 429),
    summary="Domain snapshot: counts, salience histogram, growth, usefulness, revision rate",
)
def get_metrics(session: SessionDep, trust: ReadTrust) -> MetricsSnapshot:
    return snapshot(session, trust, clock.now())


@router.get(
    "/metrics",
    operation_id="prometheusMetrics",
    response_class=PlainTextResponse,
    response_model=str,
    summary="Prometheus exposition: requests, records by type, jobs, embedding queue",
)
def prometheus(state: StateDep, session: SessionDep) -> PlainTextResponse:
    by_type = metrics_repo.counts_by_type(session)
    lines = render_process_metrics()
    lines += gauge_lines(
        "membrane_records",
        "Stored records by type.",
        ("type",),
        [((t.value,), float(by_type.get(t.value, 0))) for t in MemoryType],
    )
    lines += gauge_lines(
        "membrane_embedding_queue_depth",
        "Records waiting for the active embedding provider (as in /readyz).",
        (),
        [((), float(max(current_status(state).pending, 0)))],
    )
    lines += gauge_lines(
        "membrane_tier", "Deployment tier the database offers.", (), [((), float(state.db.tier))]
    )
    return PlainTextResponse("\n".join(lines) + "\n", media_type=CONTENT_TYPE)
