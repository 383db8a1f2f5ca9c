"""MCP (issue 14): the SDK's own client against the service's /mcp (streamable HTTP) and
against `python -m app.mcp` (stdio), both talking to a live server. Every tool call is a
REST call as the caller, so keys, trust, scopes, rate limits and load shedding are REST's:
these tests compare what MCP answers with what REST answers, and count database rows."""

from __future__ import annotations

import ast
import json
import shutil
import socket
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx
import httpx2
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import ReadResourceResult, TextContent, TextResourceContents
from sqlalchemy import text

from app.db import Database
from tests.conftest import KEYS, auth, make_settings
from tests.live_support import live_server

ROOT = Path(__file__).resolve().parents[1]
TOOLS = {
    "capture_memory",
    "capture_batch",
    "ingest_event",
    "ingest_tool_output",
    "ingest_observation",
    "ingest_working_state",
    "ingest_episode",
    "ingest_outcome",
    "retrieve",
    "retrieve_graph",
    "get_record",
    "reinforce_record",
    "penalize_record",
    "supersede_record",
    "fork_record",
    "retract_record",
    "contest_record",
    "merge_records",
    "forget_records",
}
FACT = {
    "source": "agent-7",
    "source_kind": "observation",
    "content": {"subject": "Alice", "predicate": "works_at", "object": "Acme"},
    "summary": "Alice works at Acme",
}
# Values that change between two reads of the same record (decay runs on).
TIME_VARYING = {"salience", "score", "components"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


@pytest.fixture
def sqlite_url(sqlite_template: Path, tmp_path: Path) -> str:
    target = tmp_path / "membrane.db"
    shutil.copyfile(sqlite_template, target)
    return f"sqlite:///{target}"


@asynccontextmanager
async def http_session(url: str, headers: dict[str, str]) -> AsyncIterator[Client]:
    """An MCP session over streamable HTTP at the service's /mcp."""
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(url + "/mcp", http_client=http)) as client,
    ):
        yield client


def stdio_session(url: str, key: str, *extra: str) -> Client:
    """An MCP session with `python -m app.mcp` spawned against `url`."""
    args = ["-m", "app.mcp", "--url", url, "--api-key", key, *extra]
    return Client(StdioServerParameters(command=sys.executable, args=args, cwd=str(ROOT)))


def key_of(name: str) -> str:
    return KEYS[name][0]


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    result = await client.call_tool(tool, arguments)
    assert isinstance(result.structured_content, dict), result.content
    return result.is_error, result.structured_content


async def ok(client: Client, tool: str, arguments: dict[str, Any]) -> Any:
    is_error, body = await call(client, tool, arguments)
    assert not is_error, body
    return body


async def refused(client: Client, tool: str, arguments: dict[str, Any], status: int) -> Any:
    """The tool error carries REST's problem: status, title, detail."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    problem = result.structured_content
    assert isinstance(problem, dict) and problem["status"] == status, problem
    text_block = result.content[0]
    assert isinstance(text_block, TextContent)
    assert text_block.text.startswith(f"{status} {problem['title']}")
    return problem


def resource_json(read: ReadResourceResult) -> Any:
    content = read.contents[0]
    assert isinstance(content, TextResourceContents)
    assert content.mime_type == "application/json"
    return json.loads(content.text)


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    anyio.run(scenario)


def stable(body: Any) -> Any:
    """`body` without the values decay moves between two reads."""
    if isinstance(body, dict):
        return {k: stable(v) for k, v in body.items() if k not in TIME_VARYING}
    if isinstance(body, list):
        return [stable(item) for item in body]
    return body


def count(db_url: str, table: str) -> int:
    database = Database(db_url)
    try:
        with database.read_transaction() as session:
            return int(session.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())
    finally:
        database.dispose()


def rows(db_url: str) -> dict[str, int]:
    tables = ("records", "relations", "audit_log", "idempotency_keys")
    return {table: count(db_url, table) for table in tables}


def test_streamable_http_session_captures_and_retrieves(db_url: str) -> None:
    with live_server(make_settings(db_url)) as url:
        captured: dict[str, Any] = {}

        async def scenario() -> None:
            async with http_session(url, auth("writer")) as client:
                listed = await client.list_tools()
                assert {tool.name for tool in listed.tools} == TOOLS
                for tool in listed.tools:
                    assert tool.description and tool.input_schema["type"] == "object"
                    undescribed = [
                        name
                        for name, field in tool.input_schema["properties"].items()
                        if not field.get("description")
                    ]
                    assert not undescribed, (tool.name, undescribed)
                arguments = {**FACT, "tags": '["hr"]', "idempotency_key": "mcp-1"}
                captured.update(await ok(client, "capture_memory", arguments))
                replay = await ok(client, "capture_memory", arguments)
                assert replay == captured  # the same key: answered again, written once
                primary = captured["primary_record"]
                assert primary["tags"] == ["hr"]  # an array sent as a JSON string
                found = await ok(client, "retrieve", {"query": "Where does Alice work?"})
                assert primary["id"] in [item["record"]["id"] for item in found["items"]]
                record = await ok(client, "get_record", {"record_id": primary["id"]})
                read = await client.read_resource(f"membrane://records/{primary['id']}")
                assert stable(resource_json(read)) == stable(record)
                fact = next(r for r in captured["created_records"] if r["type"] == "semantic")
                await ok(client, "reinforce_record", {"record_id": fact["id"], "rationale": "ok"})

        run(scenario)
        # One capture's rows, the replay wrote nothing; the trail names the key's actor.
        assert count(db_url, "records") == 1 + len(captured["created_records"])
        fact = next(r for r in captured["created_records"] if r["type"] == "semantic")
        trail = httpx.get(f"{url}/v1/records/{fact['id']}/audit", headers=auth("admin")).json()
        assert [(e["action"], e["actor"]) for e in trail["items"]] == [
            ("create", "writer"),
            ("reinforce", "writer"),
        ]


def test_stdio_session_captures_and_retrieves(sqlite_url: str) -> None:
    with live_server(make_settings(sqlite_url)) as url:
        event = {
            "source": "agent-7",
            "summary": "Deployed the billing service to staging",
            "event_kind": "deploy",
        }

        async def scenario() -> None:
            async with stdio_session(url, key_of("writer")) as client:
                listed = await client.list_tools()
                assert {tool.name for tool in listed.tools} == TOOLS
                created = await ok(client, "ingest_event", event)
                record_id = created["primary_record"]["id"]
                found = await ok(client, "retrieve", {"query": "billing staging deploy"})
                assert record_id in [item["record"]["id"] for item in found["items"]]
                before = rows(sqlite_url)
                await refused(client, "ingest_event", {"source": "agent-7"}, 422)
                assert rows(sqlite_url) == before
                over_rest = httpx.get(f"{url}/v1/records/{record_id}", headers=auth("writer"))
                record = await ok(client, "get_record", {"record_id": record_id})
                assert stable(record) == stable(over_rest.json())
                assert record["provenance"]["created_by"] == "writer"
            async with stdio_session(url, "not-a-key") as client:
                problem = await refused(client, "retrieve", {"query": "billing"}, 401)
                assert problem["type"].endswith("/unauthorized")

        run(scenario)


def _seed(url: str) -> dict[str, str]:
    """Records at every sensitivity and in two scopes, written over REST as admin."""
    ids: dict[str, str] = {}
    spots = [
        ("public", "public", None),
        ("low", "low", None),
        ("medium", "medium", None),
        ("high", "high", None),
        ("team-a", "low", "team-a"),
        ("team-b", "low", "team-b"),
    ]
    with httpx.Client(base_url=url, headers=auth("admin")) as http:
        for label, sensitivity, scope in spots:
            body = {
                "source": "seed",
                "source_kind": "event",
                "content": f"zebra sighting {label}",
                "summary": f"zebra sighting {label}",
                "sensitivity": sensitivity,
                **({"scope": scope} if scope else {}),
            }
            answer = http.post("/v1/capture", json=body)
            assert answer.status_code == 201, answer.text
            ids[label] = answer.json()["primary_record"]["id"]
    return ids


async def _same_as_rest(client: Client, url: str, headers: dict[str, str], ids: list[str]) -> None:
    """Retrieve and every get_record / resource read answer what REST answers."""
    query = {"query": "zebra sighting", "limit": 50}
    rest = httpx.post(f"{url}/v1/retrieve", json=query, headers=headers)
    assert rest.status_code == 200
    over_mcp = await ok(client, "retrieve", query)
    assert stable(over_mcp) == stable(rest.json())
    for record_id in ids:
        answer = httpx.get(f"{url}/v1/records/{record_id}", headers=headers)
        is_error, body = await call(client, "get_record", {"record_id": record_id})
        if answer.status_code == 200:
            assert not is_error and stable(body) == stable(answer.json())
            read = await client.read_resource(f"membrane://records/{record_id}")
            assert stable(resource_json(read)) == stable(body)
            continue
        assert is_error and body["status"] == answer.status_code
        assert body["detail"] == answer.json()["detail"]
        with pytest.raises(MCPError) as raised:
            await client.read_resource(f"membrane://records/{record_id}")
        assert raised.value.data["status"] == answer.status_code


def test_low_ceiling_keys_see_over_mcp_what_they_see_over_rest(sqlite_url: str) -> None:
    with live_server(make_settings(sqlite_url)) as url:
        ids = _seed(url)
        callers = [
            auth("reader"),  # ceiling low: medium redacted, high hidden
            auth("medium"),
            auth("team_a"),  # scopes [team-a]: team-b hidden
            {**auth("medium"), "X-Membrane-Max-Sensitivity": "public"},  # narrowed
        ]

        async def scenario() -> None:
            for headers in callers:
                async with http_session(url, headers) as client:
                    await _same_as_rest(client, url, headers, list(ids.values()))
            async with stdio_session(url, key_of("reader")) as client:
                await _same_as_rest(client, url, auth("reader"), list(ids.values()))
            narrowed = ["--max-sensitivity", "public", "--scopes", "team-a"]
            async with stdio_session(url, key_of("medium"), *narrowed) as client:
                headers = {
                    **auth("medium"),
                    "X-Membrane-Max-Sensitivity": "public",
                    "X-Membrane-Scopes": "team-a",
                }
                await _same_as_rest(client, url, headers, list(ids.values()))

        run(scenario)
        # What the reader saw, spelled out: low in full, medium redacted, high absent.
        seen = httpx.post(
            f"{url}/v1/retrieve", json={"query": "zebra sighting"}, headers=auth("reader")
        ).json()
        view = {item["record"]["id"]: item["record"]["redacted"] for item in seen["items"]}
        assert view[ids["low"]] is False and view[ids["medium"]] is True
        assert ids["high"] not in view


def test_mcp_over_http_needs_a_valid_key(sqlite_url: str) -> None:
    with live_server(make_settings(sqlite_url)) as url:
        for headers in ({}, {"Authorization": "Bearer wrong-key"}, {"Authorization": "Basic x"}):
            answer = httpx.post(f"{url}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **headers})
            assert answer.status_code == 401
            assert answer.headers["content-type"] == "application/problem+json"
            assert answer.headers["www-authenticate"].startswith("Bearer")
            assert answer.json()["type"].endswith("/unauthorized")
        accepted = httpx.post(
            f"{url}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **auth("reader")}
        )
        assert accepted.status_code == 200
        assert accepted.json()["result"]["serverInfo"]["name"] == "membrane"

        async def wrong_key() -> None:
            async with http_session(url, {"Authorization": "Bearer wrong-key"}):
                pass

        with pytest.raises(ExceptionGroup) as raised:
            run(wrong_key)
        assert raised.value.subgroup(MCPError) is not None
    # Open mode (no keys, loopback only): no key needed, the caller is anonymous.
    with live_server(make_settings(sqlite_url, api_keys=[])) as url:

        async def anonymous() -> None:
            async with http_session(url, {}) as client:
                created = await ok(client, "capture_memory", FACT)
                assert created["primary_record"]["provenance"]["created_by"] == "anonymous"

        run(anonymous)
        # Open mode serves loopback names only: a rebound name or a page elsewhere is refused.
        rebound = {**MCP_HEADERS, "Host": "attacker.example"}
        foreign = {**MCP_HEADERS, "Origin": "https://attacker.example"}
        assert httpx.post(f"{url}/mcp", json=INITIALIZE, headers=rebound).status_code == 421
        assert httpx.post(f"{url}/mcp", json=INITIALIZE, headers=foreign).status_code == 403
        local = {**MCP_HEADERS, "Origin": url}
        assert httpx.post(f"{url}/mcp", json=INITIALIZE, headers=local).status_code == 200


def test_bad_input_is_a_tool_error_and_writes_nothing(sqlite_url: str) -> None:
    with live_server(make_settings(sqlite_url)) as url:
        target = httpx.post(f"{url}/v1/capture", json=FACT, headers=auth("writer")).json()
        target_id = target["primary_record"]["id"]

        async def scenario() -> None:
            before = rows(sqlite_url)
            async with http_session(url, auth("writer")) as client:
                bad_kind = await refused(
                    client, "capture_memory", {**FACT, "source_kind": "dream"}, 422
                )
                assert [e["loc"] for e in bad_kind["errors"]] == [["body", "source_kind"]]
                await refused(client, "capture_memory", {"source_kind": "event"}, 422)
                await refused(client, "capture_memory", {**FACT, "surprise": 1}, 422)
                await refused(client, "penalize_record", {"record_id": target_id, "amount": 5}, 422)
                await refused(client, "retract_record", {"rationale": "no id"}, 422)
                extra = await refused(client, "get_record", {"record_id": target_id, "x": 1}, 422)
                assert extra["errors"][0]["loc"] == ["body", "x"]
                await refused(
                    client, "retract_record", {"record_id": "nope", "rationale": "x"}, 404
                )
                await refused(client, "merge_records", {"ids": [target_id], "rationale": "x"}, 422)
                batch = await ok(client, "capture_batch", {"items": [{"source": "x"}]})
                assert (batch["created"], batch["failed"]) == (0, 1)
                assert batch["results"][0]["problem"]["status"] == 422
            async with http_session(url, auth("reader")) as client:  # read-only key
                await refused(client, "capture_memory", FACT, 403)
                await refused(client, "reinforce_record", {"record_id": target_id}, 403)
            assert rows(sqlite_url) == before

        run(scenario)


def test_every_mcp_request_is_charged_and_shares_the_rest_bucket(sqlite_url: str) -> None:
    limited = {"enabled": True, "requests_per_second": 0.01, "burst": 3}
    with live_server(make_settings(sqlite_url, rate_limit=limited)) as url:
        writer = {**MCP_HEADERS, **auth("writer")}
        answers = [httpx.post(f"{url}/mcp", json=INITIALIZE, headers=writer) for _ in range(4)]
        assert [r.status_code for r in answers] == [200, 200, 200, 429]
        assert answers[-1].json()["type"].endswith("/rate-limited")
        assert int(answers[-1].headers["retry-after"]) >= 1
        # One bucket per principal, whichever door it used.
        assert httpx.post(f"{url}/v1/retrieve", json={}, headers=auth("writer")).status_code == 429
        assert httpx.post(f"{url}/v1/retrieve", json={}, headers=auth("admin")).status_code == 200
        # Requests without a valid key draw from their address's bucket, at /mcp as on /v1.
        wrong = {**MCP_HEADERS, "Authorization": "Bearer wrong-key"}
        statuses = [
            httpx.post(f"{url}/mcp", json=INITIALIZE, headers=wrong).status_code for _ in range(4)
        ]
        assert statuses == [401, 401, 401, 429]
        assert httpx.post(f"{url}/v1/retrieve", json={}).status_code == 429


def test_a_tool_call_costs_one_token_not_two(sqlite_url: str) -> None:
    """initialize, initialized and one tool call: three /mcp requests, three tokens; the
    REST call the tool makes in process is part of its /mcp request."""
    limited = {"enabled": True, "requests_per_second": 0.01, "burst": 3}
    with live_server(make_settings(sqlite_url, rate_limit=limited)) as url:

        async def scenario() -> None:
            async with http_session(url, auth("writer")) as client:
                await ok(client, "retrieve", {"query": "anything"})

        run(scenario)
        assert httpx.post(f"{url}/v1/retrieve", json={}, headers=auth("writer")).status_code == 429


def test_mcp_offers_no_stream_and_bounds_requests_per_principal(sqlite_url: str) -> None:
    capacity = {"mcp_max_per_principal": 1, "mcp_max_in_flight": 2}
    with live_server(make_settings(sqlite_url, capacity=capacity)) as url:
        r = httpx.get(f"{url}/mcp", headers={**MCP_HEADERS, **auth("writer")})
        assert r.status_code == 405 and r.headers["allow"] == "POST"
        held = _hold_an_mcp_request(url, "writer")
        try:
            busy = httpx.post(
                f"{url}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **auth("writer")}
            )
            assert busy.status_code == 503 and busy.headers["retry-after"] == "1"
            other = httpx.post(
                f"{url}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **auth("admin")}
            )
            assert other.status_code == 200  # another principal still gets its turn
            held_too = _hold_an_mcp_request(url, "admin")
            try:  # two in flight: the total is reached for everyone
                third = httpx.post(
                    f"{url}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **auth("team_a")}
                )
                assert third.status_code == 503
            finally:
                held_too.close()
        finally:
            held.close()
        deadline = time.monotonic() + 10
        while True:  # the held requests end when their connections close
            again = httpx.post(
                f"{url}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **auth("writer")}
            )
            if again.status_code == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert again.status_code == 200


def _hold_an_mcp_request(url: str, who: str) -> socket.socket:
    """An /mcp request that never sends its body: it stays in flight."""
    parts = urlsplit(url)
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {parts.netloc}\r\nAuthorization: Bearer {key_of(who)}\r\n"
        "Accept: application/json, text/event-stream\r\n"
        "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    )
    sock = socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80))
    sock.sendall(head.encode())
    time.sleep(0.3)
    return sock


def _hold_the_only_slot(url: str) -> socket.socket:
    """A /v1 request that has its turn and never sends its body. A request arriving
    while another has the turn is shed at once (answered): then try again."""
    parts = urlsplit(url)
    head = (
        "POST /v1/capture HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\n"
        "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    ).format(host=parts.netloc, key=key_of("admin"))
    for _ in range(50):
        sock = socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80))
        sock.sendall(head.encode())
        time.sleep(0.2)
        sock.setblocking(False)
        try:
            sock.recv(1)
        except BlockingIOError:  # no answer: it holds the turn, waiting for its body
            return sock
        sock.close()
    raise AssertionError("no request could take the only turn")


def test_load_shedding_applies_to_mcp_calls(sqlite_url: str) -> None:
    """The /mcp request itself is not shed; the REST call its tool makes is."""
    capacity = {"max_in_flight": 1, "max_queued": 0, "retry_after_s": 2}
    with live_server(make_settings(sqlite_url, capacity=capacity)) as url:

        async def served_again(client: Client) -> Any:
            deadline = time.monotonic() + 10
            while True:
                is_error, body = await call(client, "retrieve", {"query": "anything"})
                if not is_error or time.monotonic() > deadline:
                    return body
                await anyio.sleep(0.05)

        async def scenario() -> None:
            async with http_session(url, auth("writer")) as client:
                await ok(client, "retrieve", {"query": "anything"})
                holder = _hold_the_only_slot(url)
                try:
                    problem = await refused(client, "retrieve", {"query": "anything"}, 503)
                    assert problem["type"].endswith("/overloaded")
                    assert problem["retry_after"] == "2"
                finally:
                    holder.close()
                answer = await served_again(client)  # the turn is free again
                assert "items" in answer

        run(scenario)


def test_the_mcp_package_touches_no_database() -> None:
    """Every tool is a REST call: nothing in app/mcp reaches a session, model or SQL."""
    forbidden = ("sqlalchemy", "psycopg", "app.db", "app.models", "app.deps")
    for path in sorted((ROOT / "app" / "mcp").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert not name.startswith(forbidden), f"{path.name} imports {name}"
                assert not name.endswith("repository"), f"{path.name} imports {name}"
