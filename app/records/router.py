"""Typed record creation, trust-gated reads, and deletion."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated

from fastapi import APIRouter, Query, Request, status
from sqlalchemy.orm import Session

from app import clock
from app.deps import ReadingDep, WritingDep
from app.enums import MemoryType, Sensitivity, Status
from app.errors import error_responses
from app.idempotency.http import KeyedWriteDep, writing_once
from app.records.filters import RecordFilter
from app.records.schemas import (
    AuditPage,
    MemoryRecordOut,
    RecordCreate,
    RecordDeleted,
    RecordPage,
    RelationsOut,
)
from app.records.service import RecordService
from app.request_work import reading, writing
from app.schema_base import MAX_QUERY_TEXT, Scope, Tag

# Tags per route: the revision and salience routers share the prefix under their own tags.
router = APIRouter(prefix="/v1/records")
TAGS: list[str | Enum] = ["records"]
READ_ERRORS = error_responses(401, 403, 404, 422, 429)


@router.post(
    "",
    tags=TAGS,
    operation_id="createRecord",
    status_code=status.HTTP_201_CREATED,
    response_model=MemoryRecordOut,
    responses=error_responses(401, 403, 413, 422, 429),
    summary="Create a typed record of any type",
)
async def create_record(
    body: RecordCreate,
    request: Request,
    write: KeyedWriteDep,
) -> MemoryRecordOut:
    state, trust, key = write.state, write.trust, write.key

    def create(session: Session) -> MemoryRecordOut:
        service = RecordService(session, state.policy)
        return service.view(service.create(body, trust), trust)

    return await writing_once(state, request, key, 201, create)


@router.get(
    "",
    tags=TAGS,
    operation_id="listRecords",
    response_model=RecordPage,
    responses=error_responses(400, 401, 403, 422, 429),
    summary="List records, newest first, with cursor pagination",
)
async def list_records(
    ctx: ReadingDep,
    type: Annotated[list[MemoryType] | None, Query()] = None,
    scope: Annotated[list[Scope] | None, Query(max_length=100)] = None,
    tag: Annotated[
        list[Tag] | None,
        Query(max_length=100, description="Records carrying ALL these tags."),
    ] = None,
    sensitivity: Annotated[list[Sensitivity] | None, Query()] = None,
    record_status: Annotated[list[Status] | None, Query(alias="status")] = None,
    min_salience: Annotated[float | None, Query(ge=0.0, le=1.0)] = None,
    max_salience: Annotated[float | None, Query(ge=0.0, le=1.0)] = None,
    created_after: datetime | None = None,
    created_before: datetime | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: Annotated[str | None, Query(max_length=1024)] = None,
) -> RecordPage:
    flt = RecordFilter(
        types=[t.value for t in type or []],
        scopes=scope or [],
        tags_all=tag or [],
        sensitivities=[s.rank for s in sensitivity or []],
        statuses=[s.value for s in record_status or []],
        min_salience=min_salience,
        max_salience=max_salience,
        created_after=clock.to_epoch(created_after) if created_after else None,
        created_before=clock.to_epoch(created_before) if created_before else None,
    )
    policy = ctx.state.policy
    return await reading(
        ctx.state,
        ctx.position,
        lambda s: RecordService(s, policy).list_page(flt, ctx.trust, limit=limit, cursor=cursor),
    )


@router.get(
    "/{record_id}",
    tags=TAGS,
    operation_id="getRecord",
    response_model=MemoryRecordOut,
    responses=READ_ERRORS,
    summary="Read one record with its relations and audit trail",
)
async def get_record(record_id: str, ctx: ReadingDep) -> MemoryRecordOut:
    policy, trust = ctx.state.policy, ctx.trust
    return await reading(
        ctx.state, ctx.position, lambda s: RecordService(s, policy).read(record_id, trust)
    )


@router.get(
    "/{record_id}/audit",
    tags=TAGS,
    operation_id="getRecordAudit",
    response_model=AuditPage,
    responses=READ_ERRORS,
    summary="The append-only history of a record",
)
async def get_audit(record_id: str, ctx: ReadingDep) -> AuditPage:
    policy, trust = ctx.state.policy, ctx.trust
    return await reading(
        ctx.state, ctx.position, lambda s: RecordService(s, policy).audit(record_id, trust)
    )


@router.get(
    "/{record_id}/relations",
    tags=TAGS,
    operation_id="getRecordRelations",
    response_model=RelationsOut,
    responses=READ_ERRORS,
    summary="Edges of a record in both directions",
)
async def get_relations(record_id: str, ctx: ReadingDep) -> RelationsOut:
    policy, trust = ctx.state.policy, ctx.trust
    return await reading(
        ctx.state, ctx.position, lambda s: RecordService(s, policy).relations(record_id, trust)
    )


@router.delete(
    "/{record_id}",
    tags=TAGS,
    operation_id="deleteRecord",
    response_model=RecordDeleted,
    responses=error_responses(401, 403, 404, 409, 422, 429),
    summary="Delete a record (refused with 409 when its deletion policy is 'never')",
)
async def delete_record(
    record_id: str,
    request: Request,
    write: WritingDep,
    rationale: Annotated[str | None, Query(max_length=MAX_QUERY_TEXT)] = None,
) -> RecordDeleted:
    state, trust = write.state, write.trust
    return await writing(
        state, request, lambda s: RecordService(s, state.policy).delete(record_id, trust, rationale)
    )
