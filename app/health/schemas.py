"""Liveness, readiness and embedding-queue status."""

from __future__ import annotations

from pydantic import BaseModel


class Health(BaseModel):
    status: str


class EmbeddingStatus(BaseModel):
    provider: str
    model: str | None
    pending: int


class Readiness(BaseModel):
    status: str
    database: str
    dialect: str
    tier: int
    tier_name: str
    open_mode: bool
    embedding: EmbeddingStatus
