"""GET /v1/export and POST /v1/import (admin): the whole memory, or a slice of it, as
NDJSON, and back."""

from __future__ import annotations

import itertools
import tempfile
from datetime import datetime
from typing import IO, Annotated

import anyio
from fastapi import APIRouter, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import RootModel, ValidationError

from app.deps import Admin, ConsistencyDep, NarrowingDep, StateDep
from app.enums import MemoryType
from app.errors import DomainError, error_responses, problem_response
from app.schema_base import Scope
from app.security import trust_for
from app.transfer import service
from app.transfer.schemas import MEDIA_TYPE, AnyLine, ExportFilters, ImportReport
from app.transfer.validate import ImportRejected

router = APIRouter(prefix="/v1", tags=["transfer"])
SPOOL_IN_MEMORY = 8 * 1024 * 1024  # larger bodies go to a temporary file


class ExportLine(RootModel[AnyLine]):
    """One line of an export file (NDJSON: one such JSON object per line)."""


class NDJSONResponse(StreamingResponse):
    media_type = MEDIA_TYPE


class ImportTooLarge(DomainError):
    status, slug, title = 413, "payload-too-large", "Payload too large"


FILE_SCHEMA = {"type": "string", "format": "binary"}
IMPORT_BODY: dict[str, object] = {
    "requestBody": {
        "required": True,
        "description": "An export file (GET /v1/export): NDJSON, one line per header, "
        "record, relation, provenance row, entity term, audit entry or vector, then the end "
        "line. May be streamed (chunked); it is kept in a temporary file, not in memory.",
        "content": {
            MEDIA_TYPE: {"schema": FILE_SCHEMA},
            "application/octet-stream": {"schema": FILE_SCHEMA},
        },
    }
}
EXPORT_OK: dict[int | str, dict[str, object]] = {
    200: {
        "model": ExportLine,
        "description": "NDJSON: the header line, then per page of records (oldest first) "
        "the records, their provenance rows, entity terms, outgoing edges, audit entries "
        "and (include_embeddings) vectors; with no filter, the trails of deleted records; "
        "last, the end line with the count of each kind. A file without its end line was "
        "cut short (POST /v1/import refuses it).",
    }
}


@router.get(
    "/export",
    operation_id="exportMemory",
    response_class=NDJSONResponse,
    responses={**EXPORT_OK, **error_responses(401, 403, 422, 429)},
    summary="Admin: stream records with their edges, provenance, audit and vectors as NDJSON",
)
def export_memory(
    state: StateDep,
    principal: Admin,
    narrowing: NarrowingDep,
    position: ConsistencyDep,
    scope: Annotated[list[Scope] | None, Query(max_length=100)] = None,
    type: Annotated[list[MemoryType] | None, Query()] = None,
    created_after: datetime | None = None,
    created_before: datetime | None = None,
    include_embeddings: bool = False,
) -> NDJSONResponse:
    try:  # a type named twice counts once (there are six; repeating one is no error)
        filters = ExportFilters(
            scopes=list(dict.fromkeys(scope or [])),
            types=list(dict.fromkeys(type or [])),
            created_after=created_after,
            created_before=created_before,
            include_embeddings=include_embeddings,
        )
    except ValidationError as exc:  # anything else the filters refuse is the query's fault
        raise RequestValidationError(
            [{**e, "loc": ("query", *e["loc"])} for e in exc.errors(include_url=False)]
        ) from None
    lines = service.export_lines(state.db, filters, trust_for(principal, narrowing), position)
    header = next(lines)  # the first read runs now: a database error is still an answer
    stamp = datetime.now().strftime("%Y%m%dT%H%M%S")
    disposition = f'attachment; filename="membrane-export-{stamp}.ndjson"'
    return NDJSONResponse(
        itertools.chain([header], lines), headers={"Content-Disposition": disposition}
    )


@router.post(
    "/import",
    operation_id="importMemory",
    response_model=ImportReport,
    responses=error_responses(401, 403, 413, 422, 429),
    openapi_extra=IMPORT_BODY,
    summary="Admin: load an export file, keeping ids, timestamps, salience and audit",
    description="Every line is checked first; if any is bad (invalid JSON, unknown kind, "
    "schema violation, a reference to a record neither in the file nor in the store, a "
    "record outside your trust, a missing end line) nothing is written and the answer is "
    "422 with every bad line's number in `errors[]`. Otherwise rows are written in batched "
    "transactions. Rows already present are skipped, so a second import of the same file "
    "changes nothing. Vectors of the store's own embedding model are kept; other records "
    "are queued for the embedding worker.",
)
async def import_memory(
    request: Request, state: StateDep, principal: Admin, narrowing: NarrowingDep
) -> ImportReport | JSONResponse:
    spool = await _spool(request, state.settings.limits.max_import_bytes)
    trust = trust_for(principal, narrowing)
    try:
        return await anyio.to_thread.run_sync(
            service.import_file, state.db, spool, trust, state.active_embedder()
        )
    except ImportRejected as exc:
        errors = [
            {"loc": ["line", e.line], "line": e.line, "msg": e.msg, "type": e.type}
            for e in exc.errors
        ]
        return problem_response(
            422,
            exc.detail,
            slug=exc.slug,
            title=exc.title,
            instance=request.url.path,
            errors=errors,
        )
    finally:
        spool.close()


async def _spool(request: Request, limit: int) -> IO[bytes]:
    """The request body in a temporary file (memory up to SPOOL_IN_MEMORY, then disk)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise ImportTooLarge(f"The import body exceeds {limit} bytes.")
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise ImportTooLarge(f"The import body exceeds {limit} bytes.")
            spool.write(chunk)
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    return spool
