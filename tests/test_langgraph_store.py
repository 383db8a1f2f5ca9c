"""The LangGraph store (membrane_langgraph, issue 33) against a live Membrane server on both
stores: every BaseStore operation sync and async (get, put, delete, search with and
without a query, list_namespaces, batch and abatch), what each leaves in Membrane (scopes,
superseded versions, decay), API keys and trust narrowing, TTL through decay and the
sweep, and a put whose answer is lost on the way back retried under its Idempotency-Key."""

from __future__ import annotations

import ast
import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph.store.base import GetOp, ListNamespacesOp, Op, PutOp, SearchOp

from membrane_langgraph import MembraneError, MembraneStore
from tests.conftest import KEYS, make_settings
from tests.live_support import live_server

ALICE = ("users", "alice", "preferences")
BOB = ("users", "bob", "preferences")


@pytest.fixture
def base(db_url: str) -> Iterator[str]:
    with live_server(make_settings(db_url)) as url:
        yield url


def store(base: str, who: str = "writer", **options: Any) -> MembraneStore:
    return MembraneStore(base, api_key=KEYS[who][0], **options)


def rest(base: str, method: str, path: str, **kwargs: Any) -> Any:
    headers = {"Authorization": f"Bearer {KEYS['admin'][0]}"}
    answer = httpx.request(method, base + path, headers=headers, **kwargs)
    assert answer.status_code in (200, 201), answer.text
    return answer.json()


def versions(base: str, key: str) -> list[dict[str, Any]]:
    """Every record of `key` in Membrane, newest first, whatever its status."""
    page = rest(base, "GET", "/v1/records", params={"tag": f"lg-key:{key}", "limit": 500})
    return list(page["items"])


def test_put_get_and_update_keep_history(base: str) -> None:
    with store(base) as memory:
        assert memory.get(ALICE, "style") is None
        memory.put(ALICE, "style", {"answers": "short", "language": "French"})
        first = memory.get(ALICE, "style")
        assert first is not None and first.value == {"answers": "short", "language": "French"}
        assert (first.namespace, first.key) == (ALICE, "style")
        memory.put(ALICE, "style", {"answers": "detailed", "language": "French"})
        second = memory.get(ALICE, "style")
        assert second is not None and second.value["answers"] == "detailed"
        assert second.created_at == first.created_at and second.updated_at > first.updated_at
        assert memory.get(BOB, "style") is None  # another namespace, another scope
    stored = versions(base, "style")
    assert [r["status"] for r in stored] == ["active", "superseded"]
    assert {r["scope"] for r in stored} == {"users.alice.preferences"}
    current = stored[0]
    assert current["type"] == "semantic" and current["payload"]["subject"] == "style"
    assert current["lifecycle"]["deletion_policy"] == "manual_only"
    audit = rest(base, "GET", f"/v1/records/{stored[1]['id']}/audit")["items"]
    assert "supersede" in [entry["action"] for entry in audit]


def test_delete_removes_every_version(base: str) -> None:
    with store(base) as memory:
        memory.put(ALICE, "style", {"answers": "short"})
        memory.put(ALICE, "style", {"answers": "long"})
        memory.put(ALICE, "food", {"likes": "pasta"})
        memory.delete(ALICE, "style")
        assert memory.get(ALICE, "style") is None
        assert [i.key for i in memory.search(ALICE)] == ["food"]
        memory.batch([PutOp(ALICE, "food", None)])  # a put of None deletes too
        assert memory.search(ALICE) == []
        memory.delete(ALICE, "never-there")
    assert versions(base, "style") == [] and versions(base, "food") == []


def test_search_with_a_query_ranks_through_retrieve(base: str) -> None:
    with store(base) as memory:
        memory.put(ALICE, "style", {"text": "prefers short answers in French", "rank": 1})
        memory.put(ALICE, "food", {"text": "likes mushroom risotto", "rank": 2})
        memory.put(ALICE, "travel", {"text": "flies to Lisbon in June", "rank": 3})
        memory.put(BOB, "food", {"text": "likes mushroom soup", "rank": 4})
        found = memory.search(ALICE, query="mushroom risotto")
        assert found[0].key == "food" and found[0].namespace == ALICE
        assert found[0].score is not None and found[0].score > 0
        everywhere = memory.search(("users",), query="mushroom")
        assert {i.namespace for i in everywhere} == {ALICE, BOB}
        assert [i.namespace for i in memory.search(("users", "bob"), query="mushroom")] == [BOB]
        ranked = memory.search(("users",), query="likes mushroom", filter={"rank": {"$gte": 3}})
        assert [(i.namespace, i.key) for i in ranked] == [(BOB, "food")]
        two = memory.search(("users",), query="likes mushroom", limit=1)
        after = memory.search(("users",), query="likes mushroom", limit=1, offset=1)
        assert len(two) == len(after) == 1 and two[0].namespace != after[0].namespace


def test_search_without_a_query_lists_newest_first(base: str) -> None:
    with store(base) as memory:
        for n in range(5):
            memory.put(ALICE, f"note-{n}", {"n": n, "even": n % 2 == 0})
        memory.put(BOB, "note-9", {"n": 9, "even": False})
        listed = memory.search(ALICE)
        assert [i.key for i in listed] == [f"note-{n}" for n in (4, 3, 2, 1, 0)]
        assert all(i.score is None for i in listed)
        assert [i.key for i in memory.search(ALICE, limit=2, offset=1)] == ["note-3", "note-2"]
        evens = memory.search(("users",), filter={"even": True})
        assert [i.value["n"] for i in evens] == [4, 2, 0]
        assert [i.value["n"] for i in memory.search(("users",), filter={"n": {"$gt": 3}})] == [
            9,
            4,
        ]
        assert [i.key for i in memory.search(("users",), filter={"n": {"$ne": 9}}, limit=1)] == [
            "note-4"
        ]


def test_list_namespaces_are_the_scopes(base: str) -> None:
    with store(base) as memory:
        for namespace in (ALICE, BOB, ("users", "alice", "notes"), ("teams", "ops", "runbooks")):
            memory.put(namespace, "k", {"v": 1})
        assert memory.list_namespaces() == sorted(
            [ALICE, BOB, ("users", "alice", "notes"), ("teams", "ops", "runbooks")]
        )
        assert memory.list_namespaces(prefix=("users", "alice")) == [
            ("users", "alice", "notes"),
            ALICE,
        ]
        assert memory.list_namespaces(suffix=("preferences",)) == [ALICE, BOB]
        assert memory.list_namespaces(prefix=("users", "*", "preferences")) == [ALICE, BOB]
        assert memory.list_namespaces(max_depth=2) == [
            ("teams", "ops"),
            ("users", "alice"),
            ("users", "bob"),
        ]
        assert memory.list_namespaces(limit=1, offset=1) == [("users", "alice", "notes")]
    scopes = {
        r["scope"] for r in rest(base, "GET", "/v1/records", params={"tag": "langgraph"})["items"]
    }
    assert scopes == {
        "users.alice.preferences",
        "users.bob.preferences",
        "users.alice.notes",
        "teams.ops.runbooks",
    }


BATCH: list[Op] = [
    PutOp(ALICE, "style", {"answers": "short"}),
    PutOp(BOB, "style", {"answers": "long"}),
    GetOp(ALICE, "style"),
    SearchOp(("users",), query="answers long"),
    ListNamespacesOp(max_depth=2),
    PutOp(BOB, "style", None),
    GetOp(BOB, "style"),
]


def check_batch(results: list[Any]) -> None:
    assert results[:2] == [None, None]
    assert results[2].value == {"answers": "short"}
    assert results[3][0].namespace == BOB  # the batch's earlier puts are seen
    assert results[4] == [("users", "alice"), ("users", "bob")]
    assert results[5:] == [None, None]


def test_batch_runs_every_kind_of_op_in_order(base: str) -> None:
    with store(base) as memory:
        check_batch(memory.batch(BATCH))


def test_abatch_and_the_async_methods(base: str) -> None:
    async def session() -> None:
        async with store(base) as memory:
            check_batch(await memory.abatch(BATCH))
            await memory.aput(ALICE, "food", {"likes": "risotto"})
            item = await memory.aget(ALICE, "food")
            assert item is not None and item.value == {"likes": "risotto"}
            found = await memory.asearch(ALICE, query="risotto")
            assert [i.key for i in found] == ["food"]
            assert await memory.alist_namespaces(prefix=("users",)) == [ALICE]
            await memory.adelete(ALICE, "food")
            assert await memory.aget(ALICE, "food") is None

    asyncio.run(session())


def test_keys_and_trust_narrowing_are_carried(base: str) -> None:
    with store(base) as memory:
        memory.put(ALICE, "style", {"answers": "short"})
        memory.put(BOB, "style", {"answers": "long"})
        memory.put(ALICE, "salary", {"amount": 1}, index=False)
    with store(base, sensitivity="high") as secret:
        secret.put(ALICE, "diagnosis", {"text": "confidential"})
    with store(base, scopes=["users.alice.preferences"]) as alice_only:
        assert alice_only.list_namespaces() == [ALICE]
        assert alice_only.get(BOB, "style") is None
        assert {i.key for i in alice_only.search(("users",))} == {"style", "salary", "diagnosis"}
        with pytest.raises(MembraneError) as refused:
            alice_only.put(BOB, "style", {"answers": "hijacked"})
        assert refused.value.status in (403, 404)
    with store(base, max_sensitivity="low") as low:
        assert low.get(ALICE, "diagnosis") is None
        assert "diagnosis" not in {i.key for i in low.search(ALICE)}
    with store(base, "reader") as reader:
        assert reader.get(ALICE, "style") is not None
        with pytest.raises(MembraneError) as forbidden:
            reader.put(ALICE, "style", {"answers": "none"})
        assert forbidden.value.status == 403
    with MembraneStore(base, api_key="not-a-key") as stranger, pytest.raises(MembraneError) as no:
        stranger.get(ALICE, "style")
    assert no.value.status == 401
    with store(base) as memory:
        assert memory.get(BOB, "style").value == {"answers": "long"}  # type: ignore[union-attr]


def test_ttl_is_decay_refreshed_by_reads_and_pruned_by_the_sweep(base: str) -> None:
    ttl_s = 4.0
    with store(base, ttl={"refresh_on_read": True, "omit_expired": True}) as memory:
        memory.put(ALICE, "short-lived", {"v": 1}, ttl=ttl_s / 60)
        memory.put(ALICE, "kept", {"v": 2})
        (record,) = versions(base, "short-lived")
        decay = record["lifecycle"]["decay"]
        assert decay["curve"] == "linear" and decay["half_life_seconds"] == ttl_s / 2
        assert record["lifecycle"]["deletion_policy"] == "auto_prune"
        time.sleep(ttl_s * 0.6)
        assert memory.get(ALICE, "short-lived") is not None  # a read refreshes the TTL
        audit = rest(base, "GET", f"/v1/records/{record['id']}/audit")["items"]
        assert "reinforce" in [entry["action"] for entry in audit]
        time.sleep(ttl_s * 0.6)  # past the first TTL, inside the refreshed one
        assert memory.get(ALICE, "short-lived", refresh_ttl=False) is not None
        time.sleep(ttl_s * 0.6)
        assert memory.get(ALICE, "short-lived") is None  # expired: omitted before the sweep
        assert len(versions(base, "short-lived")) == 1
    rest(base, "POST", "/v1/jobs/decay/run")
    assert versions(base, "short-lived") == []
    with store(base) as memory:
        assert memory.get(ALICE, "kept") is not None  # no TTL: never pruned


class LosesFirstWriteAnswer(httpx.HTTPTransport):
    """Sends every request to the real server, but the first write's answer never comes
    back: the connection drops after the server has committed it."""

    def __init__(self) -> None:
        super().__init__()
        self.lost: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if request.method == "POST" and not self.lost:
            response.read()
            response.close()
            self.lost.append(request.headers["Idempotency-Key"])
            raise httpx.ReadError("connection dropped before the answer", request=request)
        return response


def test_a_lost_answer_is_retried_under_the_same_idempotency_key(base: str) -> None:
    transport = LosesFirstWriteAnswer()
    with store(base, transport=transport) as memory:
        memory.put(ALICE, "style", {"answers": "short"})
        assert len(transport.lost) == 1 and transport.lost[0].startswith("langgraph-")
        assert memory.get(ALICE, "style") is not None
    assert len(versions(base, "style")) == 1  # the retry replayed, it did not write again


def test_the_store_imports_nothing_of_the_service() -> None:
    """An HTTP client: installing the extra must be enough, no server module is reached."""
    package = Path(__file__).resolve().parents[1] / "membrane_langgraph"
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:
                continue
            assert not [m for m in modules if m == "app" or m.startswith("app.")], path
