"""Logs, request ids and CORS (issue 12, items 6 and 7): JSON log lines of a real
`python -m app.serve`, X-Request-ID accepted or generated and carried by every answer,
log line and problem document of its request, CORS only for the configured origins."""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.logs import JsonFormatter, TextFormatter
from tests.conftest import app_state, auth, make_settings
from tests.live_support import free_port
from tests.observability_support import serve, start_up_at_a_terminal

A = auth("admin")
RFC3339_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
GENERATED = re.compile(r"^[0-9a-f]{32}$")
ORIGIN = "https://console.example.com"


def _lines(log: str) -> list[dict[str, Any]]:
    """Every line the server wrote, each a JSON object (json.loads fails on any other)."""
    return [json.loads(line) for line in log.splitlines() if line.strip()]


def test_json_log_lines_of_a_live_server(db_url: str, tmp_path: Path) -> None:
    """Every line is JSON — uvicorn's, the migration's and the app's — and each request has
    one access line whose request_id is the answer's header and its problem's member. JSON
    is what the default (auto) writes when stderr is not a terminal (here: a file)."""
    env: dict[str, str] = {}
    with serve(db_url, env, tmp_path / "serve.log") as served:
        http = httpx.Client(base_url=served.url, headers=A)  # one connection: kept alive
        try:
            missing = http.get("/v1/records/nope", headers={"X-Request-ID": "trace-42"})
            invalid = http.get("/v1/records", params={"limit": "many"})  # no id: a new one
        finally:
            http.close()
    lines = _lines(served.log())
    assert missing.status_code == 404 and invalid.status_code == 422
    assert invalid.headers["x-request-id"] != "trace-42"
    for answer, route in ((missing, "/v1/records/{record_id}"), (invalid, "/v1/records")):
        request_id = answer.headers["x-request-id"]
        assert answer.json()["request_id"] == request_id
        access = [ln for ln in lines if ln.get("request_id") == request_id]
        assert len(access) == 1, access
        line = access[0]
        assert RFC3339_UTC.match(line["timestamp"]), line
        assert line["level"] == "info" and line["logger"] == "membrane.access"
        assert line["principal"] == "admin" and line["method"] == "GET"
        assert line["route"] == route and line["status"] == answer.status_code
        assert isinstance(line["latency_ms"], float) and line["latency_ms"] >= 0
    assert missing.headers["x-request-id"] == "trace-42"
    assert {"uvicorn.error", "membrane.access"} <= {ln["logger"] for ln in lines}
    assert not any(ln["logger"] == "uvicorn.access" for ln in lines)  # the app's line only
    assert "admin-key" not in served.log()  # the key itself is never logged


def test_at_a_terminal_logs_are_text_and_the_ready_line_gives_the_addresses(
    sqlite_template: Path, tmp_path: Path
) -> None:
    """No MEMBRANE_LOG_FORMAT (auto): a person running `membrane serve` in a terminal reads
    text, and the ready line says where the API, its docs and the memory browser are."""
    db = tmp_path / "m.db"
    db.write_bytes(sqlite_template.read_bytes())
    port = free_port()
    lines = start_up_at_a_terminal(f"sqlite:///{db}", {}, port)
    assert lines and not any(line.startswith("{") for line in lines), lines
    ready = next(line for line in lines if "membrane ready" in line)
    base = re.escape(f"http://127.0.0.1:{port}")
    expected = r"\S+Z INFO membrane membrane ready: tier 1 \(sqlite\), authenticated mode, "
    expected += rf"background in_process; API {base}/v1, docs {base}/docs, "
    expected += rf"memory browser {base}/ui"
    assert re.fullmatch(expected, ready), ready


def test_text_log_format(sqlite_template: Path, tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    db.write_bytes(sqlite_template.read_bytes())
    env = {"MEMBRANE_LOG_FORMAT": "text"}
    with serve(f"sqlite:///{db}", env, tmp_path / "serve.log") as served:
        answer = httpx.get(served.url + "/v1/records", headers={**A, "X-Request-ID": "t-1"})
    assert answer.status_code == 200
    access = [ln for ln in served.log().splitlines() if "membrane.access" in ln]
    assert len(access) == 1
    expected = r"\S+Z INFO membrane\.access \[t-1\] GET /v1/records 200 principal=admin "
    expected += r"route=/v1/records latency_ms=\d+\.\d"
    assert re.fullmatch(expected, access[0]), access[0]


def test_request_id_on_every_answer(
    db_url: str, make_client: Callable[[Settings], TestClient]
) -> None:
    """Middleware refusals (429 here), 404s, 405s and successes carry the id, as header and,
    for problems, as the `request_id` member."""
    limited = make_settings(
        db_url, rate_limit={"enabled": True, "burst": 1, "requests_per_second": 0.01}
    )
    client = make_client(limited)
    assert client.get("/v1/records", headers=A).status_code == 200
    refused = client.get("/v1/records", headers={**A, "X-Request-ID": "retry-7"})
    assert refused.status_code == 429
    assert refused.headers["x-request-id"] == refused.json()["request_id"] == "retry-7"
    for answer in (
        client.get("/healthz"),
        client.get("/nowhere"),
        client.delete("/v1/capture", headers=A),
    ):
        assert GENERATED.match(answer.headers["x-request-id"]), answer.headers
        if answer.status_code >= 400:
            assert answer.json()["request_id"] == answer.headers["x-request-id"]


def test_request_id_of_an_internal_error(
    settings: Settings, make_client: Callable[[Settings], TestClient]
) -> None:
    """A 500 is rendered outside the middleware stack: it still carries the request's id."""
    client = make_client(settings)
    app_state(client).policy = None  # type: ignore[assignment]  # break the wiring on purpose
    raw = TestClient(client.app, raise_server_exceptions=False)
    body = {"payload": {"kind": "entity", "canonical_name": "x"}}
    answer = raw.post("/v1/records", json=body, headers={**A, "X-Request-ID": "boom-1"})
    assert answer.status_code == 500
    assert answer.headers["x-request-id"] == answer.json()["request_id"] == "boom-1"


def test_request_id_accepted_when_sane_else_replaced(client: TestClient) -> None:
    insane = [b"has space", b"x" * 129, b"caf\xe9", b"tab\there", b""]
    for sent in insane:
        headers = [(b"authorization", b"Bearer admin-key"), (b"x-request-id", sent)]
        answer = client.get("/v1/records/nope", headers=headers)
        request_id = answer.headers["x-request-id"]
        assert GENERATED.match(request_id) and answer.json()["request_id"] == request_id
    sane = "A-z0~9!" + "x" * 121  # 128 visible ASCII characters
    assert client.get("/healthz", headers={"X-Request-ID": sane}).headers["x-request-id"] == sane


def test_no_cors_headers_by_default(client: TestClient) -> None:
    simple = client.get("/v1/records", headers={**A, "Origin": ORIGIN})
    preflight = client.options("/v1/records", headers=_preflight(ORIGIN))
    assert simple.status_code == 200 and preflight.status_code == 405
    for answer in (simple, preflight):
        assert not [h for h in answer.headers if h.lower().startswith("access-control-")]


def test_cors_for_configured_origins(
    db_url: str, make_client: Callable[[Settings], TestClient]
) -> None:
    client = make_client(make_settings(db_url, cors={"allow_origins": [ORIGIN]}))
    allowed = client.options("/v1/capture", headers=_preflight(ORIGIN))
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == ORIGIN
    assert "POST" in allowed.headers["access-control-allow-methods"]
    allowed_headers = allowed.headers["access-control-allow-headers"].lower()
    for header in ("authorization", "idempotency-key", "x-request-id", "x-membrane-scopes"):
        assert header in allowed_headers
    assert "access-control-allow-credentials" not in allowed.headers
    refused = client.options("/v1/capture", headers=_preflight("https://evil.example"))
    assert refused.status_code == 400
    assert "access-control-allow-origin" not in refused.headers
    simple = client.get("/v1/records/nope", headers={**A, "Origin": ORIGIN})
    assert simple.headers["access-control-allow-origin"] == ORIGIN
    exposed = simple.headers["access-control-expose-headers"].lower()
    assert {"x-request-id", "retry-after", "idempotent-replayed"} <= {
        h.strip() for h in exposed.split(",")
    }


def test_origins_must_be_origins() -> None:
    db_url = "sqlite:///unused.db"  # settings only: nothing connects
    for wrong in ("https://console.example.com/", "console.example.com", "https://a.b/path"):
        with pytest.raises(ValueError, match="is not an origin"):
            make_settings(db_url, cors={"allow_origins": [wrong]})
    with pytest.raises(ValueError, match="log_level"):
        make_settings(db_url, log_level="verbose")
    assert make_settings(db_url, log_level="DEBUG", log_format="TEXT").log_level == "debug"


def test_formatters_write_one_line() -> None:
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        record = logging.LogRecord(
            "membrane.x", logging.ERROR, __file__, 1, "a\nb %s", ("c",), sys.exc_info()
        )
    record.request_id = "r-1"
    record.route = "/v1/x"
    as_json = JsonFormatter().format(record)
    assert "\n" not in as_json
    parsed = json.loads(as_json)
    assert parsed["message"] == "a\nb c" and parsed["request_id"] == "r-1"
    assert parsed["level"] == "error" and "RuntimeError: boom" in parsed["exception"]
    first = TextFormatter().format(record).splitlines()[0]
    assert first.endswith("ERROR membrane.x [r-1] a\\nb c route=/v1/x")


def _preflight(origin: str) -> dict[str, str]:
    return {
        "Origin": origin,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,content-type,idempotency-key",
    }
