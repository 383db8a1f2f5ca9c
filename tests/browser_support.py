"""A real headless Chromium driven over the DevTools protocol (CDP), for tests that click
through a page: Debian's `chromium` package only (no chromedriver, no Selenium).

`chromium(workdir)` starts the browser with `--remote-debugging-port=0`, reads the port it
chose from `DevToolsActivePort` in its profile, and speaks CDP to the page over a websocket
(`websockets`' sync client). `Page` fills fields and clicks through `Runtime.evaluate`,
waits for DOM conditions by bounded polling, and saves screenshots. What the page logs
(console errors and warnings, uncaught exceptions, CSP violations) is kept in
`Page.problems`, so a test can assert the page ran clean."""

from __future__ import annotations

import base64
import itertools
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
START_TIMEOUT_S = 60.0
COMMAND_TIMEOUT_S = 30.0
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class BrowserError(AssertionError):
    """The browser refused a command, or the page threw, or a condition never held."""


def have_chromium() -> bool:
    return Path(CHROMIUM).exists()


class Page:
    """One tab, over its CDP websocket."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self._ids = itertools.count(1)
        self.problems: list[str] = []  # console errors/warnings, exceptions, log entries

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one command and return its result; events that arrive meanwhile are kept."""
        ident = next(self._ids)
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params or {}}))
        deadline = time.monotonic() + COMMAND_TIMEOUT_S
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise BrowserError(f"{method}: no answer in {COMMAND_TIMEOUT_S} s")
            message = json.loads(self.ws.recv(timeout=remaining))
            if message.get("id") == ident:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            self._event(message)

    def _event(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        params = message.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning"):
            args = [str(a.get("value", a.get("description", ""))) for a in params.get("args", [])]
            self.problems.append(f"console.{params['type']}: {' '.join(args)}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = details.get("exception", {}).get("description") or details.get("text")
            self.problems.append(f"exception: {text}")
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            if entry.get("level") in ("error", "warning"):
                where = f" ({entry['url']})" if entry.get("url") else ""
                self.problems.append(f"log.{entry.get('source')}: {entry.get('text')}{where}")

    def evaluate(self, expression: str) -> Any:
        """The value of a JS expression (promises awaited); a thrown error raises."""
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"{expression[:200]!r} threw: {text}")
        return result.get("result", {}).get("value")

    def call(self, function: str, *args: Any) -> Any:
        """Call a JS function expression with JSON arguments: call("(a) => a + 1", 1)."""
        return self.evaluate(f"({function})(...{json.dumps(list(args))})")

    def wait_for(self, expression: str, timeout: float = 20.0, interval: float = 0.05) -> Any:
        """Poll a JS expression until it is truthy (at most `timeout` seconds). While a page
        loads, an expression that throws (no body yet) or a context that is gone counts as
        not yet."""
        deadline = time.monotonic() + timeout
        last_error = ""
        while True:
            try:
                value = self.evaluate(expression)
                if value:
                    return value
            except BrowserError as exc:
                last_error = str(exc)
            if time.monotonic() > deadline:
                raise BrowserError(
                    f"never true in {timeout} s: {expression}\n{last_error}\n{self.problems}"
                )
            time.sleep(interval)

    def navigate(self, url: str, ready: str = "document.readyState === 'complete'") -> None:
        result = self.send("Page.navigate", {"url": url})
        if result.get("errorText"):
            raise BrowserError(f"navigating to {url}: {result['errorText']}")
        self.wait_for(f"location.href !== 'about:blank' && ({ready})")

    def fill(self, selector: str, value: str) -> None:
        self.call(
            """(selector, value) => {
                const el = document.querySelector(selector);
                if (!el) throw new Error(`no ${selector}`);
                el.value = value;
                el.dispatchEvent(new Event("input", {bubbles: true}));
                el.dispatchEvent(new Event("change", {bubbles: true}));
            }""",
            selector,
            value,
        )

    def click(self, selector: str) -> None:
        self.call(
            """(selector) => {
                const el = document.querySelector(selector);
                if (!el) throw new Error(`no ${selector}`);
                const click = new MouseEvent("click", {bubbles: true});
                if (el instanceof SVGElement) el.dispatchEvent(click);  // no .click() on SVG
                else el.click();
            }""",
            selector,
        )

    def text(self, selector: str) -> str:
        return str(self.call("(s) => document.querySelector(s)?.innerText ?? ''", selector))

    def screenshot(self, path: Path) -> bytes:
        """A PNG of the viewport, saved to `path`."""
        result = self.send("Page.captureScreenshot", {"format": "png"})
        data = base64.b64decode(result["data"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return data


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk (asserts the signature)."""
    assert data[:8] == PNG_SIGNATURE, "not a PNG"
    assert data[12:16] == b"IHDR", "no IHDR chunk"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _devtools_endpoint(profile: Path, process: subprocess.Popen[bytes]) -> int:
    """The port Chromium chose, from DevToolsActivePort (written once it listens)."""
    marker = profile / "DevToolsActivePort"
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BrowserError(f"Chromium exited with {process.returncode} before listening")
        with suppress(FileNotFoundError, ValueError, IndexError):
            return int(marker.read_text().splitlines()[0])
        time.sleep(0.05)
    raise BrowserError(f"no {marker} after {START_TIMEOUT_S} s")


def _page_socket(port: int) -> str:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        targets = httpx.get(f"http://127.0.0.1:{port}/json/list", timeout=5).json()
        pages = [t for t in targets if t.get("type") == "page"]
        if pages:
            return str(pages[0]["webSocketDebuggerUrl"])
        time.sleep(0.05)
    raise BrowserError("Chromium opened no page")


def _command(profile: Path, width: int, height: int) -> list[str]:
    return [
        CHROMIUM,
        "--headless",
        "--no-sandbox",  # root in containers and CI
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-extensions",
        "--hide-scrollbars",
        "--remote-debugging-address=127.0.0.1",
        "--remote-debugging-port=0",
        f"--user-data-dir={profile}",
        f"--window-size={width},{height}",
        # Any name but 127.0.0.1 fails to resolve: the page can reach nothing else.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        "about:blank",
    ]


@contextmanager
def chromium(workdir: Path, width: int = 1400, height: int = 1000) -> Iterator[Page]:
    """A headless Chromium with one page, closed (its process group ended) on exit."""
    profile = workdir / "chromium-profile"
    profile.mkdir(parents=True, exist_ok=True)
    log = (workdir / "chromium.log").open("wb")
    process = subprocess.Popen(
        _command(profile, width, height), stdout=log, stderr=log, start_new_session=True
    )
    try:
        port = _devtools_endpoint(profile, process)
        with connect(_page_socket(port), max_size=None, open_timeout=30) as ws:
            page = Page(ws)
            for domain in ("Page", "Runtime", "Log"):
                page.send(f"{domain}.enable")
            page.send(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            )
            yield page
    finally:
        _stop(process)
        log.close()


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End the browser we started: its own process group (renderers included)."""
    if process.poll() is None:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
