"""Problem+json for every error, input limits, nothing half-written."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from fastapi.testclient import TestClient

from app.config import Settings
from tests.conftest import app_state, auth, make_settings

W = auth("writer")
PROBLEM = "application/problem+json"


def _count(client: TestClient) -> int:
    return len(client.get("/v1/records", headers=auth("admin")).json()["items"])


def test_oversized_body_is_413_before_parsing(settings: Settings, make_client) -> None:  # type: ignore[no-untyped-def]
    client = make_client(
        settings.model_copy(
            update={"limits": settings.limits.model_copy(update={"max_body_bytes": 2048})}
        )
    )
    big = b'{"source": "a", "source_kind": "event", "content": {"text": "' + b"x" * 4000 + b'"}}'
    r = client.post("/v1/capture", content=big, headers={**W, "Content-Type": "application/json"})
    assert r.status_code == 413
    assert r.headers["content-type"].startswith(PROBLEM)

    def chunks() -> Iterator[bytes]:
        yield big[:1000]
        yield big[1000:]

    r = client.post(
        "/v1/capture", content=chunks(), headers={**W, "Content-Type": "application/json"}
    )
    assert r.status_code == 413
    assert _count(client) == 0


def test_nan_and_infinity_rejected(client: TestClient) -> None:
    for raw in (
        '{"source":"a","source_kind":"event","content":{"v": NaN}}',
        '{"source":"a","source_kind":"event","content":{"v": Infinity}}',
        '{"payload":{"kind":"entity","canonical_name":"x"},"confidence":NaN}',
    ):
        path = "/v1/records" if "payload" in raw else "/v1/capture"
        r = client.post(path, content=raw, headers={**W, "Content-Type": "application/json"})
        assert r.status_code == 422, raw
        assert r.headers["content-type"].startswith(PROBLEM)
    assert _count(client) == 0


def test_limits_on_strings_tags_and_lists(client: TestClient) -> None:
    huge = "x" * 100_001
    cases = [
        {"source": "a", "source_kind": "event", "content": {"text": huge}},
        {"source": "a", "source_kind": "event", "summary": huge},
        {"source": "a", "source_kind": "event", "tags": [f"t{i}" for i in range(101)]},
        {"source": "a", "source_kind": "event", "tags": ["x" * 257]},
        {"source": "a", "source_kind": "event", "content": {"items": list(range(10_001))}},
        {"source": "a", "source_kind": "event", "sensitivity": "secret"},
        {"source": "a", "source_kind": "event", "unexpected": 1},
    ]
    for body in cases:
        r = client.post("/v1/capture", json=body, headers=W)
        assert r.status_code == 422, body
        problem = r.json()
        assert problem["status"] == 422 and problem["errors"], problem
    assert _count(client) == 0


def test_validation_problem_says_where(client: TestClient) -> None:
    r = client.post("/v1/records", json={"payload": {"kind": "entity"}}, headers=W)
    body = r.json()
    assert r.status_code == 422
    assert body["type"].endswith("/validation-error")
    assert any("canonical_name" in e["loc"] for e in body["errors"])


def test_unknown_route_and_method_are_problems(client: TestClient) -> None:
    r = client.get("/v1/nowhere", headers=W)
    assert r.status_code == 404 and r.headers["content-type"].startswith(PROBLEM)
    r = client.delete("/v1/capture", headers=W)
    assert r.status_code == 405 and r.headers["content-type"].startswith(PROBLEM)


def test_internal_error_is_500_without_stack_trace(
    settings: Settings, make_client: Callable[..., TestClient]
) -> None:
    client = make_client(settings)
    app_state(client).policy = None  # type: ignore[assignment]  # break the wiring on purpose
    client_raise = TestClient(client.app, raise_server_exceptions=False)
    r = client_raise.post(
        "/v1/records", json={"payload": {"kind": "entity", "canonical_name": "x"}}, headers=W
    )
    assert r.status_code == 500
    assert r.headers["content-type"].startswith(PROBLEM)
    assert "Traceback" not in r.text and "AttributeError" not in r.text


def test_rate_limit_answers_429_with_retry_after(db_url: str, make_client) -> None:  # type: ignore[no-untyped-def]
    # One token per 100 s: the three requests must find the bucket empty however slowly
    # the machine answers them (at 0.5/s a busy CI machine once refilled it in between).
    client = make_client(
        make_settings(db_url, rate_limit={"enabled": True, "requests_per_second": 0.01, "burst": 2})
    )
    codes = [client.get("/v1/records", headers=auth("reader")).status_code for _ in range(3)]
    assert codes[:2] == [200, 200] and codes[2] == 429
    r = client.get("/v1/records", headers=auth("reader"))
    assert int(r.headers["retry-after"]) >= 1
    # buckets are per principal
    assert client.get("/v1/records", headers=auth("writer")).status_code == 200
    # health is never rate limited
    assert client.get("/healthz").status_code == 200


def test_a_refused_json_value_is_named_by_its_path(client: TestClient) -> None:
    """The free-form JSON check says where inside the document the refused value lies."""
    nested: object = "leaf"
    for _ in range(70):  # deeper than MAX_JSON_DEPTH (64)
        nested = [nested]
    cases = [
        ({"items": [1, {"deep": "x" * 100_001}]}, "$.items[1].deep: string longer than"),
        ({"a": {"b": nested}}, "$.a.b" + "[0]" * 63 + ": nesting deeper than 64"),
        ({"ok": [True, None, 1.5], "k" * 1025: 1}, "$: key longer than 1024"),
    ]
    for content, where in cases:
        body = {"source": "a", "source_kind": "event", "content": content}
        r = client.post("/v1/capture", json=body, headers=W)
        assert r.status_code == 422, r.text
        assert any(where in e["msg"] for e in r.json()["errors"]), (where, r.json()["errors"])
    assert _count(client) == 0
