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
    """Aggregates over the records the caller can see (SQL aggregates, no record loading).
    The original's snapshot fields carry its names and formulas (RFC 15.10); this
    service's earlier variants stay under their own names (docs/differences.md)."""

    total_records: int
    records_by_type: dict[str, int]
    avg_salience: float | None = Field(description="Mean current (decayed) salience.")
    avg_confidence: float | None
    salience_distribution: dict[str, int] = Field(
        description="The original's five buckets: 0.0-0.2, 0.2-0.4, 0.4-0.6, 0.6-0.8, 0.8-1.0."
    )
    active_records: int = Field(description="Records with current salience > 0.")
    pinned_records: int
    total_audit_entries: int = Field(description="Entries in the audit log (all records).")
    memory_growth_rate: float = Field(
        description="Fraction of records created in the last 24 hours (0 with no records)."
    )
    retrieval_usefulness: float | None = Field(description="Reinforce actions / all audit entries.")
    competence_success_rate: float | None = Field(
        description="Successes / executions summed over competence records."
    )
    plan_reuse_frequency: float | None = Field(description="Mean execution count of plan graphs.")
    revision_rate: float | None = Field(
        description="Revision actions (supersede, retract, contest, fork, merge: the "
        "original's revise, fork, merge) / all audit entries."
    )
    computed_at: datetime
    total: int = Field(description="As total_records.")
    by_type: dict[str, int] = Field(description="As records_by_type.")
    salience_histogram: list[HistogramBucket] = Field(description="Ten buckets of width 0.1.")
    active: int = Field(description="Records whose status is active.")
    pinned: int = Field(description="As pinned_records.")
    audit_entries: int = Field(description="As total_audit_entries.")
    records_per_hour_24h: float = Field(
        description="Records created in the last 24 hours, per hour (earlier memory_growth_rate)."
    )
    feedback_usefulness_30d: float | None = Field(
        description="Reinforcements / (reinforcements + penalties) over the last 30 days "
        "(earlier retrieval_usefulness)."
    )
    revised_record_share: float | None = Field(
        description="Share of records that are superseded, retracted or contested "
        "(earlier revision_rate)."
    )
