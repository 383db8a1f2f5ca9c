"""Admin: queue records for the embedding worker after the provider changed."""

from __future__ import annotations

from fastapi import APIRouter

from app.deps import Admin, SessionDep, StateDep
from app.embedding.schemas import BackfillOut
from app.embedding.service import requeue_for
from app.errors import error_responses

router = APIRouter(tags=["embeddings"])


@router.post(
    "/v1/embeddings/backfill",
    operation_id="backfillEmbeddings",
    response_model=BackfillOut,
    responses=error_responses(401, 403, 409, 422, 429),
    summary="Admin: queue every record lacking a vector of the active model",
)
def backfill(state: StateDep, session: SessionDep, _admin: Admin) -> BackfillOut:
    return requeue_for(session, state.active_embedder())
