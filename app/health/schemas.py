"""Liveness and readiness."""

from __future__ import annotations

from pydantic import BaseModel

from app.embedding.schemas import EmbeddingStatus


class Health(BaseModel):
    status: str


class ReplicaStatus(BaseModel):
    """A read replica as its last check found it (app/replicas.py)."""

    name: str
    healthy: bool
    lag_s: float | None
    replayed: str | None
    reads: int
    error: str | None


class Readiness(BaseModel):
    status: str
    database: str
    dialect: str
    tier: int
    tier_name: str
    open_mode: bool
    embedding: EmbeddingStatus
    # Read replicas (MEMBRANE_DATABASE__READ_URLS); a down replica leaves the service
    # ready: its reads go to the primary.
    replicas: list[ReplicaStatus] = []
