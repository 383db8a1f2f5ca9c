"""The `membrane` command (app/cli.py, the package's console script): every subcommand
answers --help; `keys create` makes a key that the service then accepts as the principal
it printed; `migrate` brings a new SQLite file to head; `serve` serves and stops on SIGTERM."""

from __future__ import annotations

import json
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from app.config import ApiPrincipal
from app.main import create_app
from app.migrate import head_revision, schema_revision
from app.security import hash_key
from tests.conftest import KEYS, auth, make_settings
from tests.fault_support import ROOT, START_TIMEOUT_S, service_env
from tests.live_support import free_port, live_server

MEMBRANE = Path(sys.executable).parent / "membrane"  # installed by `pip install -e .`


def run(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(MEMBRANE), *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT_S,
    )


@pytest.mark.parametrize(
    ("argv", "mentions"),
    [
        ([], ["serve", "worker", "migrate", "mcp", "export", "import", "keys"]),
        (["serve"], ["usage: membrane serve"]),
        (["worker"], ["usage: membrane worker"]),
        (["migrate"], ["upgrade", "downgrade"]),
        (["export"], ["--output", "--scope", "--type", "--embeddings", "--api-key"]),
        (["import"], ["file", "--url", "--api-key"]),
        (["keys", "create"], ["--actor", "--max-sensitivity", "--scope", "--role"]),
        (["mcp"], ["--url", "--api-key"]),
    ],
)
def test_every_command_answers_help(argv: list[str], mentions: list[str]) -> None:
    done = run(*argv, "--help")
    assert done.returncode == 0, done.stderr
    for word in mentions:
        assert word in done.stdout, (argv, word, done.stdout)


def test_an_unknown_command_is_refused_with_usage() -> None:
    done = run("bogus")
    assert done.returncode == 2
    assert "invalid choice: 'bogus'" in done.stderr


def keys_create(*argv: str, env: dict[str, str] | None = None) -> tuple[str, str, str]:
    """Pastes what `membrane keys create ARGV` prints into bash (as eval does): the
    MEMBRANE_API_KEY and MEMBRANE_API_KEYS it then holds, and what the command said on
    stderr."""
    command = shlex.join([str(MEMBRANE), "keys", "create", *argv])
    script = f'eval "$({command})" && printf "%s\\n%s" "$MEMBRANE_API_KEY" "$MEMBRANE_API_KEYS"'
    done = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env or {"PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=START_TIMEOUT_S)  # fmt: skip
    assert done.returncode == 0, done.stderr
    key, keys = done.stdout.split("\n")
    return key, keys, done.stderr


def test_keys_create_prints_exports_the_service_accepts_as_that_principal(
    tmp_path: Path,
) -> None:
    asked = ["--actor", "agent-7", "--max-sensitivity", "medium", "--scope", "team-x"]
    key, keys, said = keys_create(*asked, "--role", "read", "--role", "write")
    assert said == ""  # nothing was left to a default
    entries = [ApiPrincipal.model_validate(e) for e in json.loads(keys)]
    assert len(entries) == 1
    entry = entries[0]
    assert (entry.actor_id, entry.max_sensitivity.value) == ("agent-7", "medium")
    assert (entry.scopes, entry.roles) == (["team-x"], ["read", "write"])
    database = tmp_path / "keys.db"
    assert run("migrate", env=service_env(f"sqlite:///{database}")).returncode == 0
    settings = make_settings(f"sqlite:///{database}", api_keys=entries)
    with TestClient(create_app(settings)) as client:
        body = {"source": "cli", "source_kind": "event", "summary": "made with a new key"}
        bearer = {"Authorization": f"Bearer {key}"}
        created = client.post("/v1/capture", json={**body, "scope": "team-x"}, headers=bearer)
        elsewhere = client.post("/v1/capture", json={**body, "scope": "team-y"}, headers=bearer)
        wrong = client.post("/v1/capture", json=body, headers={"Authorization": "Bearer x"})
        missing = client.post("/v1/capture", json=body)
    assert created.status_code == 201, created.text
    assert created.json()["primary_record"]["provenance"]["created_by"] == "agent-7"
    assert elsewhere.status_code == 403
    assert wrong.status_code == 401 and "MEMBRANE_API_KEYS" in wrong.json()["detail"]
    assert missing.status_code == 401 and "Authorization: Bearer" in missing.json()["detail"]


def test_keys_create_says_what_it_defaulted_to_and_keeps_the_keys_already_set() -> None:
    earlier = {"key_sha256": "ab" * 32, "actor_id": "earlier", "max_sensitivity": "high",
               "scopes": [], "roles": ["read"]}  # fmt: skip
    env = {"PATH": "/usr/bin:/bin", "MEMBRANE_API_KEYS": json.dumps([earlier])}
    _, keys, said = keys_create("--actor", "reader-1", env=env)
    first, made = json.loads(keys)
    assert first == earlier
    assert (made["actor_id"], made["roles"], made["max_sensitivity"]) == (
        "reader-1",
        ["read"],
        "low",
    )
    assert "no --role given: read only" in said
    assert "no --max-sensitivity given: low" in said
    assert "kept the 1 entries already in MEMBRANE_API_KEYS" in said


def test_keys_create_json_prints_the_key_and_its_entry() -> None:
    done = run("keys", "create", "--actor", "a", "--role", "admin", "--max-sensitivity", "hyper",
               "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    made = json.loads(done.stdout)
    entry = ApiPrincipal.model_validate(made["entry"])
    assert entry.key_sha256 == hash_key(made["key"]) and entry.roles == ["admin"]


def test_an_export_without_a_key_says_where_the_key_goes(
    sqlite_template: Path, tmp_path: Path
) -> None:
    database = tmp_path / "keyed.db"
    shutil.copyfile(sqlite_template, database)
    with live_server(make_settings(f"sqlite:///{database}")) as url:
        done = run("export", "--url", url, "-o", str(tmp_path / "out.ndjson"),
                   env={"PATH": "/usr/bin:/bin"})  # fmt: skip
    assert done.returncode == 1
    assert "HTTP 401" in done.stderr
    assert "--api-key or the variable MEMBRANE_API_KEY (none was given)" in done.stderr


def test_migrate_brings_a_new_sqlite_file_to_head(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new.db'}"
    done = run("migrate", env=service_env(url))
    assert done.returncode == 0, done.stderr
    assert schema_revision(url) == head_revision()


def test_serve_answers_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    port = free_port()
    env = service_env(f"sqlite:///{tmp_path / 'serve.db'}") | {"MEMBRANE_PORT": str(port)}
    proc = subprocess.Popen([str(MEMBRANE), "serve"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    try:
        status = _wait_healthy(f"http://127.0.0.1:{port}/healthz", proc)
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(START_TIMEOUT_S)
    assert status == 200
    assert code == 0


def _wait_healthy(url: str, proc: subprocess.Popen[bytes]) -> int:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        try:
            return httpx.get(url, timeout=1).status_code
        except httpx.TransportError:
            time.sleep(0.05)
    raise AssertionError("membrane serve did not answer /healthz")


def test_export_then_import_moves_a_store_and_a_second_import_changes_nothing(
    sqlite_template: Path, tmp_path: Path
) -> None:
    source, target = tmp_path / "source.db", tmp_path / "target.db"
    shutil.copyfile(sqlite_template, source)
    shutil.copyfile(sqlite_template, target)
    export_file = tmp_path / "store.ndjson"
    with live_server(make_settings(f"sqlite:///{source}")) as source_url:
        for text in ("Alice adopted a dog named Max", "The deploy failed on Friday"):
            body = {"source": "cli", "source_kind": "event", "summary": text}
            assert httpx.post(f"{source_url}/v1/capture", json=body,
                              headers=auth("writer")).status_code == 201  # fmt: skip
        exported = run("export", "--url", source_url, "--api-key", KEYS["admin"][0],
                       "-o", str(export_file))  # fmt: skip
        listed = httpx.get(f"{source_url}/v1/records", headers=auth("admin")).json()
    assert exported.returncode == 0, exported.stderr
    assert "export" in exported.stderr  # the progress line
    with live_server(make_settings(f"sqlite:///{target}")) as target_url:
        args = ("import", str(export_file), "--url", target_url, "--api-key", KEYS["admin"][0])
        first, second = run(*args), run(*args)
        arrived = httpx.get(f"{target_url}/v1/records", headers=auth("admin")).json()
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert "import [" in first.stderr  # the progress bar
    records = len(listed["items"])
    assert json.loads(first.stdout)["created"]["records"] == records
    assert json.loads(second.stdout)["created"]["records"] == 0
    assert json.loads(second.stdout)["skipped"]["records"] == records
    assert sorted(r["id"] for r in arrived["items"]) == sorted(r["id"] for r in listed["items"])


def test_an_import_of_a_bad_file_lists_its_lines_and_exits_1(
    sqlite_template: Path, tmp_path: Path
) -> None:
    database = tmp_path / "target.db"
    shutil.copyfile(sqlite_template, database)
    bad = tmp_path / "bad.ndjson"
    bad.write_text('{"kind": "header"}\nnot json\n')
    with live_server(make_settings(f"sqlite:///{database}")) as url:
        done = run("import", str(bad), "--url", url, "--api-key", KEYS["admin"][0])
    assert done.returncode == 1
    assert "line 2:" in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("membrane: ")
