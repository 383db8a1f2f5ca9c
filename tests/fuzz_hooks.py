"""Schemathesis hooks for tests/test_fuzz.py, loaded by the Schemathesis process (the
`hooks` key of its config). They steer generation so the fuzzer gets past validation and
404s into the services; every answer is still checked against the service's document.

- Links. The document declares no OpenAPI links, so on its own Schemathesis mostly sends
  ids that do not exist to `/v1/records/{record_id}/…` (404). `before_load_schema` adds
  links from every operation that creates a record to every operation that takes one, and
  the stateful phase chains them (create → reinforce, pin, supersede, fork, retract,
  contest, delete, record an outcome …) on real records.
- Discriminators. See `require_discriminators`: the only change to a schema, and it only
  narrows what counts as valid, so no answer that breaks the document passes because of it.
- Idempotency keys. See `map_case`.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import schemathesis

# Operations that create a record, and where the new record's id is in their 2xx answer.
CREATORS = {
    ("/v1/records", "post", "201"): "$response.body#/id",
    ("/v1/capture", "post", "201"): "$response.body#/primary_record/id",
    ("/v1/ingest/events", "post", "201"): "$response.body#/primary_record/id",
    ("/v1/ingest/observations", "post", "201"): "$response.body#/primary_record/id",
    ("/v1/ingest/tool-outputs", "post", "201"): "$response.body#/primary_record/id",
    ("/v1/ingest/working-states", "post", "201"): "$response.body#/primary_record/id",
    ("/v1/ingest/episodes", "post", "201"): "$response.body#/primary_record/id",
}
# Operations that take a record id in their path (by operationId).
BY_PATH = (
    "getRecord",
    "getRecordAudit",
    "getRecordRelations",
    "reinforceRecord",
    "penalizeRecord",
    "pinRecord",
    "unpinRecord",
    "supersedeRecord",
    "forkRecord",
    "retractRecord",
    "contestRecord",
    "deleteRecord",
)


def record_links(id_expression: str) -> dict[str, Any]:
    links: dict[str, Any] = {
        target: {"operationId": target, "parameters": {"path.record_id": id_expression}}
        for target in BY_PATH
    }
    # The outcome of an episodic record: the id goes into the generated body.
    links["ingestOutcome"] = {
        "operationId": "ingestOutcome",
        "requestBody": {"record_id": id_expression},
    }
    return links


# A well-formed Idempotency-Key (the document's pattern). Keys are per principal, and the
# fuzzer draws the same few small keys ("0", "00" …) over and over: reused with another
# request they answer 422, so most writes would never run. Three of every four well-formed
# keys become unique; the fourth is kept, so replays and key conflicts are still exercised.
# Malformed keys (negative cases) are left as generated.
WELL_FORMED_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")
_serial = itertools.count()


@schemathesis.hook
def map_case(
    context: schemathesis.HookContext, case: schemathesis.Case[Any]
) -> schemathesis.Case[Any]:
    """(A case hook, not a header hook: only case hooks also run in the coverage phase.)"""
    key = case.headers.get("Idempotency-Key") if case.headers else None
    if case.headers is not None and isinstance(key, str) and WELL_FORMED_KEY.match(key):
        serial = next(_serial)
        if serial % 4:
            case.headers["Idempotency-Key"] = f"fuzz-{serial}"
    return case


def require_discriminators(schemas: dict[str, Any]) -> None:
    """Mark each `oneOf` variant's discriminator property required, as the server (pydantic's
    discriminated union) treats it: the document marks `kind` optional in every payload
    shape (it has a default), so most generated records lack it and are refused with 422,
    and operations that nest a record (supersede, fork, merge) never get past validation.
    Requiring it only makes the request bodies Schemathesis generates acceptable more often;
    a variant that already requires it is left as it is."""
    for schema in _walk(schemas):
        discriminator = schema.get("discriminator")
        if not isinstance(discriminator, dict) or "oneOf" not in schema:
            continue
        name = discriminator["propertyName"]
        for variant in schema["oneOf"]:
            target = schemas[variant["$ref"].rsplit("/", 1)[-1]] if "$ref" in variant else variant
            required = target.setdefault("required", [])
            if name in target.get("properties", {}) and name not in required:
                required.append(name)


def _walk(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found.extend(_walk(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_walk(value))
    return found


@schemathesis.hook
def before_load_schema(context: schemathesis.HookContext, raw_schema: dict[str, Any]) -> None:
    paths = raw_schema["paths"]
    for (path, method, status), id_expression in CREATORS.items():
        response = paths[path][method]["responses"][status]
        response.setdefault("links", {}).update(record_links(id_expression))
    require_discriminators(raw_schema["components"]["schemas"])
