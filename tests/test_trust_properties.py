"""Trust as a property (hypothesis): for random principals (ceiling × scopes), random
narrowing headers and random requests, no read path reveals more than the rule in
app/trust.py allows. A record is *readable* when its sensitivity is at or below the
effective ceiling and its scope is one of the caller's (or it is unscoped); one level
above the ceiling it may appear *redacted* (metadata only) in lists and rankings; nothing
else may appear — not its id, its payload, or a count that includes it.

One store per backend holds a fixed corpus (every sensitivity × every scope, with edges
and audit entries); each read path runs `EXAMPLES` examples (500 in CI) against it.
"""

from __future__ import annotations

import itertools
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.config import ApiPrincipal
from app.enums import Sensitivity
from app.main import create_app
from app.security import hash_key
from tests.conftest import STORES, fresh_pg_database, make_settings

EXAMPLES = int(os.environ.get("TRUST_EXAMPLES", "500"))
LEVELS = [s.value for s in Sensitivity]
SCOPES = ["a", "b", "c"]
SCOPE_SETS = [()] + [c for n in (1, 2) for c in itertools.combinations(SCOPES, n)]
WORDS = ["falcon", "harbor", "quartz", "meadow"]
RUN = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _key(ceiling: str, scopes: tuple[str, ...]) -> str:
    return f"k-{ceiling}-{''.join(scopes) or 'all'}"


def _principals() -> list[ApiPrincipal]:
    return [
        ApiPrincipal(
            key_sha256=hash_key(_key(ceiling, scopes)),
            actor_id=_key(ceiling, scopes),
            max_sensitivity=ceiling,
            scopes=list(scopes),
            roles=["read", "write", "admin"],
        )
        for ceiling in LEVELS
        for scopes in SCOPE_SETS
    ]


@dataclass(frozen=True)
class Stored:
    rank: int
    scope: str | None
    marker: str  # a word only this record's payload contains


@dataclass
class Corpus:
    client: TestClient
    records: dict[str, Stored]


@dataclass(frozen=True)
class Caller:
    ceiling: int
    scopes: frozenset[str] | None
    headers: dict[str, str]

    def readable(self, rec: Stored) -> bool:
        return rec.rank <= self.ceiling and self.scope_ok(rec)

    def may_list(self, rec: Stored) -> bool:
        return rec.rank <= self.ceiling + 1 and self.scope_ok(rec)

    def scope_ok(self, rec: Stored) -> bool:
        return rec.scope is None or self.scopes is None or rec.scope in self.scopes


@st.composite
def callers(draw: st.DrawFn) -> Caller:
    ceiling = draw(st.sampled_from(LEVELS))
    scopes = draw(st.sampled_from(SCOPE_SETS))
    headers = {"Authorization": f"Bearer {_key(ceiling, scopes)}"}
    rank = LEVELS.index(ceiling)
    allowed = frozenset(scopes) if scopes else None
    if draw(st.booleans()):
        narrow = draw(st.sampled_from(LEVELS))
        headers["X-Membrane-Max-Sensitivity"] = narrow
        rank = min(rank, LEVELS.index(narrow))
    if draw(st.booleans()):
        asked = draw(st.lists(st.sampled_from(SCOPES), min_size=1, max_size=3, unique=True))
        headers["X-Membrane-Scopes"] = ",".join(asked)
        allowed = frozenset(asked) if allowed is None else allowed & frozenset(asked)
    return Caller(rank, allowed, headers)


def _populate(client: TestClient) -> dict[str, Stored]:
    admin = {"Authorization": f"Bearer {_key('hyper', ())}"}
    records: dict[str, Stored] = {}
    for n, (level, scope) in enumerate(itertools.product(LEVELS, [None, *SCOPES])):
        marker = f"m{n}x"
        word = WORDS[n % len(WORDS)]
        body: dict[str, Any] = {
            "source_kind": "observation",
            "source": "corpus",
            "content": {
                "subject": f"Entity{n % 4}",
                "predicate": "saw",
                "object": f"{word} {marker}",
            },
            "context": {"entities": [f"Shared {word}"]},
            "sensitivity": level,
        }
        if scope is not None:
            body["scope"] = scope
        r = client.post("/v1/capture", json=body, headers=admin)
        assert r.status_code == 201, r.text
        out = r.json()
        for rec in [out["primary_record"], *out["created_records"]]:
            records[rec["id"]] = Stored(LEVELS.index(rec["sensitivity"]), rec["scope"], marker)
    return records


def module_store_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, name: str
) -> str:
    """A fresh, migrated database of the parametrized store, for a module-scoped fixture."""
    if request.param == "sqlite":
        target = tmp_path_factory.mktemp(name) / "membrane.db"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), target)
        return f"sqlite:///{target}"
    server = request.getfixturevalue("pg_server")
    return fresh_pg_database(str(server.get_uri()), request.getfixturevalue("pg_template"))


@pytest.fixture(scope="module", params=STORES)
def corpus(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Corpus]:
    url = module_store_url(request, tmp_path_factory, "trust")
    with TestClient(create_app(make_settings(url, api_keys=_principals()))) as client:
        yield Corpus(client, _populate(client))


def _check_views(caller: Caller, corpus: Corpus, views: list[dict[str, Any]]) -> None:
    """Every record view is one the caller may see, in the form it may see it."""
    for view in views:
        rec = corpus.records.get(view["id"])
        assert rec is not None, f"unknown record {view['id']}"
        assert caller.may_list(rec), f"{view['id']} is beyond the caller's trust"
        if not caller.readable(rec):
            assert view["redacted"] is True and "payload" not in view


def _assert_no_hidden_markers(caller: Caller, corpus: Corpus, text: str) -> None:
    for rid, rec in corpus.records.items():
        if rec.marker and not caller.readable(rec):
            assert f" {rec.marker}" not in text, f"payload of {rid} leaked"
        if not caller.may_list(rec):
            assert rid not in text, f"id of {rid} leaked"


@pytest.mark.parametrize("graph", [False, True], ids=["retrieve", "graph"])
@RUN
@given(caller=callers(), word=st.sampled_from([*WORDS, "Shared", "Entity1"]), data=st.data())
def test_retrieve_and_graph_show_only_what_trust_allows(
    corpus: Corpus, graph: bool, caller: Caller, word: str, data: st.DataObject
) -> None:
    body: dict[str, Any] = {"query": word, "limit": 50, "expand_context": data.draw(st.booleans())}
    if graph:
        body.update(max_hops=data.draw(st.integers(0, 2)), node_limit=50)
    r = corpus.client.post(
        "/v1/retrieve/graph" if graph else "/v1/retrieve", json=body, headers=caller.headers
    )
    assert r.status_code == 200, r.text
    out = r.json()
    items = out["roots"] if graph else out["items"]
    views = [i["record"] for i in items] + [n["record"] for n in out.get("nodes", [])]
    _check_views(caller, corpus, views)
    _assert_no_hidden_markers(caller, corpus, r.text)


@pytest.mark.parametrize("suffix", ["", "/audit", "/relations"], ids=["get", "audit", "relations"])
@RUN
@given(caller=callers(), data=st.data())
def test_get_audit_and_relations_by_id(
    corpus: Corpus, suffix: str, caller: Caller, data: st.DataObject
) -> None:
    rid = data.draw(st.sampled_from(sorted(corpus.records)))
    rec = corpus.records[rid]
    r = corpus.client.get(f"/v1/records/{rid}{suffix}", headers=caller.headers)
    if caller.readable(rec):
        assert r.status_code == 200, r.text
        _assert_no_hidden_markers(caller, corpus, r.text)
    elif caller.may_list(rec):
        assert r.status_code == 403 and rec.marker not in r.text
    else:  # indistinguishable from an id that never existed
        assert r.status_code == 404
        missing = corpus.client.get(f"/v1/records/no-such-id{suffix}", headers=caller.headers)
        assert r.json()["detail"].replace(rid, "X") == missing.json()["detail"].replace(
            "no-such-id", "X"
        )


@RUN
@given(caller=callers(), data=st.data())
def test_listing_shows_only_what_trust_allows(
    corpus: Corpus, caller: Caller, data: st.DataObject
) -> None:
    params: dict[str, Any] = {"limit": 500}
    if data.draw(st.booleans()):
        params["scope"] = data.draw(st.sampled_from(SCOPES))
    if data.draw(st.booleans()):
        params["type"] = data.draw(st.sampled_from(["entity", "semantic", "episodic"]))
    r = corpus.client.get("/v1/records", params=params, headers=caller.headers)
    assert r.status_code == 200, r.text
    _check_views(caller, corpus, r.json()["items"])
    _assert_no_hidden_markers(caller, corpus, r.text)


@RUN
@given(caller=callers())
def test_metrics_count_exactly_the_readable_records(corpus: Corpus, caller: Caller) -> None:
    r = corpus.client.get("/v1/metrics", headers=caller.headers)
    assert r.status_code == 200, r.text
    readable = sum(caller.readable(rec) for rec in corpus.records.values())
    assert r.json()["total"] == readable


@RUN
@given(caller=callers(), word=st.sampled_from(WORDS), n=st.integers(0, 3))
def test_capture_links_only_entities_the_caller_may_read(
    corpus: Corpus, caller: Caller, word: str, n: int
) -> None:
    level = LEVELS[caller.ceiling]
    scope = sorted(caller.scopes)[0] if caller.scopes else None
    body: dict[str, Any] = {
        "source_kind": "event",
        "source": "probe",
        "content": {"text": "probe", "entities": [f"Shared {word}", f"Entity{n}"]},
        "sensitivity": level,
    }
    if scope is not None:
        body["scope"] = scope
    r = corpus.client.post("/v1/capture", json=body, headers=caller.headers)
    if caller.scopes == frozenset():  # narrowed to no scope at all: nowhere to write
        assert r.status_code == 403
        return
    assert r.status_code == 201, r.text
    out = r.json()
    for rec in [out["primary_record"], *out["created_records"]]:
        corpus.records[rec["id"]] = Stored(LEVELS.index(rec["sensitivity"]), rec["scope"], "")
    for edge in out["edges"]:
        for rid in (edge["source_id"], edge["target_id"]):
            assert caller.readable(corpus.records[rid]), f"capture linked {rid}"
    _assert_no_hidden_markers(caller, corpus, r.text)
