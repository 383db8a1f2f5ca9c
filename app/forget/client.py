"""`membrane forget`'s side of POST /v1/forget: one request with httpx."""

from __future__ import annotations

from typing import Any

import httpx

from app.transfer.client import TransferError

TIMEOUT_S = 600.0  # a large scope is many pages


def forget(
    url: str, api_key: str, body: dict[str, Any], idempotency_key: str | None = None
) -> dict[str, Any]:
    """The service's counts; TransferError when it refuses."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    if idempotency_key:
        headers["Idempotency-Key"] = idempotency_key
    with httpx.Client(timeout=TIMEOUT_S) as client:
        response = client.post(f"{url.rstrip('/')}/v1/forget", json=body, headers=headers)
    if response.status_code >= 400:
        try:
            problem: Any = response.json()
        except ValueError:
            problem = response.text
        detail = problem.get("detail") if isinstance(problem, dict) else problem
        raise TransferError(f"HTTP {response.status_code}: {detail}", response.status_code, problem)
    counts: dict[str, Any] = response.json()
    return counts
