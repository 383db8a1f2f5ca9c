"""POST /v1/forget: delete every record a filter names, in one call."""

from __future__ import annotations

from enum import Enum

from fastapi import APIRouter

from app.enums import Role
from app.errors import error_responses
from app.forget.schemas import ForgetRequest, ForgetResult
from app.forget.service import ForgetService
from app.idempotency.http import KeyedWriteDep

router = APIRouter(prefix="/v1")
TAGS: list[str | Enum] = ["records"]


@router.post(
    "/forget",
    tags=TAGS,
    operation_id="forgetRecords",
    response_model=ForgetResult,
    responses=error_responses(401, 403, 413, 422, 429),
    summary="Forget every record a filter names (a scope, types, tags, times, an entity)",
    description=(
        "Deletes every matching record the caller may write, with its edges in both "
        "directions, vectors, tags, provenance, entity names and queue entries, one "
        "transaction per page of records, and answers the counts. `scope` is required "
        "unless the caller is an admin; a scope outside the caller's answers 403 and "
        "deletes nothing. Records above the caller's ceiling or outside its scopes are "
        "neither deleted nor counted; records with deletion policy `never` stay (`kept`). "
        "Each deleted record's audit trail ends with a `delete` entry, as for a single "
        "delete; with `erase: true` its entries keep only ids, actions, actors and times. "
        "`dry_run: true` answers the counts and changes nothing."
    ),
)
def forget(
    body: ForgetRequest,
    write: KeyedWriteDep,
) -> ForgetResult:
    state, principal, trust, key = write.state, write.principal, write.trust, write.key
    admin = principal.has(Role.admin)
    return ForgetService(state.db).forget(body, trust, admin=admin, key=key)
