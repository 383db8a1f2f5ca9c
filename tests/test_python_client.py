"""The typed Python client users install (issue 33): clients/python, package
`membrane_client`, generated from the OpenAPI document by the pinned openapi-python-client
(clients/generate_python.py) and committed.

- Drift: generating it again from the app's document gives the committed files byte for
  byte (the document, openapi.json, included); a change to the API that is not
  regenerated fails here, naming the files.
- Installed: `pip install ./clients/python` in a fresh virtualenv, and that interpreter runs
  an agent's session (tests/client_scenario.py: capture, ingest, retrieve, graph, every
  revision, salience, audit, metrics, jobs) against a live server on both stores.
- Typed: `mypy --strict` passes on the package and the scenario."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import KEYS, make_settings
from tests.live_support import live_server
from tests.test_openapi_contract import TAGS

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "clients" / "python"
PACKAGE = CLIENT / "membrane_client"
SCENARIO = Path(__file__).with_name("client_scenario.py")
BIN = Path(sys.executable).parent


def run(command: list[str], cwd: Path, timeout: float = 600) -> str:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("PYTHONPATH", None)
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{command}\n{done.stdout[-6000:]}\n{done.stderr[-6000:]}"
    return done.stdout


def files(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts and ".ruff_cache" not in path.parts
    }


def test_the_committed_client_is_what_the_generator_makes(tmp_path: Path) -> None:
    pytest.importorskip("openapi_python_client", reason="`make install-dev` installs it")
    fresh = tmp_path / "python"
    run([sys.executable, str(ROOT / "clients" / "generate_python.py"), "--out", str(fresh)], ROOT)
    committed, generated = files(CLIENT), files(fresh)
    drifted = sorted(
        name
        for name in committed.keys() | generated.keys()
        if committed.get(name) != generated.get(name)
    )
    assert not drifted, f"run `python clients/generate_python.py`: {drifted[:20]}"
    modules = {p.name for p in (PACKAGE / "api").iterdir() if p.is_dir()}
    assert modules == set(TAGS), modules


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh virtualenv (no site packages) with `pip install ./clients/python` done; its
    interpreter."""
    venv = tmp_path_factory.mktemp("client-venv") / "venv"
    run([sys.executable, "-m", "venv", str(venv)], ROOT)
    python = venv / "bin" / "python"
    run([str(python), "-m", "pip", "install", "--quiet", str(CLIENT)], ROOT)
    where = "import membrane_client; print(membrane_client.__file__)"
    origin = run([str(python), "-c", where], ROOT)
    assert origin.startswith(str(venv)), origin  # the installed copy, not this checkout
    yield python
    shutil.rmtree(venv, ignore_errors=True)


def test_the_installed_client_runs_an_agent_session(
    installed: Path, db_url: str, tmp_path: Path
) -> None:
    # Without the inline setting that keeps the repository's own mypy run off the file.
    scenario = tmp_path / SCENARIO.name
    scenario.write_text(SCENARIO.read_text().replace("# mypy: ignore-errors\n", ""))
    with live_server(make_settings(db_url)) as base_url:
        out = run([str(installed), str(scenario), base_url, KEYS["admin"][0]], tmp_path)
    assert "scenario: ok" in out


def test_the_client_and_the_session_type_check(tmp_path: Path) -> None:
    scenario = tmp_path / SCENARIO.name
    scenario.write_text(SCENARIO.read_text().replace("# mypy: ignore-errors\n", ""))
    shutil.copytree(PACKAGE, tmp_path / PACKAGE.name)
    mypy = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / ".mypy")]
    run([*mypy, PACKAGE.name, SCENARIO.name], tmp_path)
