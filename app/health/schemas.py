"""Liveness and readiness."""

from __future__ import annotations

from pydantic import BaseModel

from app.embedding.schemas import EmbeddingStatus


class Health(BaseModel):
    status: str


class Readiness(BaseModel):
    status: str
    database: str
    dialect: str
    tier: int
    tier_name: str
    open_mode: bool
    embedding: EmbeddingStatus
