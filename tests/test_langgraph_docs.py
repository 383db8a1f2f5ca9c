"""The example graph of docs/langgraph.md runs as written (issue 33): the block is taken
from the page and run as a script against a live server on both stores; the first thread
stores the preference, the second recalls it, and Membrane holds it as a semantic record
in the namespace's scope."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import httpx

from tests.conftest import KEYS, make_settings
from tests.live_support import live_server

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "langgraph.md"
EXPECTED = "Noted. / You prefer short answers in French."


def example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)
    (graph,) = [block for block in blocks if "StateGraph" in block]
    assert EXPECTED in graph  # the page says what it prints
    return str(graph)


def test_the_example_graph_remembers_across_threads(db_url: str, tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(example())
    with live_server(make_settings(db_url)) as base:
        env = {
            **os.environ,
            "MEMBRANE_URL": base,
            "MEMBRANE_API_KEY": KEYS["writer"][0],
            "PYTHONPATH": str(ROOT),  # this checkout's membrane_langgraph, installed or not
        }
        done = subprocess.run(
            [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr[-4000:]
        assert done.stdout.strip() == EXPECTED
        headers = {"Authorization": f"Bearer {KEYS['admin'][0]}"}
        params = {"tag": "langgraph"}
        items = httpx.get(f"{base}/v1/records", params=params, headers=headers).json()["items"]
    assert [(r["type"], r["scope"]) for r in items] == [("semantic", "users.alice.preferences")]
    assert items[0]["payload"]["object"] == {"preference": "short answers in French"}
