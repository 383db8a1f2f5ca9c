"""The OpenAPI document as a contract client generators honour (issue 12).

The document validates (openapi-spec-validator); the bearer scheme is on every protected
operation; one tag per operation makes the client modules; the status codes the service
answers are declared; record payloads are a union discriminated on `kind` that accepts
and refuses what the service does; the evidence rule of revisions is in the schema. Then
the typed client generated from it (clients/python) runs an agent's session in
tests/test_python_client.py, which also fails when that client drifts from the document."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate

from app.main import create_app
from tests.conftest import KEYS, make_settings

TAGS = {
    "capture": {"captureMemory", "captureBatch"},
    "ingest": {
        "ingestEvent",
        "ingestObservation",
        "ingestToolOutput",
        "ingestWorkingState",
        "ingestEpisode",
        "ingestOutcome",
    },
    "records": {
        "createRecord",
        "listRecords",
        "getRecord",
        "getRecordAudit",
        "getRecordRelations",
        "deleteRecord",
        "forgetRecords",
    },
    "retrieve": {"retrieve", "retrieveGraph"},
    "revise": {"supersedeRecord", "forkRecord", "retractRecord", "contestRecord", "mergeRecords"},
    "salience": {"reinforceRecord", "penalizeRecord", "pinRecord", "unpinRecord"},
    "embeddings": {"backfillEmbeddings"},
    "jobs": {"runJob", "listJobRuns"},
    "transfer": {"exportMemory", "importMemory"},
    "metrics": {"getMetrics", "prometheusMetrics"},
    "health": {"healthz", "readyz"},
}
PUBLIC = {"healthz", "readyz", "prometheusMetrics"}
# Operations that answer 409 (app.errors.Conflict), beyond the codes of every /v1 operation.
CONFLICTS = TAGS["revise"] | {"deleteRecord", "ingestOutcome", "runJob", "backfillEmbeddings"}
EVERY_V1 = {"400", "401", "403", "422", "429", "503"}
KINDS = {"episodic", "working", "entity", "semantic", "competence", "plan_graph"}


@pytest.fixture(scope="module")
def sqlite_url(sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    db = tmp_path_factory.mktemp("contract") / "membrane.db"
    shutil.copyfile(sqlite_template, db)
    return f"sqlite:///{db}"


@pytest.fixture(scope="module")
def spec(sqlite_url: str) -> Iterator[dict[str, Any]]:
    with TestClient(create_app(make_settings(sqlite_url))) as client:
        document: dict[str, Any] = client.get("/openapi.json").json()
    yield document


def operations(spec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from refs(item)


def test_document_validates_and_every_reference_resolves(spec: dict[str, Any]) -> None:
    validate(spec)
    components = spec["components"]["schemas"]
    for ref in set(refs(spec)):
        assert ref.startswith("#/components/schemas/"), ref
        assert ref.rsplit("/", 1)[1] in components, ref


def test_bearer_scheme_on_every_protected_operation(spec: dict[str, Any]) -> None:
    scheme = spec["components"]["securitySchemes"]["bearerAuth"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    for path, method, operation in operations(spec):
        if operation["operationId"] in PUBLIC:
            assert "security" not in operation, (method, path)
        else:
            assert operation["security"] == [{"bearerAuth": []}], (method, path)
            assert "401" in operation["responses"], (method, path)
        names = {p["name"].lower() for p in operation.get("parameters", [])}
        assert "authorization" not in names, (method, path)


def test_one_tag_per_operation_and_one_module_per_tag(spec: dict[str, Any]) -> None:
    found: dict[str, set[str]] = {}
    for _, _, operation in operations(spec):
        (tag,) = operation["tags"]
        found.setdefault(tag, set()).add(operation["operationId"])
    assert found == TAGS
    assert [t["name"] for t in spec["tags"]] == list(TAGS)


def test_status_codes_the_service_answers_are_declared(spec: dict[str, Any]) -> None:
    for path, _, operation in operations(spec):
        declared = set(operation["responses"])
        op_id = operation["operationId"]
        assert "400" in declared, op_id  # the HTTP server's own, on any path
        if path.startswith("/v1"):
            assert declared >= EVERY_V1, (op_id, EVERY_V1 - declared)
            assert ("413" in declared) == ("requestBody" in operation), op_id
            assert ("404" in declared) or "{record_id}" not in path, op_id
            assert ("409" in declared) or op_id not in CONFLICTS, op_id
        for status in ("429", "503"):
            answer = operation["responses"].get(status, {})
            if "application/problem+json" in answer.get("content", {}):  # not /readyz's 503
                assert "Retry-After" in answer["headers"], (op_id, status)
    assert "503" in spec["paths"]["/metrics"]["get"]["responses"]  # it reads the database


def test_payloads_are_a_union_discriminated_on_kind(spec: dict[str, Any]) -> None:
    components = spec["components"]["schemas"]
    sent = components["RecordCreate"]["properties"]["payload"]
    returned = components["MemoryRecordOut"]["properties"]["payload"]
    for union in (sent, returned):
        assert union["discriminator"]["propertyName"] == "kind"
        mapping = union["discriminator"]["mapping"]
        assert set(mapping) == KINDS
        assert sorted(r["$ref"] for r in union["oneOf"]) == sorted(mapping.values())
        for kind, ref in mapping.items():
            variant = components[ref.rsplit("/", 1)[1]]
            assert variant["properties"]["kind"]["const"] == kind
            assert "kind" in variant["required"], ref


def conforms(spec: dict[str, Any], component: str, instance: Any) -> bool:
    schema = {"$ref": f"#/components/schemas/{component}", "components": spec["components"]}
    return bool(OAS31Validator(schema).is_valid(instance))


def test_the_union_accepts_and_refuses_what_the_service_does(
    spec: dict[str, Any], sqlite_url: str
) -> None:
    payloads: list[dict[str, Any]] = [
        {"kind": "episodic", "summary": "s", "timeline": [{"event_type": "step"}]},
        {"kind": "working", "thread_id": "t", "state": "planning"},
        {"kind": "entity", "canonical_name": "Acme"},
        {"kind": "semantic", "subject": "a", "predicate": "b", "object": 1},
        {"kind": "competence", "skill_name": "deploy", "recipe": [{"step": "build"}]},
        {"kind": "plan_graph", "plan_id": "p", "edges": [{"from": "a", "to": "b"}]},
        {"summary": "no kind"},
        {"kind": "episodic", "surprise": 1},
        {"kind": "entity"},
        {"kind": "memo", "summary": "s"},
    ]
    with TestClient(create_app(make_settings(sqlite_url))) as client:
        for payload in payloads:
            answer = client.post(
                "/v1/records",
                json={"payload": payload},
                headers={"Authorization": f"Bearer {KEYS['writer'][0]}"},
            )
            assert answer.status_code in (201, 422), answer.text
            documented = conforms(spec, "RecordCreate", {"payload": payload})
            assert documented == (answer.status_code == 201), (payload, answer.text)
            if answer.status_code == 201:
                assert conforms(spec, "MemoryRecordOut", answer.json()), answer.text


def test_a_semantic_revision_needs_evidence_in_the_schema(spec: dict[str, Any]) -> None:
    fact = {"kind": "semantic", "subject": "a", "predicate": "b", "object": "c"}
    bare = {"new_record": {"payload": fact}, "rationale": "r"}
    assert not conforms(spec, "SupersedeRequest", bare)
    with_evidence = {**fact, "evidence": [{"ref": "x"}]}
    assert conforms(spec, "SupersedeRequest", {**bare, "new_record": {"payload": with_evidence}})
    sourced = {"payload": fact, "provenance": {"sources": [{"kind": "doc"}]}}
    assert conforms(spec, "SupersedeRequest", {**bare, "new_record": sourced})
    entity = {"payload": {"kind": "entity", "canonical_name": "Acme"}}
    assert conforms(spec, "ForkRequest", {"forked_record": entity, "rationale": "r"})
    merge = {"ids": ["a", "b"], "merged_record": {"payload": fact}, "rationale": "r"}
    assert not conforms(spec, "MergeRequest", merge)
    assert not conforms(spec, "MergeRequest", {**merge, "ids": ["a", "a"]})
