"""Requests and responses of lifecycle, revision, jobs and metrics endpoints."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import Field, field_validator

from app.schema_base import OutModel, ShortText, StrictModel, Text
from app.records.schemas import MemoryRecordOut, RecordCreate

Rationale = Text
RequiredRationale = ShortText

# -- salience and lifecycle ---------------------------------------------------------------


class ReinforceRequest(StrictModel):
    rationale: Rationale | None = Field(default=None, examples=["Used in a successful answer"])


class PenalizeRequest(StrictModel):
    amount: float = Field(gt=0.0, le=1.0, examples=[0.2])
    rationale: Rationale | None = Field(default=None, examples=["Led the agent astray"])


class PinRequest(StrictModel):
    rationale: Rationale | None = None


class RecordDeleted(OutModel):
    """The record is gone; its audit trail (ending with a `delete` entry) remains."""

    id: str
    deleted: bool = True
    deleted_at: datetime


# -- revision -----------------------------------------------------------------------------


class SupersedeRequest(StrictModel):
    new_record: RecordCreate
    rationale: RequiredRationale = Field(examples=["The deadline moved to Friday"])


class ForkRequest(StrictModel):
    forked_record: RecordCreate
    rationale: RequiredRationale


class RetractRequest(StrictModel):
    rationale: RequiredRationale = Field(examples=["The source was wrong"])


class ContestRequest(StrictModel):
    contesting_ref: ShortText = Field(
        description="A record id (UUID; must be a record you can read) or any external "
        "reference such as a URL or ticket id.",
        examples=["https://tracker.example/ISSUE-42"],
    )
    rationale: RequiredRationale


class MergeRequest(StrictModel):
    ids: list[ShortText] = Field(min_length=2, max_length=100)
    merged_record: RecordCreate
    rationale: RequiredRationale

    @field_validator("ids")
    @classmethod
    def _distinct(cls, ids: list[str]) -> list[str]:
        if len(set(ids)) != len(ids):
            raise ValueError("ids must be distinct")
        return ids


class SupersedeResult(OutModel):
    old_record: MemoryRecordOut
    new_record: MemoryRecordOut


class ForkResult(OutModel):
    source_record: MemoryRecordOut
    forked_record: MemoryRecordOut


class RetractResult(OutModel):
    record: MemoryRecordOut


class ContestResult(OutModel):
    record: MemoryRecordOut
    contesting_ref: str
    contesting_is_record: bool


class MergeResult(OutModel):
    merged_record: MemoryRecordOut
    source_records: list[MemoryRecordOut]


# -- jobs ---------------------------------------------------------------------------------


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
    counts: dict[str, Any]
    error: str | None


class JobRunPage(OutModel):
    items: list[JobRunOut]


# -- metrics ------------------------------------------------------------------------------


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
