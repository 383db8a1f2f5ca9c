"""Tool input schemas taken from the REST contract itself.

Each MCP tool is one REST operation, so its input schema is that operation's request
body schema from the OpenAPI document (built from the same routers the service mounts;
no database, no settings), with `$ref`s into `#/components/schemas` moved to a local
`$defs`, plus the operation's path parameters and, where REST takes one, an optional
`idempotency_key`. Fields the REST schema leaves undescribed get a description here, for
the model that reads the tool list. The REST endpoint stays the one validator: the
tool layer forwards what it is given and reports the problem REST answers.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping

from fastapi import FastAPI

from app import openapi
from app.capture.router import router as capture_router
from app.errors import Problem
from app.forget.router import router as forget_router
from app.json_walk import JsonDocument
from app.records.router import router as records_router
from app.retrieve.router import router as retrieve_router
from app.revise.router import router as revise_router
from app.salience.router import router as salience_router

COMPONENTS = "#/components/schemas/"
DEFS = "#/$defs/"

RECORD_ID: dict[str, object] = {
    "type": "string",
    "minLength": 1,
    "maxLength": 1024,
    "description": "The record's id (a UUID), as returned by capture, ingest or retrieve.",
}
IDEMPOTENCY_KEY: dict[str, object] = {
    "type": "string",
    "minLength": 1,
    "maxLength": 255,
    "pattern": "^[!-~]+$",
    "description": "Optional. Reuse the same key when you retry this exact call (after a "
    "timeout or a lost answer): the first answer is replayed and nothing is written twice. "
    "1-255 visible ASCII characters; kept 24 h. The same key with a different call is "
    "refused (422).",
}

# Descriptions for body fields the REST schemas leave undescribed (top level only).
FIELD_NOTES: dict[str, str] = {
    "source": "Who or what produced the experience: your agent id, or a tool's name.",
    "source_kind": "What kind of experience this is: event, tool_output, observation, "
    "working_state, agent_turn or episode.",
    "content": "The experience itself: text, or a JSON object. An object with "
    "subject/predicate/object also becomes a semantic fact; `entities` (names, or "
    "{name, types, aliases}) are linked as entity records.",
    "summary": "One or two sentences saying what happened or what is known; retrieval searches it.",
    "proposed_type": "The memory type you think fits (episodic, working, entity, semantic, "
    "competence, plan_graph); omit to let Membrane classify.",
    "scope": "Namespace the record lives in (a team, project or user). Readers restricted to "
    "scopes only see records of those scopes. Omit for an unscoped record (a key limited "
    "to scopes must name one of them).",
    "tags": "Free labels (1-256 characters each, at most 100) for filtering retrieval.",
    "sensitivity": "public, low, medium, high or hyper. Callers see a record only up to "
    "their ceiling (one level above it only redacted). Default: decided by the policy for "
    "the memory type.",
    "timestamp": "When it happened (ISO-8601, e.g. 2025-01-31T12:00:00Z). Default: now.",
    "reason_to_remember": "Why this is worth remembering; helps later ranking and review.",
    "context": "Free JSON object with the situation (task, thread_id, environment, ...).",
    "types": "Only these memory types (episodic, working, entity, semantic, competence, "
    "plan_graph). Empty: all.",
    "scopes": "Only records of these scopes (within your key's scopes). Empty: all you may read.",
    "trust": "Narrow (never widen) your trust for this call: {max_sensitivity, scopes}.",
    "rationale": "Why you do this; kept in the record's audit trail.",
    "amount": "How much to lower the salience by, in (0, 1].",
    "max_hops": "How many edges away from the ranked roots to walk (0-4).",
    "edge_limit": "At most this many edges in the answer.",
    "items": "The captures, each exactly as capture_memory takes it (1-1,000).",
    "thread_id": "The task or conversation this working state belongs to; a later "
    "state of the same thread replaces it in retrieval once a state is `done`.",
    "tool": "The tool's name.",
    "args": "The arguments the tool was called with (JSON object).",
    "result": "What the tool returned (any JSON).",
    "data": "Structured detail (JSON object).",
    "entities": "Entities named: names, or objects {name, types, aliases}.",
    "ref": "A reference to where the event is recorded (URL, log id, message id).",
    "status": "How the call ended: ok, error or unknown.",
    "depends_on": "Ids of earlier tool calls whose output this call used.",
    "subject": "The fact's subject (an entity name, e.g. Alice).",
    "predicate": "The fact's relation (e.g. works_at).",
    "object": "The fact's object (a value, or the name of an existing entity).",
    "state": "The task's state: planning, executing, blocked, waiting or done (default "
    "executing). `done` closes the thread.",
    "state_data": "Free-form state of the task (JSON object).",
    "active_constraints": "Constraints in force: objects {type, key, value, required}.",
    "constraints": "Constraints in plain text.",
    "next_actions": "What you plan to do next, in order.",
    "open_questions": "Questions still open.",
    "context_summary": "A short summary of the task's context so far.",
    "timeline": "The episode's events in order: {t, event_kind, summary, ref, data}.",
    "tool_graph": "The tool calls: {id, tool, args, result, status, depends_on}.",
    "tool_graph_ref": "A reference to a tool graph kept elsewhere.",
    "environment": "Where it ran (JSON object; thread_id groups episodes for compression).",
    "outcome": "How it ended: success, failure, partial or unknown.",
    "artifacts": "What it produced (paths, URLs, ids).",
    "record_id": "The id of the episodic record this outcome belongs to.",
    "details": "Structured detail of the outcome (JSON object).",
    "limit": "At most this many results (1-500).",
}


def api_document() -> JsonDocument:
    """The OpenAPI document of the operations the tools call (cached per process)."""
    return copy.deepcopy(_document())


@functools.cache
def _document() -> JsonDocument:
    app = FastAPI(title="Membrane", version="0.1.0")
    for router in (
        capture_router,
        records_router,
        salience_router,
        revise_router,
        retrieve_router,
        forget_router,
    ):
        app.include_router(router)
    openapi.install(app, Problem.model_json_schema())
    return app.openapi()


def operation(document: JsonDocument, method: str, path: str) -> JsonDocument:
    found: JsonDocument = document["paths"][path][method.lower()]
    return found


def input_schema(
    document: JsonDocument,
    method: str,
    path: str,
    path_params: tuple[str, ...],
    idempotent: bool,
) -> dict[str, object]:
    """The tool's input schema: path parameters + the body's fields (+ idempotency_key)."""
    body = _body_schema(operation(document, method, path))
    components: Mapping[str, JsonDocument] = document["components"]["schemas"]
    root: JsonDocument = (
        copy.deepcopy(components[_ref_name(body)]) if body is not None else {"type": "object"}
    )
    root.pop("title", None)
    properties: dict[str, object] = {name: dict(RECORD_ID) for name in path_params}
    for name, field in root.get("properties", {}).items():
        properties[name] = _described(name, field)
    if idempotent:
        properties["idempotency_key"] = dict(IDEMPOTENCY_KEY)
    root["properties"] = properties
    root["required"] = [*path_params, *root.get("required", [])]
    root["additionalProperties"] = False
    defs = _reachable(root, components)
    schema = _rewrite_object(root)
    if defs:
        schema["$defs"] = {name: _rewrite_refs(components[name]) for name in sorted(defs)}
    return schema


def _body_schema(op: JsonDocument) -> Mapping[str, object] | None:
    """The body's `$ref` (an optional body is `anyOf: [$ref, null]`), or None."""
    content: JsonDocument | None = (
        op.get("requestBody", {}).get("content", {}).get("application/json")
    )
    if content is None:
        return None
    schema: JsonDocument = content["schema"]
    for branch in schema.get("anyOf", []):
        if "$ref" in branch:
            return dict(branch)
    return schema


def _ref_name(schema: Mapping[str, object]) -> str:
    ref = str(schema["$ref"])
    if not ref.startswith(COMPONENTS):
        raise ValueError(f"not a component reference: {ref}")
    return ref[len(COMPONENTS) :]


def _described(name: str, field: Mapping[str, object]) -> Mapping[str, object]:
    if "description" in field or name not in FIELD_NOTES:
        return field
    return {**field, "description": FIELD_NOTES[name]}


def _reachable(schema: object, components: Mapping[str, object]) -> set[str]:
    """Names of the components `schema` refers to, directly or through others."""
    found: set[str] = set()
    pending = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(COMPONENTS):
                name = ref[len(COMPONENTS) :]
                if name not in found:
                    found.add(name)
                    pending.append(components[name])
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return found


def _rewrite_object(node: Mapping[str, object]) -> dict[str, object]:
    out = {key: _rewrite_refs(value) for key, value in node.items()}
    ref = out.get("$ref")
    if isinstance(ref, str) and ref.startswith(COMPONENTS):
        out["$ref"] = DEFS + ref[len(COMPONENTS) :]
    return out


def _rewrite_refs(node: object) -> object:
    if isinstance(node, dict):
        return _rewrite_object(node)
    if isinstance(node, list):
        return [_rewrite_refs(item) for item in node]
    return node
