"""/docs and /redoc work offline (issue 12): Debian's headless Chromium loads each page
from a live server with every host name but 127.0.0.1 unresolvable, and the operations
are rendered; Chromium's network log shows that every request the page made went to the
server itself (its scripts, styles and icon come from the installed package, app/docs.py).

`make test` installs Chromium with `apt-get install -y chromium`; without it these tests
skip (and fail under CI, which runs every suite)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import make_settings
from tests.live_support import live_server

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
BUDGET_MS = 30_000  # virtual time for the page to fetch the document and render it
# Operations whose rendering is checked (every tag has one).
SAMPLE = (
    ("capture", "captureMemory", "/v1/capture"),
    ("ingest", "ingestEpisode", "/v1/ingest/episodes"),
    ("records", "getRecordAudit", "/v1/records/{record_id}/audit"),
    ("retrieve", "retrieveGraph", "/v1/retrieve/graph"),
    ("revise", "supersedeRecord", "/v1/records/{record_id}/supersede"),
    ("salience", "penalizeRecord", "/v1/records/{record_id}/penalize"),
    ("embeddings", "backfillEmbeddings", "/v1/embeddings/backfill"),
    ("jobs", "runJob", "/v1/jobs/{job}/run"),
    ("metrics", "getMetrics", "/v1/metrics"),
    ("health", "readyz", "/readyz"),
)


@pytest.fixture(scope="module")
def base_url(sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not Path(CHROMIUM).exists():
        pytest.skip("no Chromium: `make test` installs Debian's (apt-get install -y chromium)")
    db = tmp_path_factory.mktemp("docs") / "membrane.db"
    shutil.copyfile(sqlite_template, db)
    with live_server(make_settings(f"sqlite:///{db}")) as url:
        yield url


def render(url: str, workdir: Path) -> tuple[str, list[tuple[str, str]]]:
    """The page's DOM after Chromium ran it, and (initiator, url) of every request made."""
    net_log = workdir / "net-log.json"
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",  # root in containers and CI
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        f"--user-data-dir={workdir / 'profile'}",
        # Any name but 127.0.0.1 fails to resolve: a CDN asset could not load at all.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        f"--log-net-log={net_log}",
        f"--virtual-time-budget={BUDGET_MS}",
        "--dump-dom",
        url,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout, requests_made(net_log)


def requests_made(net_log: Path) -> list[tuple[str, str]]:
    """(initiator, url) of each URL request in a Chromium net log. Requests a page makes
    carry its origin as initiator; the browser's own (update checks) carry none."""
    log = json.loads(net_log.read_text())
    start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    return [
        (str(e["params"].get("initiator", "")), str(e["params"]["url"]))
        for e in log["events"]
        if e["type"] == start_job and "url" in e.get("params", {})
    ]


def assert_only_loopback(base_url: str, page: str, requests: list[tuple[str, str]]) -> None:
    html = httpx.get(base_url + page).text
    assert not re.findall(r"(?:https?:)?//[\w.-]+", html), f"{page} names another host"
    from_page = [url for initiator, url in requests if initiator == base_url]
    assert from_page, requests
    assert all(url.startswith(base_url + "/") for url in from_page), from_page
    assert f"{base_url}/openapi.json" in from_page, from_page


def test_swagger_ui_renders_every_operation_offline(base_url: str, tmp_path: Path) -> None:
    dom, requests = render(base_url + "/docs", tmp_path)
    spec = httpx.get(base_url + "/openapi.json").json()
    rendered_paths = set(re.findall(r'class="opblock-summary-path" data-path="([^"]+)"', dom))
    assert rendered_paths == set(spec["paths"]), set(spec["paths"]) ^ rendered_paths
    for tag, operation_id, _ in SAMPLE:
        assert f'id="operations-{tag}-{operation_id}"' in dom, operation_id
    assert "Authorize" in dom  # the bearer scheme
    assert_only_loopback(base_url, "/docs", requests)
    assert any(url.endswith("/docs-assets/swagger/swagger-ui-bundle.js") for _, url in requests)


def test_redoc_renders_every_operation_offline(base_url: str, tmp_path: Path) -> None:
    dom, requests = render(base_url + "/redoc", tmp_path)
    for tag, operation_id, path in SAMPLE:
        assert f'id="tag/{tag}/operation/{operation_id}"' in dom, operation_id
        assert path in dom, path
    assert_only_loopback(base_url, "/redoc", requests)
    assert any(url.endswith("/docs-assets/redoc/redoc.standalone.js") for _, url in requests)
