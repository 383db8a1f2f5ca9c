"""Requests and results of the revision endpoints: supersede, fork, retract, contest,
merge."""

from __future__ import annotations

from pydantic import Field, field_validator

from app.records.schemas import MemoryRecordOut, RecordCreate
from app.schema_base import OutModel, RequiredRationale, ShortText, StrictModel


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


# -- metrics ------------------------------------------------------------------------------
