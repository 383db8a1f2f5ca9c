"""The FastAPI application: wiring only."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import anyio
from fastapi import FastAPI

from app import docs, openapi
from app.capture.router import router as capture_router
from app.config import Settings, get_settings
from app.embedding.router import router as embedding_router
from app.embedding.runtime import EmbeddingRuntime
from app.errors import Problem, install_handlers
from app.forget.router import router as forget_router
from app.header_guard import HeaderGuardMiddleware
from app.health.router import router as health_router
from app.heap import startup_heap_frozen
from app.idempotency.http import replay_response
from app.idempotency.service import IdempotentReplay
from app.interpret.worker import InterpretationWorker
from app.jobs.router import router as jobs_router
from app.jobs.scheduler import start_scheduler
from app.mcp.http import McpEndpoint, McpLimits
from app.metrics.middleware import RequestMetricsMiddleware
from app.metrics.router import router as metrics_router
from app.middleware import (
    BodyLimitMiddleware,
    CapacityMiddleware,
    RateLimitMiddleware,
    TextGuardMiddleware,
    TokenBuckets,
)
from app.records.router import router as records_router
from app.request_context import RequestContextMiddleware, add_cors
from app.retrieve.router import router as retrieve_router
from app.revise.router import router as revise_router
from app.salience.router import router as reinforce_router
from app.state import AppState
from app.transfer.router import router as transfer_router
from app.ui.router import router as ui_router

log = logging.getLogger("membrane")

DESCRIPTION = """Selective learning and memory substrate for AI agents.

Authenticate with `Authorization: Bearer <key>`. Errors are RFC 9457
`application/problem+json`. A request can narrow (never widen) its trust with the
`X-Membrane-Max-Sensitivity` and `X-Membrane-Scopes` headers."""


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    state = AppState.build(settings)
    buckets = _rate_limit_buckets(settings)
    mcp = McpEndpoint(  # /mcp (app/mcp)
        state.keys,
        buckets,
        settings.limits.max_body_bytes,
        McpLimits(settings.capacity.mcp_max_in_flight, settings.capacity.mcp_max_per_principal),
    )
    app = FastAPI(
        title="Membrane",
        version="0.1.0",
        description=DESCRIPTION,
        lifespan=_lifespan(state, mcp),
        docs_url=None,  # app/docs.py serves /docs and /redoc without a CDN
        redoc_url=None,
    )
    app.state.membrane = state
    install_handlers(app)
    app.add_exception_handler(IdempotentReplay, replay_response)
    # Routes are matched in this order, each tried in turn: the two probes (called every
    # few seconds, and the baseline the latency bench compares with), then the operations
    # agents call on every step. Each router's routes join the app's own table instead of
    # being included: FastAPI 0.165 keeps an included router as a branch that matches a
    # request against its routes twice (to choose the branch, then the route), ~20k
    # instructions a route passed, ~0.2 M of a GET /v1/records/{id}. The routers put their
    # prefixes, tags and options on their routes when they are declared, so the table and
    # the OpenAPI document are the same either way.
    for router in (
        health_router,
        retrieve_router,
        capture_router,
        records_router,
        forget_router,
        reinforce_router,
        revise_router,
        embedding_router,
        jobs_router,
        metrics_router,
        transfer_router,
        ui_router,
    ):
        app.router.routes.extend(router.routes)
    app.router.routes.append(mcp.route())
    _add_middleware(app, state, buckets)
    openapi.install(app, Problem.model_json_schema())
    docs.install(app)
    return app


def _lifespan(
    state: AppState, mcp: McpEndpoint
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    settings = state.settings

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        base = settings.address()
        log.info(
            "membrane ready: tier %d (%s), %s mode, background %s; API %s/v1, docs %s/docs, "
            "memory browser %s/ui",
            state.db.tier,
            state.db.tier.name,
            "open" if state.keys.open_mode else "authenticated",
            settings.background,
            base,
            base,
            base,
        )
        # Sync endpoints run on anyio's thread pool: give every admitted request a thread.
        threads = anyio.to_thread.current_default_thread_limiter()
        threads.total_tokens = max(threads.total_tokens, settings.capacity.max_in_flight + 16)
        state.db.refresh_planner_stats()
        in_process = settings.background == "in_process"
        state.embedding = EmbeddingRuntime.start(state.db, settings.embedding, in_process)
        state.scheduler = start_scheduler(state.db, settings) if in_process else None
        state.interpretation = (
            InterpretationWorker.start(state.db, settings) if in_process else None
        )
        try:
            with startup_heap_frozen():
                async with mcp.running():
                    yield
        finally:
            if state.interpretation is not None:
                state.interpretation.stop()
                state.interpretation = None
            if state.scheduler is not None:
                state.scheduler.shutdown(wait=True)  # let a running sweep finish its batch
                state.scheduler = None
            state.embedding.stop()
            state.embedding = None
            state.db.dispose()

    return lifespan


def _rate_limit_buckets(settings: Settings) -> TokenBuckets | None:
    limit = settings.rate_limit
    return TokenBuckets(limit.requests_per_second, limit.burst) if limit.enabled else None


def _add_middleware(app: FastAPI, state: AppState, buckets: TokenBuckets | None) -> None:
    """Outermost first: request id + access log → CORS → request metrics → repeated
    headers → body limit → rate limit → load shedding → unstorable text (added in the
    reverse order)."""
    settings = state.settings
    cap = settings.capacity
    app.add_middleware(TextGuardMiddleware)
    app.add_middleware(
        CapacityMiddleware,
        max_in_flight=cap.max_in_flight,
        max_queued=cap.max_queued,
        queue_timeout_s=cap.queue_timeout_s,
        retry_after_s=cap.retry_after_s,
        max_retry_after_s=cap.max_retry_after_s,
        rebalance=cap.rebalance_connections,
    )
    if buckets is not None:  # shared with /mcp, which limits requests without a valid key
        app.add_middleware(RateLimitMiddleware, buckets=buckets, keys=state.keys)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.limits.max_body_bytes)
    app.add_middleware(HeaderGuardMiddleware)  # before anything reads a header
    app.add_middleware(RequestMetricsMiddleware)
    add_cors(app, settings.cors)  # outside the limits: their 413/429/503 carry CORS headers
    app.add_middleware(RequestContextMiddleware)  # outermost: every answer carries its id


app = create_app()
