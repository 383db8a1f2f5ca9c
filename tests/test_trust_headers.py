"""One reading of each header (issue 36, finding 6 and the lower findings): a repeated
single-valued header answers 400 before anything reads it; X-Forwarded-For counts only
from configured proxies; /metrics can require a scrape token."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db import Database
from app.models import RecordRow
from tests.conftest import auth, make_settings
from tests.live_support import live_server

NUL_EVENT = json.dumps({"source": "a", "source_kind": "event", "summary": "a\u0000b"})


def _records(db: Database) -> int:
    with db.read_transaction() as s:
        return int(s.scalar(select(func.count()).select_from(RecordRow)) or 0)


@pytest.mark.parametrize(
    "headers",
    [
        [("Content-Type", "text/plain"), ("Content-Type", "application/json")],
        [("Content-Type", "application/json"), ("Content-Type", "text/plain")],
        [("Authorization", auth("admin")["Authorization"]), ("Content-Type", "application/json")],
        [("X-Membrane-Scopes", "team-a"), ("X-Membrane-Scopes", "team-b")],
        [("X-Membrane-Max-Sensitivity", "low"), ("x-membrane-max-sensitivity", "hyper")],
        [("Idempotency-Key", "k1"), ("Idempotency-Key", "k2")],
    ],
)
def test_a_repeated_header_answers_400_and_writes_nothing(
    client: TestClient, db: Database, headers: list[tuple[str, str]]
) -> None:
    sent = [("Authorization", auth("writer")["Authorization"]), *headers]
    if not any(name.lower() == "content-type" for name, _ in headers):
        sent.append(("Content-Type", "application/json"))
    r = client.post("/v1/capture", content=NUL_EVENT.encode(), headers=sent)
    assert r.status_code == 400, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["type"].endswith("/repeated-header")
    assert _records(db) == 0


def test_repeated_headers_are_refused_on_every_path(client: TestClient) -> None:
    twice = [("Authorization", auth("admin")["Authorization"])] * 2
    for path in ("/v1/records", "/metrics", "/mcp", "/healthz"):
        assert client.get(path, headers=twice).status_code == 400, path


def _address_limited(url: str, forwarded: bool) -> list[int]:
    """Four keyless requests, each claiming another client address."""
    return [
        httpx.post(
            f"{url}/v1/retrieve",
            json={},
            headers={"X-Forwarded-For": f"203.0.113.{i}"} if forwarded else {},
        ).status_code
        for i in range(4)
    ]


def test_x_forwarded_for_counts_only_from_a_configured_proxy(
    sqlite_template: Path, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    tmp_path.joinpath("m.db").write_bytes(sqlite_template.read_bytes())
    limited = {"enabled": True, "requests_per_second": 0.01, "burst": 3}
    with live_server(make_settings(url, rate_limit=limited)) as base:
        # No proxy configured: the header is ignored, the connection's address is the bucket.
        assert _address_limited(base, forwarded=True) == [401, 401, 401, 429]
    proxied = make_settings(url, rate_limit=limited, trusted_proxies=["127.0.0.1"])
    with live_server(proxied) as base:
        # Behind a configured proxy, each forwarded client has its own bucket.
        assert _address_limited(base, forwarded=True) == [401, 401, 401, 401]


def test_metrics_can_require_a_scrape_token(
    db_url: str, make_client: Callable[..., TestClient]
) -> None:
    open_metrics = make_client(make_settings(db_url))
    assert open_metrics.get("/metrics").status_code == 200
    guarded = make_client(make_settings(db_url, metrics_token="scrape-me"))
    assert guarded.get("/metrics").status_code == 401
    assert guarded.get("/metrics", headers={"Authorization": "Bearer nope"}).status_code == 401
    # An API key is not the scrape token.
    assert guarded.get("/metrics", headers=auth("admin")).status_code == 401
    r = guarded.get("/metrics", headers={"Authorization": "Bearer scrape-me"})
    assert r.status_code == 200 and "membrane_" in r.text


BAD_CEILING = {"X-Membrane-Max-Sensitivity": "secret-ish"}


def test_the_caller_is_checked_before_the_narrowing_headers(
    client: TestClient, db: Database
) -> None:
    """No key: 401; a key without the role: 403; both before a bad narrowing header is
    looked at (422 only for a caller who may make the request)."""
    event = {"source": "a", "source_kind": "event", "summary": "hello"}
    no_key = client.post("/v1/capture", json=event, headers=BAD_CEILING)
    assert no_key.status_code == 401, no_key.text
    reader = client.post("/v1/capture", json=event, headers={**auth("reader"), **BAD_CEILING})
    assert reader.status_code == 403, reader.text
    writer = client.post("/v1/capture", json=event, headers={**auth("writer"), **BAD_CEILING})
    assert writer.status_code == 422, writer.text
    assert writer.json()["errors"][0]["loc"] == ["header", "X-Membrane-Max-Sensitivity"]
    assert client.get("/v1/records", headers=BAD_CEILING).status_code == 401
    assert client.get("/v1/records", headers={**auth("reader"), **BAD_CEILING}).status_code == 422
    # the admin routes read the same headers the same way, after their own caller check
    assert client.get("/v1/export", headers={**auth("writer"), **BAD_CEILING}).status_code == 403
    bad_token = {**auth("admin"), "Membrane-Consistency-Token": "not-a-token"}
    for headers, name in ((BAD_CEILING, "X-Membrane-Max-Sensitivity"),
                          (bad_token, "Membrane-Consistency-Token")):  # fmt: skip
        r = client.get("/v1/export", headers={**auth("admin"), **headers})
        assert r.status_code == 422 and r.json()["errors"][0]["loc"] == ["header", name], r.text
    assert _records(db) == 0


def test_narrowing_headers_narrow_reads_and_writes(client: TestClient) -> None:
    event = {"source": "a", "source_kind": "event", "summary": "hello", "scope": "team-a"}
    narrowed = {**auth("admin"), "X-Membrane-Scopes": "team-b"}
    refused = client.post("/v1/capture", json=event, headers=narrowed)
    assert refused.status_code == 403, refused.text
    made = client.post("/v1/capture", json=event, headers=auth("admin"))
    assert made.status_code == 201, made.text
    rid = made.json()["primary_record"]["id"]
    assert client.get(f"/v1/records/{rid}", headers=auth("admin")).status_code == 200
    assert client.get(f"/v1/records/{rid}", headers=narrowed).status_code == 404
