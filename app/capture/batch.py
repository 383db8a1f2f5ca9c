"""Batch capture: many captures in one request and one transaction.

Each item is validated and captured on its own, so a refused item (invalid, forbidden,
inconsistent) leaves nothing of itself and the others go on. Items only stage their rows
(a capture reads the database but writes nothing until the end); a refused item's staged
rows are dropped, and the accepted items' rows are written together at the end of the
batch — one multi-row INSERT per table instead of a savepoint and three flushes per item —
and commit with the request. A working-state item, which may retire earlier snapshots
with an UPDATE, still runs in its own SAVEPOINT. A 200 answer means every item marked 201
is stored; if the final write or the commit fails, nothing of the batch is stored and the
request fails as a whole, so a client retries the batch, never a guessed subset."""

from __future__ import annotations

from pydantic import TypeAdapter, ValidationError

from app.capture.classifier import classify
from app.capture.schemas import (
    CaptureBatchItem,
    CaptureBatchResponse,
    CaptureRequest,
)
from app.capture.service import CaptureResult, CaptureService
from app.enums import MemoryType
from app.errors import PROBLEM_BASE, DomainError, Problem
from app.trust import TrustContext

_ITEM = TypeAdapter(CaptureRequest)


def capture_batch(
    service: CaptureService, items: list[dict[str, object]], trust: TrustContext
) -> CaptureBatchResponse:
    parsed = [_parse(i, raw) for i, raw in enumerate(items)]
    requests = [p for p in parsed if isinstance(p, CaptureRequest)]
    service.lock_entities(requests)
    service.questions.prefetch(_episode_scopes(requests))
    outcomes: list[CaptureResult | CaptureBatchItem] = []
    for i, p in enumerate(parsed):
        outcomes.append(_capture_item(service, i, p, trust))
        service.send_staged()
    service.write_staged(wait=False)  # the answer is built while PostgreSQL inserts
    results = [
        CaptureBatchItem(index=i, status=201, result=service.describe(o))
        if isinstance(o, CaptureResult)
        else o
        for i, o in enumerate(outcomes)
    ]
    created = sum(1 for r in results if r.result is not None)
    return CaptureBatchResponse(results=results, created=created, failed=len(results) - created)


def _parse(index: int, raw: dict[str, object]) -> CaptureRequest | CaptureBatchItem:
    """The item's capture request, or its 422 answer (each validated as /v1/capture)."""
    try:
        return _ITEM.validate_python(raw)
    except ValidationError as exc:
        return CaptureBatchItem(index=index, status=422, problem=_invalid(index, exc))


def _capture_item(
    service: CaptureService,
    index: int,
    request: CaptureRequest | CaptureBatchItem,
    trust: TrustContext,
) -> CaptureResult | CaptureBatchItem:
    if isinstance(request, CaptureBatchItem):
        return request
    savepoint = _may_update(request)
    if savepoint:
        service.write_staged()  # the savepoint then holds this item alone
    # After that write: a refused item's staged rows are those gathered since the mark.
    mark = service.mark()
    try:
        if savepoint:
            with service.session.begin_nested():
                result = service.capture(request, trust)
                service.write_staged()
            return result
        return service.capture(request, trust)
    except DomainError as exc:
        service.forget_since(mark)
        problem = Problem(
            type=PROBLEM_BASE + exc.slug,
            title=exc.title,
            status=exc.status,
            detail=f"items[{index}]: {exc.detail}",
        )
        return CaptureBatchItem(index=index, status=exc.status, problem=problem)


def _episode_scopes(requests: list[CaptureRequest]) -> list[str]:
    """The scopes the batch captures episodes into, whose latest stored episodes the
    replies among them may answer (looked up at once: app/capture/replies.py)."""
    scopes = {
        r.scope
        for r in requests
        if r.scope is not None
        and classify(r.source_kind, r.proposed_type).memory_type is MemoryType.episodic
    }
    return sorted(scopes)


def _may_update(request: CaptureRequest) -> bool:
    """A working-state capture may retire its thread's earlier snapshots (an UPDATE that
    cannot be taken back by dropping staged rows)."""
    return classify(request.source_kind, request.proposed_type).memory_type is MemoryType.working


def _invalid(index: int, exc: ValidationError) -> Problem:
    errors = [
        {
            "loc": ["items", str(index), *(str(p) for p in err.get("loc", ()))],
            "msg": str(err.get("msg", "")),
            "type": str(err.get("type", "")),
        }
        for err in exc.errors()
    ]
    first = errors[0]
    return Problem(
        type=PROBLEM_BASE + "validation-error",
        title="Request validation failed",
        status=422,
        detail=f"{'.'.join(first['loc'])}: {first['msg']}",
        errors=errors,
    )
