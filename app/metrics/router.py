"""GET /v1/metrics (domain snapshot, read role) and GET /metrics (Prometheus: no key, or
the scrape token of MEMBRANE_METRICS_TOKEN when one is set)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Header
from fastapi.responses import PlainTextResponse
from sqlalchemy.orm import Session

from app import clock
from app.deps import ReadingDep, StateDep
from app.errors import Unauthorized, error_responses
from app.metrics.registry import CONTENT_TYPE
from app.metrics.schemas import MetricsSnapshot
from app.metrics.service import prometheus_text, scrape_allowed, snapshot
from app.request_work import reading

router = APIRouter(tags=["metrics"])


@router.get(
    "/v1/metrics",
    operation_id="getMetrics",
    response_model=MetricsSnapshot,
    responses=error_responses(401, 403, 429),
    summary="Domain snapshot: counts, salience histogram, growth, usefulness, revision rate",
)
async def get_metrics(ctx: ReadingDep) -> MetricsSnapshot:
    return await reading(ctx.state, ctx.position, lambda s: snapshot(s, ctx.trust, clock.now()))


async def scraper(
    state: StateDep,
    authorization: Annotated[str | None, Header(include_in_schema=False)] = None,
) -> None:
    """With MEMBRANE_METRICS_TOKEN set, only a request bearing it may scrape."""
    if not scrape_allowed(state.settings.metrics_token.get_secret_value(), authorization):
        raise Unauthorized(
            "This endpoint needs the metrics scrape token.",
            headers={"WWW-Authenticate": 'Bearer realm="membrane-metrics"'},
        )


@router.get(
    "/metrics",
    operation_id="prometheusMetrics",
    response_class=PlainTextResponse,
    response_model=str,
    responses=error_responses(401),
    dependencies=[Depends(scraper)],
    summary="Prometheus exposition: requests, records by type, jobs, embedding queue",
    description="Counts records of every sensitivity and scope (never their content): set "
    "MEMBRANE_METRICS_TOKEN to require `Authorization: Bearer <token>` of the scraper.",
)
async def prometheus(state: StateDep) -> PlainTextResponse:
    """Read on the primary or any replica: a scraper sends no consistency token."""

    def exposition(session: Session) -> str:
        pending = state.embedding_status().pending
        return prometheus_text(session, state.db.tier, pending, state.db.router)

    body = await reading(state, None, exposition)
    return PlainTextResponse(body, media_type=CONTENT_TYPE)
