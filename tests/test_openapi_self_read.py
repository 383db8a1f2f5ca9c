"""What the dependencies read themselves is declared in the OpenAPI document
(app/openapi.py `self_read_by_operation`), whatever the shape of the routes: a path
converter, a route left out of the document; and whole-number bounds are written as the
integers they are, never past where a float is exact (app/json_walk.py)."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient

from app import openapi
from app.deps import ReadingDep
from app.errors import Problem
from app.json_walk import integral_bounds


def _app() -> FastAPI:
    app = FastAPI()

    @app.get("/v1/files/{rest:path}", operation_id="readFile")
    async def read_file(rest: str, ctx: ReadingDep) -> dict[str, str]:
        return {"rest": rest}

    @app.get("/v1/hidden", include_in_schema=False)
    async def hidden(ctx: ReadingDep) -> dict[str, str]:
        return {}

    openapi.install(app, Problem.model_json_schema())
    return app


def test_routes_of_every_shape_are_declared_or_left_out() -> None:
    spec = TestClient(_app()).get("/openapi.json").json()
    assert "/v1/hidden" not in spec["paths"]
    operation = spec["paths"]["/v1/files/{rest}"]["get"]
    assert operation["security"] == [{"bearerAuth": []}]
    keys = list(operation)
    assert keys.index("security") < keys.index("parameters") < keys.index("responses")
    names = [p["name"] for p in operation["parameters"]]
    assert names[0] == "rest"
    assert {"X-Membrane-Max-Sensitivity", "X-Membrane-Scopes"} <= set(names)
    assert spec["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"


def test_whole_bounds_become_integers_only_where_exact() -> None:
    schema: dict[str, object] = {
        "properties": {
            "retry": {"type": "integer", "minimum": 1.0, "maximum": 3600.0},
            "row": {"type": "integer", "minimum": 1.0, "maximum": float(2**63 - 1)},
            "share": {"type": "number", "minimum": 0.0, "maximum": 1.0},
        }
    }
    integral_bounds(schema)
    properties = schema["properties"]
    assert isinstance(properties, dict)
    assert properties["retry"] == {"type": "integer", "minimum": 1, "maximum": 3600}
    assert type(properties["retry"]["minimum"]) is int
    assert properties["row"]["minimum"] == 1 and type(properties["row"]["maximum"]) is float
    assert type(properties["share"]["maximum"]) is float  # a number keeps its float bound
