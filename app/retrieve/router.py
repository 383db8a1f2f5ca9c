"""Ranked retrieval, graph retrieval and the embedding backfill trigger."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import Field
from sqlalchemy.orm import Session

from app.deps import Admin, AppState, ReadTrust, SessionDep, StateDep
from app.embedding.backfill import requeue_in
from app.embedding.runtime import active_embedder
from app.errors import Conflict, error_responses
from app.retrieve.graph_service import GraphService
from app.retrieve.service import RetrieveService
from app.schema_base import OutModel
from app.retrieve.schemas import GraphRequest, GraphResponse, RetrieveRequest, RetrieveResponse

router = APIRouter(tags=["retrieve"])
ERRORS = error_responses(401, 403, 413, 422, 429)


class BackfillOut(OutModel):
    model: str
    queued: int = Field(description="Records queued for the embedding worker.")


def _service(state: AppState, session: Session) -> RetrieveService:
    return RetrieveService(session, state.settings.ranking, active_embedder(state), state.db.tier)


@router.post(
    "/v1/retrieve",
    operation_id="retrieve",
    response_model=RetrieveResponse,
    responses=ERRORS,
    summary="Ranked retrieval: fused relevance blended with salience, trust-filtered",
)
def retrieve(
    body: RetrieveRequest, state: StateDep, session: SessionDep, trust: ReadTrust
) -> RetrieveResponse:
    return _service(state, session).retrieve(body, trust)


@router.post(
    "/v1/retrieve/graph",
    operation_id="retrieveGraph",
    response_model=GraphResponse,
    responses=ERRORS,
    summary="Ranked roots plus a bounded, trust-checked neighbourhood over relations",
)
def retrieve_graph(
    body: GraphRequest, state: StateDep, session: SessionDep, trust: ReadTrust
) -> GraphResponse:
    return GraphService(_service(state, session)).neighbourhood(body, trust)


@router.post(
    "/v1/embeddings/backfill",
    operation_id="backfillEmbeddings",
    response_model=BackfillOut,
    responses=error_responses(401, 403, 409, 422, 429),
    summary="Admin: queue every record lacking a vector of the active model",
)
def backfill(state: StateDep, session: SessionDep, _admin: Admin) -> BackfillOut:
    embedder = active_embedder(state)
    if embedder is None:
        raise Conflict("No embedding provider is active (provider 'none' or no pgvector).")
    return BackfillOut(model=embedder.name, queued=requeue_in(session, embedder.name))
