"""The domain metrics snapshot."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from app.schema_base import OutModel


class HistogramBucket(OutModel):
    lower: float
    upper: float
    count: int


class MetricsSnapshot(OutModel):
    """Aggregates over the records the caller can see (SQL aggregates, no record loading)."""

    total: int
    by_type: dict[str, int]
    avg_salience: float | None = Field(description="Mean current (decayed) salience.")
    avg_confidence: float | None
    salience_histogram: list[HistogramBucket] = Field(description="Ten buckets of width 0.1.")
    active: int
    pinned: int
    audit_entries: int = Field(description="Entries in the audit log (all records).")
    memory_growth_rate: float = Field(description="Records created in the last 24 hours, per hour.")
    retrieval_usefulness: float | None = Field(
        description="Reinforcements / (reinforcements + penalties) over the last 30 days."
    )
    competence_success_rate: float | None = Field(
        description="Successes / executions summed over competence records."
    )
    plan_reuse_frequency: float | None = Field(description="Mean execution count of plan graphs.")
    revision_rate: float | None = Field(
        description="Share of records that are superseded, retracted or contested."
    )
    computed_at: datetime
