"""The one place that builds outbound HTTP clients (the OpenAI-compatible embedding and
chat endpoints): base URL with one trailing slash, so relative paths join under it; a
bearer key when one is set; one timeout for connect, each read and write and the pool;
an injectable transport (tests)."""

from __future__ import annotations

import httpx


def api_client(
    base_url: str,
    *,
    api_key: str = "",
    timeout_s: float,
    transport: httpx.BaseTransport | None = None,
) -> httpx.Client:
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    return httpx.Client(
        base_url=base_url.rstrip("/") + "/",
        headers=headers,
        timeout=timeout_s,
        transport=transport,
    )
