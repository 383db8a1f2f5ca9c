"""Batch capture: many captures in one request and one transaction.

Each item is validated on its own and captured inside its own SAVEPOINT, so a refused
item (invalid, forbidden, inconsistent) leaves nothing of itself and the others go on.
The accepted items commit together with the request: one commit instead of one per item
(the throughput a bulk writer needs), and a 200 answer means every item marked 201 is
stored. If that commit fails, nothing of the batch is stored and the request fails as a
whole, so a client retries the batch, never a guessed subset."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter, ValidationError

from app.capture.schemas import (
    CaptureBatchItem,
    CaptureBatchResponse,
    CaptureRequest,
)
from app.capture.service import CaptureService
from app.errors import PROBLEM_BASE, DomainError, Problem
from app.trust import TrustContext

_ITEM = TypeAdapter(CaptureRequest)


def capture_batch(
    service: CaptureService, items: list[dict[str, Any]], trust: TrustContext
) -> CaptureBatchResponse:
    parsed = [_parse(i, raw) for i, raw in enumerate(items)]
    service.lock_entities([p for p in parsed if isinstance(p, CaptureRequest)])
    results = [_capture_item(service, i, p, trust) for i, p in enumerate(parsed)]
    created = sum(1 for r in results if r.result is not None)
    return CaptureBatchResponse(results=results, created=created, failed=len(results) - created)


def _parse(index: int, raw: dict[str, Any]) -> CaptureRequest | CaptureBatchItem:
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
) -> CaptureBatchItem:
    if isinstance(request, CaptureBatchItem):
        return request
    try:
        with service.session.begin_nested():
            result = service.capture_response(request, trust)
    except DomainError as exc:
        problem = Problem(
            type=PROBLEM_BASE + exc.slug,
            title=exc.title,
            status=exc.status,
            detail=f"items[{index}]: {exc.detail}",
        )
        return CaptureBatchItem(index=index, status=exc.status, problem=problem)
    return CaptureBatchItem(index=index, status=201, result=result)


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
