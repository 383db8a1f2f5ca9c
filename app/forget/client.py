"""`membrane forget`'s side of POST /v1/forget: one request with httpx (the transfer
client's key header and refusal)."""

from __future__ import annotations

import httpx

from app.replicas import TOKEN_HEADER
from app.transfer.client import auth_headers, raise_for_problem

TIMEOUT_S = 600.0  # a large scope is many pages


def forget(
    url: str, api_key: str, body: dict[str, object], idempotency_key: str | None = None
) -> dict[str, object]:
    """The service's counts; TransferError when it refuses."""
    headers = auth_headers(api_key)
    if idempotency_key:
        headers["Idempotency-Key"] = idempotency_key
    with httpx.Client(timeout=TIMEOUT_S) as client:
        response = client.post(f"{url.rstrip('/')}/v1/forget", json=body, headers=headers)
    raise_for_problem(response)
    counts: dict[str, object] = response.json()
    if token := response.headers.get(TOKEN_HEADER):  # with read replicas (docs/scaling.md)
        counts["consistency_token"] = token
    return counts
