"""POST /v1/forget: which records to forget, and what was (or would be) forgotten."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field, model_validator

from app.enums import MemoryType
from app.schema_base import OutModel, Scope, StrictModel, Tags, Text

RECORD_ID = r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"


class ForgetRequest(StrictModel):
    """Every record matching all the given conditions that the caller may write is
    deleted, with its edges (both directions), vectors, tags, provenance, entity names
    and queue entries."""

    scope: Scope | None = Field(
        default=None,
        description="The scope to forget in. Required unless the caller is an admin "
        "(an admin without a scope forgets across every scope it may write).",
    )
    types: list[MemoryType] = Field(
        default_factory=list, max_length=6, description="Only records of these types."
    )
    tags: Tags = Field(default_factory=list, description="Records carrying ALL these tags.")
    created_after: datetime | None = Field(default=None, description="Created at or after.")
    created_before: datetime | None = Field(default=None, description="Created before.")
    entity: str | None = Field(
        default=None,
        pattern=RECORD_ID,
        description="An entity record's id: that entity and every record that mentions it "
        "or has it as a fact's subject or object. An id that names no entity record the "
        "caller may read answers 422.",
    )
    erase: bool = Field(
        default=False,
        description="Also remove the records' content from the audit log (rationales and "
        "details; ids, actions, actors and times stay), from stored Idempotency-Key answers "
        "and from the search text other records borrowed from them.",
    )
    dry_run: bool = Field(default=False, description="Count only; change nothing.")
    rationale: Text | None = Field(
        default=None, description="Kept in each `delete` audit entry (not with erase)."
    )

    @model_validator(mode="after")
    def _window(self) -> ForgetRequest:
        after, before = self.created_after, self.created_before
        comparable = after and before and (after.tzinfo is None) == (before.tzinfo is None)
        if comparable and after and before and after >= before:
            raise ValueError("created_after must be before created_before")
        return self

    model_config = {
        "json_schema_extra": {
            "examples": [
                {"scope": "user:alice"},
                {"scope": "project:alpha", "types": ["episodic"], "erase": True},
                {"scope": "team-a", "tags": ["pii"], "dry_run": True},
            ]
        }
    }


class ForgetResult(OutModel):
    """What was forgotten (or, for a dry run, what would be)."""

    records: int = Field(description="Records deleted (or that a dry run would delete).")
    edges: int = Field(description="Edges removed with them, in either direction.")
    kept: int = Field(
        description="Matching records left in place: their deletion policy is `never`."
    )
    audit_entries_erased: int = Field(
        description="Audit entries whose rationale and details were erased (erase only)."
    )
    dry_run: bool
    erase: bool

    model_config = {
        "json_schema_extra": {
            "examples": [
                {
                    "records": 1204,
                    "edges": 3310,
                    "kept": 0,
                    "audit_entries_erased": 2411,
                    "dry_run": False,
                    "erase": True,
                }
            ]
        }
    }
