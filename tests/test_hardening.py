"""Findings of the hardening probe (issue 10), each pinned by a test on both stores:
entity resolution under the ceiling, text no store can hold, odd sizes, the metrics
snapshot's audit counts, and the rate limiter's notion of a caller."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app.config import ApiPrincipal
from app.middleware import TokenBuckets
from app.security import hash_key
from tests.conftest import auth, make_settings, principals
from tests.live_support import live_server

A, W, R = auth("admin"), auth("writer"), auth("reader")
PROBLEM = "application/problem+json"


def _capture(client: TestClient, headers: dict[str, str], **body: Any) -> dict[str, Any]:
    body.setdefault("source", "probe")
    r = client.post("/v1/capture", json=body, headers=headers)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def _record_count(client: TestClient) -> int:
    listing = client.get("/v1/records", params={"limit": 500}, headers=A).json()
    return len(listing["items"])


# -- 1. entity resolution respects the ceiling ------------------------------------------


def test_capture_never_links_an_entity_above_the_callers_ceiling(client: TestClient) -> None:
    hidden = _capture(
        client,
        A,
        source_kind="event",
        content={"text": "briefing", "entities": ["Project Nightfall"]},
        sensitivity="hyper",
    )["created_records"][0]["id"]
    out = _capture(
        client,
        W,  # ceiling high: the hyper entity does not exist for this caller
        source_kind="observation",
        content={"subject": "Dana", "predicate": "leads", "object": "project nightfall"},
        context={"entities": ["Project Nightfall"]},
    )
    assert hidden not in str(out)
    entities = [r for r in out["created_records"] if r["type"] == "entity"]
    assert {e["payload"]["canonical_name"] for e in entities} == {"Dana", "Project Nightfall"}
    mentioned = {e["record_id"] for e in out["primary_record"]["interpretation"]["entities"]}
    assert hidden not in mentioned
    # the writer's own entity now resolves for the writer; the admin still gets the oldest
    again = _capture(client, W, source_kind="event", content={"entities": ["project nightfall"]})
    visible_id = next(e["id"] for e in entities if e["payload"]["canonical_name"] != "Dana")
    assert again["created_records"] == [] and again["edges"][0]["target_id"] == visible_id
    admin = _capture(client, A, source_kind="event", content={"entities": ["Project Nightfall"]})
    assert admin["edges"][0]["target_id"] == hidden


# -- 2, 3. input no store can hold, odd sizes ----------------------------------------------


def _post_raw(path: str, body: bytes) -> Callable[[TestClient], Any]:
    headers = {**A, "content-type": "application/json"}
    return lambda c: c.post(path, content=body, headers=headers)


UNSTORABLE: dict[str, Callable[[TestClient], Any]] = {
    "nul in content": lambda c: c.post(
        "/v1/capture", json={"source_kind": "event", "source": "s", "content": "a\x00b"}, headers=A
    ),
    "nul in a tag": lambda c: c.post(
        "/v1/capture",
        json={"source_kind": "event", "source": "s", "content": "ab", "tags": ["t\x00"]},
        headers=A,
    ),
    "nul in a key": lambda c: c.post(
        "/v1/capture",
        json={"source_kind": "event", "source": "s", "content": {"k\x00": 1}},
        headers=A,
    ),
    "nul in a query, read-only key": lambda c: c.post(
        "/v1/retrieve", json={"query": "a\x00b"}, headers=R
    ),
    "nul in a header": lambda c: c.get("/v1/records", headers={**R, "X-Membrane-Scopes": "a\x00"}),
    "nul in a query parameter": lambda c: c.get("/v1/records?scope=a%00b", headers=R),
    "nul in a path": lambda c: c.get("/v1/records/a%00b", headers=R),
    "lone surrogate": _post_raw(
        "/v1/capture", b'{"source_kind":"event","source":"s","content":"a\\ud800b"}'
    ),
    "not UTF-8": _post_raw("/v1/capture", b'{"source_kind":"event","source":"s","content":"\xff"}'),
    "nested too deeply": _post_raw("/v1/retrieve", b'{"query":"x","filters":' + b"[" * 5000),
    "fact subject over 1,024 characters": lambda c: c.post(
        "/v1/capture",
        json={
            "source_kind": "observation",
            "source": "s",
            "content": {"subject": "s" * 1100, "predicate": "p", "object": "o"},
        },
        headers=A,
    ),
    "mention with over 1,000 types": lambda c: c.post(
        "/v1/capture",
        json={
            "source_kind": "event",
            "source": "s",
            "content": "x",
            "context": {"entities": [{"name": "n", "types": [f"t{i}" for i in range(1001)]}]},
        },
        headers=A,
    ),
}


@pytest.mark.parametrize("case", sorted(UNSTORABLE))
def test_input_no_store_can_hold_is_422_and_writes_nothing(client: TestClient, case: str) -> None:
    before = _record_count(client)
    r = UNSTORABLE[case](client)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    assert r.json()["status"] == 422 and r.json()["detail"]
    assert _record_count(client) == before


def test_paired_surrogates_are_ordinary_text(client: TestClient) -> None:
    r = _post_raw(
        "/v1/capture",
        b'{"source_kind":"event","source":"s","content":{"text":"ok \\ud83d\\ude00"}}',
    )(client)
    assert r.status_code == 201, r.text
    assert r.json()["primary_record"]["payload"]["summary"] == "ok \U0001f600"


# -- 6. the metrics snapshot counts only what the caller may read -----------------------


def test_metrics_audit_counts_leave_out_what_the_caller_cannot_see(client: TestClient) -> None:
    def audit_entries(headers: dict[str, str]) -> int:
        n: int = client.get("/v1/metrics", headers=headers).json()["audit_entries"]
        return n

    _capture(client, W, source_kind="event", content="visible to reader", sensitivity="low")
    before = {"reader": audit_entries(R), "team": audit_entries(auth("team_a"))}
    admin_before = audit_entries(A)
    secret = _capture(client, A, source_kind="event", content="secret", sensitivity="hyper")
    other = _capture(client, A, source_kind="event", content="team b", scope="team-b")
    for rid in (secret["primary_record"]["id"], other["primary_record"]["id"]):
        assert client.post(f"/v1/records/{rid}/reinforce", json={}, headers=A).status_code == 200
    assert audit_entries(R) == before["reader"] + 2  # team-b is low; the reader has all scopes
    assert audit_entries(auth("team_a")) == before["team"]
    assert audit_entries(A) == admin_before + 4
    usefulness = client.get("/v1/metrics", headers=R).json()["feedback_usefulness_30d"]
    assert usefulness == 1.0
    usefulness = client.get("/v1/metrics", headers=auth("team_a")).json()["feedback_usefulness_30d"]
    assert usefulness is None  # the only reinforcements are on records team-a cannot see


# -- 5. the rate limiter: one bucket per principal, bounded memory -----------------------


def test_rate_limit_holds_across_spellings_of_the_authorization_header(
    db_url: str, make_client: Callable[..., TestClient]
) -> None:
    client = make_client(
        make_settings(db_url, rate_limit={"enabled": True, "requests_per_second": 0.01, "burst": 2})
    )
    spellings = ["Bearer reader-key", "bearer reader-key", "BEARER   reader-key  "]
    codes = [client.get("/v1/records", headers={"Authorization": s}).status_code for s in spellings]
    assert codes == [200, 200, 429]
    assert client.get("/v1/records", headers=W).status_code == 200


def test_invalid_keys_share_their_address_bucket(
    db_url: str, make_client: Callable[..., TestClient]
) -> None:
    client = make_client(
        make_settings(db_url, rate_limit={"enabled": True, "requests_per_second": 0.01, "burst": 3})
    )
    codes = [
        client.get("/v1/records", headers={"Authorization": f"Bearer random-{i}"}).status_code
        for i in range(6)
    ]
    assert codes == [401, 401, 401, 429, 429, 429]


def test_token_buckets_forget_the_least_recent_caller_beyond_their_bound() -> None:
    buckets = TokenBuckets(rate=1.0, burst=1, max_callers=100)
    for i in range(10_000):
        buckets.take(f"caller-{i}", now=0.0)
    assert len(buckets) == 100
    assert buckets.take("caller-9999", now=0.0) > 0  # the recent ones are still remembered


def test_low_ceiling_writer_gets_its_own_entity(
    db_url: str, make_client: Callable[..., TestClient]
) -> None:
    low = ApiPrincipal(
        key_sha256=hash_key("low-writer-key"),
        actor_id="low-writer",
        max_sensitivity="low",
        scopes=[],
        roles=["read", "write"],
    )
    client = make_client(make_settings(db_url, api_keys=[*principals(), low]))
    hidden = _capture(
        client, A, source_kind="event", content={"entities": ["Vault"]}, sensitivity="hyper"
    )["created_records"][0]["id"]
    out = _capture(
        client,
        {"Authorization": "Bearer low-writer-key"},
        source_kind="event",
        content={"entities": ["vault"]},
    )
    assert len(out["created_records"]) == 1 and hidden not in str(out)


# -- 4. concurrent captures naming the same entities create each once -------------------


def test_concurrent_captures_create_one_entity_per_name(db_url: str) -> None:
    names = [f"Person {i}" for i in range(10)]

    def capture(i: int) -> int:
        mentioned = names[i % 10 :] + names[: i % 10]  # every order of overlap
        body = {"source_kind": "event", "source": f"c{i}", "content": {"entities": mentioned}}
        with httpx.Client(base_url=url, timeout=60) as http:
            for _ in range(20):
                r = http.post("/v1/capture", json=body, headers=W)
                if r.status_code != 503:
                    return r.status_code
                time.sleep(float(r.headers["retry-after"]) / 4)
        return r.status_code

    with live_server(make_settings(db_url)) as url, ThreadPoolExecutor(64) as pool:
        codes = list(pool.map(capture, range(64)))
        listing = httpx.get(
            f"{url}/v1/records", params={"type": "entity", "limit": 500}, headers=A
        ).json()
    assert codes == [201] * 64
    counts = Counter(r["payload"]["canonical_name"] for r in listing["items"])
    assert counts == dict.fromkeys(names, 1)
