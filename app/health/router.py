"""Liveness and readiness."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.deps import StateDep
from app.health.schemas import Health, Readiness

router = APIRouter(tags=["health"])


@router.get("/healthz", operation_id="healthz", summary="Liveness", response_model=Health)
async def healthz() -> Health:
    # async: no I/O to wait for, so no trip to the thread pool (a plain `def` endpoint
    # with a response model makes two: one to run it, one to validate its answer).
    return Health(status="ok")


@router.get(
    "/readyz",
    operation_id="readyz",
    summary="Readiness: database, tier and embedding queue",
    response_model=Readiness,
    responses={503: {"model": Readiness, "description": "Database unreachable"}},
)
def readyz(state: StateDep) -> Any:
    ok = state.db.ping()
    status = state.embedding_status()
    body = Readiness(
        status="ready" if ok else "unavailable",
        database="reachable" if ok else "unreachable",
        dialect=state.db.dialect,
        tier=int(state.db.tier) if ok else 0,
        tier_name=state.db.tier.name if ok else "unknown",
        open_mode=state.keys.open_mode,
        embedding=status,
        replicas=state.db.router.describe() if state.db.router is not None else [],
    )
    return JSONResponse(body.model_dump(), status_code=200 if ok else 503)
