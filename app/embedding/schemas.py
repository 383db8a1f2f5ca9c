"""Embedding status (readiness) and the backfill answer."""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.schema_base import OutModel


class EmbeddingStatus(BaseModel):
    provider: str
    model: str | None
    pending: int


class BackfillOut(OutModel):
    model: str
    queued: int = Field(description="Records queued for the embedding worker.")
