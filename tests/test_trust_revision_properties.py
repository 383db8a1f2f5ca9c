"""Trust as a property over writes (issue 36): random sequences of revisions (supersede,
fork, contest, merge, retract) and imports by random principals, each followed by reads
of a random principal. No answer ever names a record the reader may not list, shows the
text of a record it may not read, or shows the rationale of an audit entry that named a
record it may not read. `REVISION_EXAMPLES` examples per store (make test: a few dozen;
make fuzz: many more)."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.main import create_app
from app.records.references import detail_refs
from tests.conftest import STORES, make_settings
from tests.lifecycle_support import semantic
from tests.test_trust_properties import (
    LEVELS,
    SCOPES,
    Caller,
    Stored,
    _key,
    _principals,
    callers,
    module_store_url,
)

EXAMPLES = int(os.environ.get("REVISION_EXAMPLES", "40"))
RUN = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
ADMIN = {"Authorization": f"Bearer {_key('hyper', ())}"}
OPS = ["supersede", "fork", "contest", "merge", "retract", "import"]
ALL_STATUSES = ["active", "superseded", "contested", "retracted"]


@dataclass
class Store:
    client: TestClient
    records: dict[str, Stored] = field(default_factory=dict)
    counter: int = 0

    def marker(self) -> str:
        self.counter += 1
        return f"q{self.counter}z"


@pytest.fixture(scope="module", params=STORES)
def store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Store]:
    url = module_store_url(request, tmp_path_factory, "revprops")
    with TestClient(create_app(make_settings(url, api_keys=_principals()))) as client:
        out = Store(client)
        for level in LEVELS:
            for scope in [None, *SCOPES]:
                _create(out, level, scope, ADMIN)
        yield out


def _body(store: Store, level: str, scope: str | None) -> tuple[dict[str, Any], str]:
    marker = store.marker()
    body: dict[str, Any] = {"payload": semantic(obj=f"falcon {marker}"), "sensitivity": level}
    if scope is not None:
        body["scope"] = scope
    return body, marker


def _create(store: Store, level: str, scope: str | None, headers: dict[str, str]) -> None:
    body, marker = _body(store, level, scope)
    r = store.client.post("/v1/records", json=body, headers=headers)
    assert r.status_code == 201, r.text
    store.records[r.json()["id"]] = Stored(LEVELS.index(level), scope, marker)


def _writable(caller: Caller, rec: Stored) -> bool:
    if rec.scope is None:
        return rec.rank <= caller.ceiling and caller.scopes is None
    return caller.readable(rec)


@dataclass(frozen=True)
class Step:
    """One write: who, what, and the random numbers it picks its targets and place by
    (drawn up front, so what hypothesis draws never depends on the store's state)."""

    actor: Caller
    op: str
    picks: tuple[int, int, int, int]


steps = st.builds(
    Step,
    callers(),
    st.sampled_from(OPS),
    st.tuples(*(st.integers(0, 10**6) for _ in range(4))),
)


def _new_place(caller: Caller, picks: tuple[int, ...]) -> tuple[str, str | None]:
    level = LEVELS[picks[2] % (caller.ceiling + 1)]
    places = [None, *SCOPES] if caller.scopes is None else sorted(caller.scopes)
    return level, places[picks[3] % len(places)]


def _revise(store: Store, step: Step) -> None:
    caller, op = step.actor, step.op
    targets = sorted(rid for rid, rec in store.records.items() if _writable(caller, rec))
    if not targets or caller.scopes == frozenset():
        return
    picked = list(dict.fromkeys(targets[p % len(targets)] for p in step.picks[:2]))
    level, scope = _new_place(caller, step.picks)
    new, marker = _body(store, level, scope)
    why = {"rationale": f"because {store.marker()}"}
    bodies: dict[str, tuple[str, dict[str, Any]]] = {
        "supersede": (f"/v1/records/{picked[0]}/supersede", {"new_record": new}),
        "fork": (f"/v1/records/{picked[0]}/fork", {"forked_record": new}),
        "contest": (f"/v1/records/{picked[0]}/contest", {"contesting_ref": picked[-1]}),
        "merge": ("/v1/records/merge", {"ids": picked, "merged_record": new}),
        "retract": (f"/v1/records/{picked[0]}/retract", {}),
    }
    path, body = bodies[op]
    r = store.client.post(path, json={**body, **why}, headers=caller.headers)
    assert r.status_code < 500, r.text
    if r.status_code < 300:
        for key in ("new_record", "forked_record", "merged_record"):
            if key in r.json():
                made = r.json()[key]  # scope and sensitivity as stored (may be inherited)
                rank = LEVELS.index(made["sensitivity"])
                store.records[made["id"]] = Stored(rank, made["scope"], marker)


def _import(store: Store, step: Step) -> None:
    caller, ids = step.actor, sorted(store.records)
    existing = ids[step.picks[0] % len(ids)]
    level = LEVELS[step.picks[2] % len(LEVELS)]
    scope = SCOPES[step.picks[3] % len(SCOPES)]
    rid, marker = str(uuid.uuid4()), store.marker()
    record = json.loads(_export_line(store))
    record.update(id=rid, sensitivity=level, scope=scope, search_text=None)
    record["payload"] = semantic(obj=f"falcon {marker}")
    edge: dict[str, Any] = {"kind": "relation", "source_id": rid, "predicate": "related_to"}
    edge |= {"target_id": existing, "weight": 1.0, "created_at": 1_790_000_000.0}
    entry: dict[str, Any] = {"kind": "audit", "record_id": existing, "action": "note"}
    entry["actor"] = "x"
    entry |= {"timestamp": 1_790_000_000.0, "rationale": f"forged {store.marker()}"}
    lines = [record, edge, entry]
    counts = {"record": 1, "relation": 1, "audit": 1}
    header = {"kind": "header", "format": "membrane-export", "exported_at": "2026-11-26T00:00:00Z"}
    raw = [header, *lines, {"kind": "end", "counts": counts}]
    content = b"".join(json.dumps(x).encode() + b"\n" for x in raw)
    headers = {**caller.headers, "Content-Type": "application/x-ndjson"}
    r = store.client.post("/v1/import", content=content, headers=headers)
    assert r.status_code in (200, 403, 422), r.text
    if r.status_code == 200:
        new = Stored(LEVELS.index(level), scope, marker)
        assert _writable(caller, new), "an import wrote outside the importer's trust"
        assert _writable(caller, store.records[existing]), "an import wrote onto a hidden record"
        store.records[rid] = new


def _export_line(store: Store) -> str:
    r = store.client.get("/v1/export", params={"type": ["semantic"]}, headers=ADMIN)
    return next(x for x in r.text.splitlines() if '"kind":"record"' in x)


def _check(store: Store, reader: Caller, text: str) -> None:
    for rid, rec in store.records.items():
        if not reader.may_list(rec):
            assert rid not in text, f"id of {rid} leaked"
        if not reader.readable(rec):
            assert f" {rec.marker}" not in text, f"payload of {rid} leaked"


def _check_audit(store: Store, reader: Caller, rid: str) -> None:
    seen = store.client.get(f"/v1/records/{rid}/audit", headers=reader.headers)
    assert seen.status_code == 200, seen.text
    _check(store, reader, seen.text)
    full = store.client.get(f"/v1/records/{rid}/audit", headers=ADMIN).json()["items"]
    named = {e["id"]: set(detail_refs(e["details"])) - {rid} for e in full}
    for entry in seen.json()["items"]:
        hidden = [n for n in named[entry["id"]] if not _reads(store, reader, n)]
        if hidden:
            assert entry["rationale"] is None, f"rationale naming {hidden} leaked"


def _reads(store: Store, reader: Caller, rid: str) -> bool:
    rec = store.records.get(rid)
    return rec is not None and reader.readable(rec)


@RUN
@given(writes=st.lists(steps, min_size=1, max_size=3), reader=callers(), pick=st.integers(0, 10**6))
def test_revisions_and_imports_never_show_a_reader_what_it_may_not_see(
    store: Store, writes: list[Step], reader: Caller, pick: int
) -> None:
    for step in writes:
        if step.op == "import":
            _import(store, step)
        else:
            _revise(store, step)
    listing = store.client.get(
        "/v1/records", params={"limit": 500, "status": ALL_STATUSES}, headers=reader.headers
    )
    assert listing.status_code == 200, listing.text
    _check(store, reader, listing.text)
    query = {"query": "falcon", "limit": 50, "statuses": ALL_STATUSES}
    for path in ("/v1/retrieve", "/v1/retrieve/graph"):
        r = store.client.post(path, json=query, headers=reader.headers)
        assert r.status_code == 200, r.text
        _check(store, reader, r.text)
    readable = sorted(rid for rid in store.records if _reads(store, reader, rid))
    if readable:
        rid = readable[pick % len(readable)]
        one = store.client.get(f"/v1/records/{rid}", headers=reader.headers)
        assert one.status_code == 200, one.text
        _check(store, reader, one.text)
        _check_audit(store, reader, rid)
