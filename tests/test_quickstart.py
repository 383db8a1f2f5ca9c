"""The README's first ten minutes, as a newcomer follows them: its quickstart block, taken
from README.md and run by bash as written against `membrane serve` (what `make serve`
runs once installed) on a fresh SQLite file, in open mode and with a key made by the
README's own `membrane keys create` line; then its MCP Python snippet. The one line not
run is the block's `make serve &`: the test starts the server itself on a free port, and
the block's address is replaced by that port's."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fault_support import ROOT, START_TIMEOUT_S
from tests.live_support import free_port

README = ROOT / "README.md"
MEMBRANE = Path(sys.executable).parent / "membrane"
ADDRESS = "http://127.0.0.1:8080"
BLOCK_TIMEOUT_S = 180


def readme_block(marker: str) -> str:
    """The fenced block right after the comment `<!-- {marker}…`."""
    text = README.read_text(encoding="utf-8")
    start = text.index(f"<!-- {marker}")
    found = re.search(r"```\w*\n(.*?)```", text[start:], re.DOTALL)
    assert found, f"no code block after <!-- {marker}"
    return found.group(1)


def quickstart(base_url: str) -> str:
    lines = readme_block("quickstart").splitlines()
    assert lines[0] == "make serve &", lines[0]
    return "\n".join(lines[1:]).replace(ADDRESS, base_url) + "\n"


def json_documents(text: str) -> list[Any]:
    """The JSON documents printed one after another (curl adds no newline of its own)."""
    decoder, at = json.JSONDecoder(), 0
    docs: list[Any] = []
    while True:
        start = text.find("{", at)
        if start < 0 or text[at:start].strip().startswith("Now open"):
            return docs
        doc, at = decoder.raw_decode(text, start)
        docs.append(doc)


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMBRANE")}
    return env | {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"} | extra


@contextmanager
def served(tmp_path: Path, **settings: str) -> Iterator[str]:
    """`membrane serve` with its default settings but for the database file and port."""
    port = free_port()
    env = clean_env(
        MEMBRANE_DATABASE_URL=f"sqlite:///{tmp_path / 'membrane.db'}",
        MEMBRANE_PORT=str(port),
        **settings,
    )
    with (tmp_path / "serve.log").open("wb") as log:
        proc = subprocess.Popen([str(MEMBRANE), "serve"], cwd=tmp_path, env=env,
                                stdout=log, stderr=subprocess.STDOUT)  # fmt: skip
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(START_TIMEOUT_S)


def run_bash(script: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=BLOCK_TIMEOUT_S)  # fmt: skip


def check_quickstart(base_url: str, env: dict[str, str]) -> None:
    done = run_bash(quickstart(base_url), env)
    assert done.returncode == 0, done.stdout + done.stderr
    captured, retrieved = json_documents(done.stdout)
    types = {captured["primary_record"]["type"]} | {r["type"] for r in captured["created_records"]}
    assert types == {"episodic", "entity", "semantic"}
    ids = {captured["primary_record"]["id"]} | {r["id"] for r in captured["created_records"]}
    found = [item["record"]["id"] for item in retrieved["items"]]
    assert found and set(found) <= ids, retrieved
    assert done.stdout.rstrip().splitlines()[-1] == (
        f"Now open {base_url}/ui to browse what it remembers (API docs: {base_url}/docs)."
    )
    for page in ("/ui", "/docs"):
        answer = httpx.get(base_url + page, follow_redirects=True)
        assert answer.status_code == 200 and "text/html" in answer.headers["content-type"]


def check_mcp_snippet(base_url: str, env: dict[str, str]) -> None:
    done = subprocess.run([sys.executable, "-c", readme_block("mcp-python")], cwd=ROOT,
                          env=env | {"MEMBRANE": base_url}, capture_output=True, text=True,
                          timeout=BLOCK_TIMEOUT_S)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Acme" in done.stdout  # the fact captured by the quickstart, found over MCP


def test_the_readme_is_short_and_shows_a_retrieve_on_its_first_screen() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300
    assert any("/v1/retrieve" in line for line in lines[:60])


def test_the_quickstart_runs_as_written_in_open_mode(tmp_path: Path) -> None:
    with served(tmp_path) as base_url:
        check_quickstart(base_url, clean_env())
        check_mcp_snippet(base_url, clean_env())


def test_the_quickstart_runs_as_written_with_a_key(tmp_path: Path) -> None:
    # The README's own line makes the key: `eval "$(.venv/bin/membrane keys create …)"`.
    make_key = readme_block("keys").splitlines()[0]
    assert make_key.startswith('eval "$(.venv/bin/membrane keys create'), make_key
    script = make_key.replace(".venv/bin/membrane", str(MEMBRANE))
    made = run_bash(script + ' && printf "%s\\n%s" "$MEMBRANE_API_KEY" "$MEMBRANE_API_KEYS"',
                    clean_env())  # fmt: skip
    assert made.returncode == 0, made.stderr
    key, keys = made.stdout.split("\n")
    with served(tmp_path, MEMBRANE_API_KEYS=keys) as base_url:
        without = run_bash(quickstart(base_url), clean_env())  # the key forgotten
        refusals = json_documents(without.stdout)
        assert [problem["status"] for problem in refusals] == [401, 401], without.stdout
        assert all("Authorization: Bearer" in problem["detail"] for problem in refusals)
        check_quickstart(base_url, clean_env(MEMBRANE_API_KEY=key))
        check_mcp_snippet(base_url, clean_env(MEMBRANE_API_KEY=key))


@pytest.mark.parametrize("marker", ["quickstart", "keys", "mcp-python"])
def test_every_block_the_tests_run_is_marked_in_the_readme(marker: str) -> None:
    assert readme_block(marker).strip()
