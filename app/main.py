"""The FastAPI application: wiring only."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app.capture.router import router as capture_router
from app.config import Settings, get_settings
from app.embedding.router import router as embedding_router
from app.embedding.runtime import EmbeddingRuntime
from app.errors import Problem, install_handlers
from app.health.router import router as health_router
from app.jobs.router import router as jobs_router
from app.jobs.scheduler import start_scheduler
from app.metrics.middleware import RequestMetricsMiddleware
from app.metrics.router import router as metrics_router
from app.middleware import BodyLimitMiddleware, RateLimitMiddleware, TokenBuckets
from app.records.router import router as records_router
from app.retrieve.router import router as retrieve_router
from app.revise.router import router as revise_router
from app.salience.router import router as reinforce_router
from app.state import AppState

log = logging.getLogger("membrane")

DESCRIPTION = """Selective learning and memory substrate for AI agents.

Authenticate with `Authorization: Bearer <key>`. Errors are RFC 9457
`application/problem+json`. A request can narrow (never widen) its trust with the
`X-Membrane-Max-Sensitivity` and `X-Membrane-Scopes` headers."""


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    state = AppState.build(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        log.info(
            "membrane ready: tier %d (%s), %s mode",
            state.db.tier,
            state.db.tier.name,
            "open" if state.keys.open_mode else "authenticated",
        )
        state.embedding = EmbeddingRuntime.start(state.db, settings.embedding)
        state.scheduler = start_scheduler(state.db, settings)
        try:
            yield
        finally:
            if state.scheduler is not None:
                state.scheduler.shutdown(wait=True)  # let a running sweep finish its batch
                state.scheduler = None
            state.embedding.stop()
            state.embedding = None
            state.db.dispose()

    app = FastAPI(
        title="Membrane",
        version="0.1.0",
        description=DESCRIPTION,
        lifespan=lifespan,
    )
    app.state.membrane = state
    install_handlers(app)
    for router in (
        health_router,
        capture_router,
        records_router,
        reinforce_router,
        revise_router,
        retrieve_router,
        embedding_router,
        jobs_router,
        metrics_router,
    ):
        app.include_router(router)
    if settings.rate_limit.enabled:
        buckets = TokenBuckets(settings.rate_limit.requests_per_second, settings.rate_limit.burst)
        app.add_middleware(RateLimitMiddleware, buckets=buckets)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.limits.max_body_bytes)
    app.add_middleware(RequestMetricsMiddleware)
    _register_problem_schema(app)
    return app


def _register_problem_schema(app: FastAPI) -> None:
    """Make sure `Problem` is a named component even before any route references it."""
    original = app.openapi

    def openapi() -> dict[str, object]:
        schema = original()
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        components.setdefault("Problem", Problem.model_json_schema())
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


app = create_app()
