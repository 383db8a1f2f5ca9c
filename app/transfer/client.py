"""Client side of export and import, for the CLI (and any script): stream an export to a
file, and stream a file to the import endpoint, in chunks, with a progress callback.

Neither function holds the file in memory. The export is written to `<path>.part` and
renamed only once its end line has arrived, so a file at `path` is always complete.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, TypedDict, cast

import httpx

from app.replicas import TOKEN_HEADER

CHUNK = 1024 * 1024
MEDIA_TYPE = "application/x-ndjson"


# Called with the lines written so far (export) or the bytes sent so far (import; the
# total is the file's size).
ProgressCallback = Callable[[int], None]


class KindCountsJson(TypedDict, total=False):
    records: int
    relations: int
    provenance: int
    entity_terms: int
    audit: int
    embeddings: int


class ImportReportJson(TypedDict):
    """The service's answer to an import (ImportReport, as JSON)."""

    lines: int
    created: KindCountsJson
    skipped: KindCountsJson
    queued_for_embedding: int


class TransferError(RuntimeError):
    """The service refused (its problem document is `problem`) or the stream broke."""

    def __init__(self, message: str, status: int | None = None, problem: object = None) -> None:
        super().__init__(message)
        self.status = status
        self.problem = problem


def auth_headers(api_key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


def raise_for_problem(response: httpx.Response) -> None:
    """TransferError carrying the service's problem for a 4xx/5xx answer."""
    if response.status_code < 400:
        return
    response.read()
    try:
        problem: object = response.json()
    except ValueError:
        problem = response.text
    detail = problem.get("detail") if isinstance(problem, dict) else problem
    raise TransferError(f"HTTP {response.status_code}: {detail}", response.status_code, problem)


def export_to_file(
    base_url: str,
    api_key: str | None,
    path: str | os.PathLike[str],
    *,
    filters: Mapping[str, Any] | None = None,
    progress: ProgressCallback | None = None,
    timeout: float = 60.0,
    consistency_token: str | None = None,
) -> dict[str, int]:
    """GET /v1/export into `path`; returns the end line's counts per kind. `filters`:
    `scope` and `type` (lists), `created_after` / `created_before` (datetime or ISO-8601),
    `include_embeddings` (bool); absent or None: no limit. `consistency_token`: a write's
    token, so that a read replica serves the export only once it holds that write."""
    target = Path(path)
    partial = target.with_name(target.name + ".part")
    url = base_url.rstrip("/") + "/v1/export"
    params = _params(filters or {})
    headers = auth_headers(api_key)
    if consistency_token:
        headers[TOKEN_HEADER] = consistency_token
    with httpx.stream("GET", url, params=params, headers=headers, timeout=timeout) as response:
        raise_for_problem(response)
        last = _write_lines(response.iter_lines(), partial, progress)
    end = json.loads(last) if last else {}
    if not isinstance(end, dict) or end.get("kind") != "end":
        partial.unlink(missing_ok=True)
        raise TransferError("The export stream ended before its end line (cut short).")
    partial.replace(target)
    counts: dict[str, int] = end.get("counts", {})
    return counts


def _params(filters: Mapping[str, Any]) -> list[tuple[str, str | int | float | bool | None]]:
    params: list[tuple[str, str | int | float | bool | None]] = []
    for name in ("scope", "type"):
        params += [(name, str(v)) for v in filters.get(name) or ()]
    for name in ("created_after", "created_before"):
        value = filters.get(name)
        if value is not None:
            params.append((name, value.isoformat() if isinstance(value, datetime) else value))
    if filters.get("include_embeddings"):
        params.append(("include_embeddings", "true"))
    return params


def _write_lines(lines: Iterator[str], partial: Path, progress: ProgressCallback | None) -> str:
    written = 0
    last = ""
    with partial.open("wb") as out:
        for text in lines:
            if not text:
                continue
            out.write(text.encode() + b"\n")
            written += 1
            if progress is not None and written % 500 == 0:
                progress(written)
            last = text
    if progress is not None:
        progress(written)
    return last


def import_file(
    base_url: str,
    api_key: str | None,
    path: str | os.PathLike[str],
    *,
    progress: ProgressCallback | None = None,
    timeout: float = 600.0,
) -> ImportReportJson:
    """POST `path` to /v1/import in chunks; returns the import report (created and
    skipped per kind). A refused file raises TransferError whose `problem` lists every
    bad line in `errors`."""
    source = Path(path)
    total = source.stat().st_size

    def chunks() -> Iterator[bytes]:
        done = 0
        with source.open("rb") as stream:
            while chunk := stream.read(CHUNK):
                done += len(chunk)
                yield chunk
                if progress is not None:
                    progress(done)

    headers = {
        **auth_headers(api_key),
        "Content-Type": MEDIA_TYPE,
        "Content-Length": str(total),
    }
    url = base_url.rstrip("/") + "/v1/import"
    response = httpx.post(url, content=chunks(), headers=headers, timeout=timeout)
    raise_for_problem(response)
    return cast(ImportReportJson, response.json())
