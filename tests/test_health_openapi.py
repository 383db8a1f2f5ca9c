"""Health, readiness with tier, and the OpenAPI contract."""

from __future__ import annotations

from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from starlette.routing import Mount, Route


def test_healthz_and_readyz(client: TestClient, store: str) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz").json()
    assert ready["status"] == "ready" and ready["database"] == "reachable"
    if store == "sqlite":
        assert (ready["tier"], ready["tier_name"]) == (1, "sqlite")
    else:
        assert (ready["tier"], ready["tier_name"]) == (3, "pgvector")
    assert ready["open_mode"] is False
    assert set(ready["embedding"]) == {"provider", "model", "pending"}


def test_operations_sit_in_the_apps_own_route_table(client: TestClient) -> None:
    """The routers' routes are the app's own (app/main.py: FastAPI 0.165 matches a request
    against an included router's routes twice), and answer as declared."""
    routes = client.app.router.routes  # type: ignore[attr-defined]
    assert all(type(r) in (APIRoute, Route, Mount) for r in routes), {type(r) for r in routes}
    declared = {(r.path, m) for r in routes if isinstance(r, APIRoute) for m in r.methods or ()}
    record = "/v1/records/{record_id}"
    assert {(record, "GET"), (record, "DELETE"), ("/v1/records/merge", "POST")} <= declared
    assert {("/v1/retrieve", "POST"), ("/healthz", "GET")} <= declared
    wrong_method = client.put("/v1/retrieve", json={})
    assert wrong_method.status_code == 405 and "POST" in wrong_method.headers["allow"]
    assert client.get("/v1/nowhere").status_code == 404


def test_openapi_names_every_operation_with_models_and_errors(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    assert "Problem" in spec["components"]["schemas"]
    seen_ids: set[str] = set()
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            op_id = op.get("operationId")
            assert op_id and op_id not in seen_ids, (path, method)
            seen_ids.add(op_id)
            ok = [c for c in op["responses"] if c.startswith("2")]
            assert ok, (path, method)
            content = op["responses"][ok[0]].get("content", {})
            if ok[0] != "204":
                assert content, f"{method} {path} has no response model"
            if path.startswith("/v1"):
                assert "401" in op["responses"], (path, method)
                assert "422" in op["responses"] or method == "get", (path, method)
    assert {"captureMemory", "createRecord", "listRecords", "getRecord"} <= seen_ids


def test_every_operation_declares_the_request_id_it_echoes(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            names = [p["name"] for p in op["parameters"] if p["in"] == "header"]
            assert names.count("X-Request-ID") == 1, (path, method)
            for status, response in op["responses"].items():
                assert "X-Request-ID" in response["headers"], (path, method, status)
    answer = client.get("/healthz", headers={"X-Request-ID": "trace-42"})
    assert answer.headers["X-Request-ID"] == "trace-42"
