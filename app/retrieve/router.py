"""Ranked retrieval and graph retrieval."""

from __future__ import annotations

from fastapi import APIRouter
from sqlalchemy.orm import Session

from app.deps import ReadingDep
from app.errors import error_responses
from app.request_work import on_request_thread, reading
from app.retrieve.candidates import start_query_embedding
from app.retrieve.graph_service import GraphService
from app.retrieve.schemas import GraphRequest, GraphResponse, RetrieveRequest, RetrieveResponse
from app.retrieve.service import RetrieveService
from app.salience.service import reinforce_on_access
from app.state import AppState

router = APIRouter(tags=["retrieve"])
ERRORS = error_responses(401, 403, 413, 422, 429)


def _service(state: AppState, session: Session) -> RetrieveService:
    return RetrieveService(session, state.settings.ranking, state.active_embedder(), state.db.tier)


def _embed_early(state: AppState, body: RetrieveRequest) -> None:
    """Start embedding the query now, before the request waits for the thread pool and
    its transaction: the service collects the same embedding (query_cache)."""
    start_query_embedding(state.active_embedder(), state.db.tier, body.query)


@router.post(
    "/v1/retrieve",
    operation_id="retrieve",
    response_model=RetrieveResponse,
    responses=ERRORS,
    summary="Ranked retrieval: fused relevance blended with salience, trust-filtered",
)
async def retrieve(body: RetrieveRequest, ctx: ReadingDep) -> RetrieveResponse:
    state, trust = ctx.state, ctx.trust
    _embed_early(state, body)
    answer = await reading(
        state, ctx.position, lambda session: _service(state, session).retrieve(body, trust)
    )
    if state.settings.policy.reinforce_on_access:  # a write of its own, after the read
        read = [i.record.id for i in answer.items if not i.record.redacted]
        policy, actor = state.settings.policy, trust.actor_id
        await on_request_thread(state, lambda: reinforce_on_access(state.db, policy, read, actor))
    return answer


@router.post(
    "/v1/retrieve/graph",
    operation_id="retrieveGraph",
    response_model=GraphResponse,
    responses=ERRORS,
    summary="Ranked roots plus a bounded, trust-checked neighbourhood over relations",
)
async def retrieve_graph(body: GraphRequest, ctx: ReadingDep) -> GraphResponse:
    state, trust = ctx.state, ctx.trust
    _embed_early(state, body)
    return await reading(
        state,
        ctx.position,
        lambda session: GraphService(_service(state, session)).neighbourhood(body, trust),
    )
