"""docs/clients.md as written (issue 33): its two `mcpServers` configurations, given to the
MCP SDK's own client exactly as a host would use them (stdio: the `membrane` command with
its arguments and environment; streamable HTTP: the URL and its Authorization header),
list the tools, capture and retrieve against a live server; its typed-client example runs.
Only the placeholders change: the service's URL and the API key."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import KEYS, make_settings
from tests.live_support import live_server
from tests.test_mcp import TOOLS, ok

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "clients.md"
PLACEHOLDER_URL = "http://127.0.0.1:8080"
PLACEHOLDER_KEY = "YOUR_API_KEY"


@pytest.fixture
def sqlite_url(sqlite_template: Path, tmp_path: Path) -> str:
    target = tmp_path / "membrane.db"
    shutil.copyfile(sqlite_template, target)
    return f"sqlite:///{target}"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def servers(url: str, key: str) -> list[dict[str, Any]]:
    """The page's mcpServers entries, placeholders filled."""
    found = []
    for block in blocks("json"):
        filled = block.replace(PLACEHOLDER_URL, url).replace(PLACEHOLDER_KEY, key)
        found.append(json.loads(filled)["mcpServers"]["membrane"])
    return found


async def capture_and_retrieve(client: Client, summary: str) -> None:
    listed = await client.list_tools()
    assert {tool.name for tool in listed.tools} == TOOLS
    created = await ok(client, "ingest_event", {"source": "agent-7", "summary": summary})
    found = await ok(client, "retrieve", {"query": summary})
    assert created["primary_record"]["id"] in [i["record"]["id"] for i in found["items"]]


def test_both_mcp_configurations_connect_as_written(sqlite_url: str) -> None:
    with live_server(make_settings(sqlite_url)) as url:
        stdio, http = servers(url, KEYS["writer"][0])
        assert "type" not in stdio and http["type"] == "http"
        # The host finds `membrane` on its PATH: this environment's console script, running
        # this checkout's code.
        command = shutil.which(stdio["command"], path=str(Path(sys.executable).parent))
        assert command is not None, "the `membrane` console script is not installed"
        env = {**stdio["env"], "PYTHONPATH": str(ROOT)}
        spawned = StdioServerParameters(command=command, args=stdio["args"], env=env)

        async def scenario() -> None:
            async with Client(spawned) as client:
                await capture_and_retrieve(client, "Deployed billing over stdio")
            async with (
                httpx2.AsyncClient(headers=http["headers"], timeout=60) as transport,
                Client(streamable_http_client(http["url"], http_client=transport)) as client,
            ):
                await capture_and_retrieve(client, "Deployed search over streamable HTTP")

        anyio.run(scenario)


def test_the_typed_client_example_runs(sqlite_url: str, tmp_path: Path) -> None:
    (example,) = [b for b in blocks("python") if "membrane_client" in b]
    with live_server(make_settings(sqlite_url)) as url:
        script = tmp_path / "example.py"
        script.write_text(
            example.replace(PLACEHOLDER_URL, url).replace(PLACEHOLDER_KEY, KEYS["writer"][0])
        )
        env = {**os.environ, "PYTHONPATH": str(ROOT / "clients" / "python")}
        done = subprocess.run(
            [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120
        )
    assert done.returncode == 0, done.stderr[-4000:]
    lines = done.stdout.split("\n")
    assert lines[0] and float(lines[0].split()[0]) > 0, done.stdout
