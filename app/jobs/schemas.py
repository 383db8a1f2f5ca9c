"""Job names, runs and their history page."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import Field

from app.schema_base import OutModel


class JobName(StrEnum):
    decay = "decay"
    consolidation = "consolidation"


class JobRunOut(OutModel):
    id: int
    job: str
    trigger: str = Field(description="`schedule` or `manual`.")
    status: str = Field(description="`running`, `succeeded` or `failed`.")
    started_at: datetime
    finished_at: datetime | None
    duration_s: float | None
    counts: dict[str, object]
    error: str | None


class JobRunPage(OutModel):
    items: list[JobRunOut]
