"""Each LangGraph store operation as a generator of REST calls (transport.py runs it, sync
or async). Reads ask only for the store's records (marker, prefix and key tags) that are
live (active or contested: superseded versions are history, retracted ones were taken
back)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from langgraph.store.base import (
    GetOp,
    Item,
    ListNamespacesOp,
    PutOp,
    SearchItem,
    SearchOp,
)

from membrane_langgraph import mapping
from membrane_langgraph.transport import Call, Operation, expect

LIVE = (("status", "active"), ("status", "contested"))
PAGE = 500  # the most GET /v1/records and POST /v1/retrieve give at once
PUT_TRIES = 5  # a supersede that lost a race (409) re-reads the key and tries again
PUT_RATIONALE = "langgraph put"
DELETE_RATIONALE = "langgraph delete"
REFRESH_RATIONALE = "langgraph read (TTL refresh)"
Json = dict[str, Any]
Params = list[tuple[str, str | int | float]]


@dataclass(frozen=True)
class Options:
    """What every operation of one store shares."""

    sensitivity: str | None = None  # of the records puts write (default: the service's)
    omit_expired: bool = False  # hide items whose TTL ran out before the sweep prunes them


def _pages(params: Sequence[tuple[str, str | int | float]]) -> Operation[list[Json]]:
    """Every record GET /v1/records lists for `params`, newest first (all pages)."""
    records: list[Json] = []
    cursor: str | None = None
    while True:
        page_params: Params = [*params, ("limit", PAGE)]
        page_params += [("cursor", cursor)] if cursor else []
        call = Call("GET", "/v1/records", page_params)
        page = expect(call, (yield call)).body
        records += page["items"]
        cursor = page.get("next_cursor")
        if not cursor:
            return records


def _versions(namespace: tuple[str, ...], key: str, live_only: bool) -> Operation[list[Json]]:
    params: Params = [
        ("scope", mapping.scope_of(namespace)),
        ("tag", mapping.key_tag(key)),
    ]
    found = yield from _pages([*params, *(LIVE if live_only else ())])
    return [r for r in found if mapping.is_item(r) and mapping.meta_of(r)["key"] == key]


def _refresh(records: Sequence[Json]) -> Iterator[Call]:
    """Reinforce the items that have a TTL: their decay restarts at full salience."""
    for record in records:
        if mapping.ttl_of(record) is not None:
            path = f"/v1/records/{record['id']}/reinforce"
            yield Call("POST", path, body={"rationale": REFRESH_RATIONALE})


def get(op: GetOp, options: Options) -> Operation[Item | None]:
    live = yield from _versions(op.namespace, op.key, live_only=True)
    live = [r for r in live if _unexpired(r, options)]
    if not live:
        return None
    if op.refresh_ttl:
        for call in _refresh(live[:1]):
            expect(call, (yield call), 403, 404)  # a read-only key cannot refresh
    return mapping.item_of(live[0])


def _unexpired(record: Json, options: Options) -> bool:
    if not options.omit_expired or mapping.ttl_of(record) is None:
        return True
    return float(record.get("salience", 1.0)) >= mapping.PRUNE_THRESHOLD


def put(op: PutOp, options: Options) -> Operation[None]:
    if op.value is None:
        yield from delete(op.namespace, op.key)
        return None
    for _ in range(PUT_TRIES):
        live = yield from _versions(op.namespace, op.key, live_only=True)
        first = mapping.meta_of(live[0]).get("created_at") if live else None
        body = mapping.record_body(
            op.namespace,
            op.key,
            op.value,
            op.ttl,
            created_at=first,
            sensitivity=options.sensitivity,
        )
        if not live:
            call = Call.write("/v1/records", body)
            expect(call, (yield call))
            return None
        supersede = {"new_record": body, "rationale": PUT_RATIONALE}
        call = Call.write(f"/v1/records/{live[0]['id']}/supersede", supersede)
        if expect(call, (yield call), 409).status != 409:
            return None
    raise RuntimeError(f"put {op.namespace}/{op.key}: the key kept changing under this write")


def delete(namespace: tuple[str, ...], key: str) -> Operation[None]:
    """Every version of the item (its superseded history too) is deleted."""
    versions = yield from _versions(namespace, key, live_only=False)
    for record in versions:
        call = Call("DELETE", f"/v1/records/{record['id']}", [("rationale", DELETE_RATIONALE)])
        expect(call, (yield call), 404)  # already gone: a retry, or another deleter
    return None


def search(op: SearchOp, options: Options) -> Operation[list[SearchItem]]:
    if op.query:
        scored = yield from _retrieve(op, options)
    else:
        scored = yield from _listing(op, options)
    chosen = scored[op.offset : op.offset + op.limit]
    if op.refresh_ttl:
        for call in _refresh([record for record, _ in chosen]):
            expect(call, (yield call), 403, 404)
    return [mapping.search_item_of(record, score) for record, score in chosen]


def _wanted(record: Json, op: SearchOp, options: Options) -> bool:
    if not mapping.is_item(record) or not _unexpired(record, options):
        return False
    value = record["payload"]["object"]
    return isinstance(value, dict) and mapping.matches_filter(value, op.filter)


def _retrieve(op: SearchOp, options: Options) -> Operation[list[tuple[Json, float | None]]]:
    """Ranked by POST /v1/retrieve: one call, at most 500 candidates (the filter applies
    to those)."""
    wanted = PAGE if op.filter else min(PAGE, op.offset + op.limit)
    body = {
        "query": op.query,
        "tags": [mapping.prefix_tag(op.namespace_prefix)],
        "types": ["semantic"],
        "limit": max(1, wanted),
    }
    call = Call("POST", "/v1/retrieve", body=body)
    items = expect(call, (yield call)).body["items"]
    found = [(i["record"], i.get("score")) for i in items]
    return [(record, score) for record, score in found if _wanted(record, op, options)]


def _listing(op: SearchOp, options: Options) -> Operation[list[tuple[Json, float | None]]]:
    """Newest first through GET /v1/records, page by page until offset + limit match."""
    params: Params = [("tag", mapping.prefix_tag(op.namespace_prefix)), *LIVE]
    found: list[tuple[Json, float | None]] = []
    cursor: str | None = None
    while len(found) < op.offset + op.limit:
        page_params: Params = [*params, ("limit", PAGE)]
        page_params += [("cursor", cursor)] if cursor else []
        call = Call("GET", "/v1/records", page_params)
        page = expect(call, (yield call)).body
        found += [(r, None) for r in page["items"] if _wanted(r, op, options)]
        cursor = page.get("next_cursor")
        if not cursor:
            break
    return found


def list_namespaces(op: ListNamespacesOp) -> Operation[list[tuple[str, ...]]]:
    """The scopes of the store's live records, as namespaces (one pass over them)."""
    prefix = mapping.narrowing_prefix(op.match_conditions)
    records = yield from _pages([("tag", mapping.prefix_tag(prefix)), *LIVE])
    scopes = {str(r["scope"]) for r in records if mapping.is_item(r) and r.get("scope")}
    namespaces = mapping.listed_namespaces(scopes, op.match_conditions, op.max_depth)
    return namespaces[op.offset : op.offset + op.limit]
