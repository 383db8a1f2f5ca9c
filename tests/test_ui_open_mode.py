"""The memory browser in open mode (issue 33): a service with no API keys (`make serve` as
shipped) has no key to sign in with, so /ui opens the browser directly, with no sign-in
form in the page, and says it runs in open mode; with keys configured the page asks for
one and shows nothing before. Both in a real headless Chromium (tests/browser_support.py).

Without Chromium these tests skip (and fail under CI, which runs every suite)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.browser_support import Page, chromium, have_chromium, png_size
from tests.conftest import make_settings
from tests.live_support import live_server

WIDTH, HEIGHT = 1200, 800
READY = "document.body.dataset.ready === 'true'"


@pytest.fixture
def sqlite_url(sqlite_template: Path, tmp_path: Path) -> str:
    if not have_chromium():
        pytest.skip("no Chromium: `make test` installs Debian's (apt-get install -y chromium)")
    db = tmp_path / "membrane.db"
    shutil.copyfile(sqlite_template, db)
    return f"sqlite:///{db}"


@pytest.fixture
def open_server(sqlite_url: str) -> Iterator[str]:
    with live_server(make_settings(sqlite_url, api_keys=[])) as base:
        yield base


def visible(page: Page, selector: str) -> bool:
    """Whether the element exists and is rendered (not hidden, not display: none)."""
    return bool(
        page.call(
            "(s) => { const e = document.querySelector(s);"
            " return e !== null && e.getClientRects().length > 0; }",
            selector,
        )
    )


def test_open_mode_opens_the_browser_without_a_key(open_server: str, tmp_path: Path) -> None:
    base = open_server
    for summary in ("Falcon budget review moved to Friday", "Falcon launch is on Monday"):
        body = {"source": "agent-1", "source_kind": "event", "summary": summary}
        answer = httpx.post(f"{base}/v1/capture", json=body)  # no key: open mode
        assert answer.status_code == 201, answer.text
    assert httpx.get(f"{base}/readyz").json()["open_mode"] is True
    with chromium(tmp_path, WIDTH, HEIGHT) as page:
        page.navigate(f"{base}/ui", ready=READY)
        page.wait_for("document.querySelector('#results').dataset.state === 'ready'")
        assert page.evaluate("document.body.dataset.mode") == "open"
        # No sign-in form anywhere in the page, not merely hidden.
        for gone in ("#sign-in", "#sign-in-form", "#api-key", "#sign-out"):
            assert page.evaluate(f"document.querySelector({gone!r})") is None, gone
        assert visible(page, "#browser") and visible(page, "#open-mode")
        assert "Open mode" in page.text("#open-mode")
        assert "Open mode" in page.text("#whoami")
        shown = page.evaluate(
            "[...document.querySelectorAll('#results .result')].map(e => e.dataset.recordId)"
        )
        listed = httpx.post(f"{base}/v1/retrieve", json={"limit": 20}).json()["items"]
        assert shown == [item["record"]["id"] for item in listed] and len(shown) == 2
        page.fill("#search-query", "launch Monday")
        page.click("#search-button")
        page.wait_for("document.querySelector('#results').dataset.state === 'ready'")
        assert "Falcon launch is on Monday" in page.text("#results")
        data = page.screenshot(tmp_path / "ui-open-mode.png")
        assert png_size(data) == (WIDTH, HEIGHT)
        shutil.copyfile(tmp_path / "ui-open-mode.png", Path("/tmp/membrane-ui-open-mode.png"))
        assert not page.problems, page.problems
        assert page.evaluate("sessionStorage.length") == 0  # no key was ever asked for


def test_with_keys_the_page_asks_for_one_and_shows_nothing(sqlite_url: str, tmp_path: Path) -> None:
    with live_server(make_settings(sqlite_url)) as base, chromium(tmp_path, WIDTH, HEIGHT) as page:
        assert httpx.get(f"{base}/readyz").json()["open_mode"] is False
        page.navigate(f"{base}/ui", ready=READY)
        assert page.evaluate("document.body.dataset.mode") == "keys"
        assert visible(page, "#sign-in-form") and visible(page, "#api-key")
        assert not visible(page, "#browser") and not visible(page, "#open-mode")
        assert page.evaluate("document.querySelector('#results').children.length") == 0
        assert not page.problems, page.problems
