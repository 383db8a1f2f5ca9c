"""Requests and results of the revision endpoints: supersede, fork, retract, contest,
merge."""

from __future__ import annotations

from pydantic import ConfigDict, Field, field_validator
from pydantic.config import JsonDict

from app.records.schemas import MemoryRecordOut, RecordCreate
from app.schema_base import OutModel, RequiredRationale, ShortText, StrictModel

NEW_RECORD_RULES = (
    "Must be of the target's type (of every source's, for a merge). A semantic record "
    "needs evidence: a non-empty `payload.evidence` or `provenance.sources` (else 422). "
    "Scope and sensitivity default to the target's (the highest sensitivity of the sources)."
)


def needs_evidence(field: str) -> ConfigDict:
    """The evidence rule as JSON Schema (2020-12 `if`/`then`, which OpenAPI 3.1 carries):
    when `field`'s payload is semantic, its `payload.evidence` or its
    `provenance.sources` has an item."""
    semantic: JsonDict = {"properties": {"kind": {"const": "semantic"}}, "required": ["kind"]}
    evidence: JsonDict = {
        "properties": {
            "payload": {"properties": {"evidence": {"minItems": 1}}, "required": ["evidence"]}
        },
        "required": ["payload"],
    }
    sources: JsonDict = {
        "properties": {
            "provenance": {"properties": {"sources": {"minItems": 1}}, "required": ["sources"]}
        },
        "required": ["provenance"],
    }
    rule: JsonDict = {
        "if": {
            "properties": {field: {"properties": {"payload": semantic}, "required": ["payload"]}},
            "required": [field],
        },
        "then": {"properties": {field: {"anyOf": [evidence, sources]}}},
    }
    return ConfigDict(json_schema_extra=rule)


class SupersedeRequest(StrictModel):
    model_config = needs_evidence("new_record")

    new_record: RecordCreate = Field(description=NEW_RECORD_RULES)
    rationale: RequiredRationale = Field(examples=["The deadline moved to Friday"])


class ForkRequest(StrictModel):
    model_config = needs_evidence("forked_record")

    forked_record: RecordCreate = Field(description=NEW_RECORD_RULES)
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
    model_config = needs_evidence("merged_record")

    ids: list[ShortText] = Field(
        min_length=2,
        max_length=100,
        json_schema_extra={"uniqueItems": True},
        description="The records to merge, distinct, all of one type (not episodic).",
    )
    merged_record: RecordCreate = Field(description=NEW_RECORD_RULES)
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
