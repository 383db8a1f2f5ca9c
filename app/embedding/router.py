"""Admin: queue records for the embedding worker after the provider changed."""

from __future__ import annotations

from fastapi import APIRouter, Request

from app.deps import Admin, StateDep
from app.embedding.schemas import BackfillOut
from app.embedding.service import requeue_for
from app.errors import error_responses
from app.request_work import writing

router = APIRouter(tags=["embeddings"])


@router.post(
    "/v1/embeddings/backfill",
    operation_id="backfillEmbeddings",
    response_model=BackfillOut,
    responses=error_responses(401, 403, 409, 422, 429),
    summary="Admin: queue every record lacking a vector of the active model",
)
async def backfill(request: Request, state: StateDep, _admin: Admin) -> BackfillOut:
    return await writing(state, request, lambda s: requeue_for(s, state.active_embedder()))
