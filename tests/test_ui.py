"""The memory browser at /ui (issue 14): a static page served from the package with a
strict Content-Security-Policy, out of the OpenAPI document, that builds its DOM without
markup strings; and, in a real headless Chromium driven over CDP (tests/browser_support.py),
a session through it: a wrong key shows the 401 problem's message, a low-ceiling key signs
in, searches with filters and sees exactly what POST /v1/retrieve answers that key (a
high-sensitivity record absent, a medium one redacted), opens a record (payload,
relations, audit), follows the graph and reads the metrics; screenshots are saved.

Without Chromium the browser test skips (and fails under CI, which runs every suite)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app.ui.router import STATIC
from tests.browser_support import Page, chromium, have_chromium, png_size
from tests.conftest import KEYS, make_settings
from tests.live_support import live_server

SCREENSHOT_COPY = Path("/tmp/membrane-ui-screenshot.png")
SECRET = "zephyr acquisition price"  # only in the high-sensitivity record
WIDTH, HEIGHT = 1400, 1000
ASSETS = ("index.html", "app.js", "api.js", "dom.js", "search.js", "detail.js", "style.css")


@pytest.fixture
def ui_client(
    sqlite_template: Path, tmp_path: Path, make_client: Callable[..., TestClient]
) -> TestClient:
    db = tmp_path / "membrane.db"
    shutil.copyfile(sqlite_template, db)
    return make_client(make_settings(f"sqlite:///{db}"))


def test_ui_is_served_from_the_package_with_a_strict_csp(ui_client: TestClient) -> None:
    root = ui_client.get("/ui", follow_redirects=False)
    assert root.status_code == 308 and root.headers["location"] == "ui/"
    for name in ("", *ASSETS):
        answer = ui_client.get(f"/ui/{name}")
        assert answer.status_code == 200, name
        csp = answer.headers["content-security-policy"]
        assert "default-src 'none'" in csp and "script-src 'self'" in csp, csp
        assert "unsafe" not in csp, csp
        assert answer.headers["x-content-type-options"] == "nosniff"
    assert ui_client.get("/ui/").headers["content-type"].startswith("text/html")
    assert ui_client.get("/ui/app.js").headers["content-type"].startswith("text/javascript")
    assert ui_client.get("/ui/style.css").headers["content-type"].startswith("text/css")
    for missing in ("nothing.js", "..%2Frouter.py", "%2E%2E%2F__init__.py"):
        answer = ui_client.get(f"/ui/{missing}")
        assert answer.status_code == 404, missing
        assert answer.headers["content-type"] == "application/problem+json"
    paths = ui_client.get("/openapi.json").json()["paths"]
    assert not [path for path in paths if path.startswith("/ui")]


def test_page_has_no_inline_code_and_never_parses_markup() -> None:
    html = (STATIC / "index.html").read_text()
    assert re.findall(r"<script\b[^>]*>", html) == ['<script type="module" src="app.js">']
    assert not re.search(r"\son\w+\s*=|\sstyle\s*=|<style\b", html)
    for path in STATIC.iterdir():
        text = path.read_text()
        hosts = set(re.findall(r"https?://[\w.-]+", text)) - {"http://www.w3.org"}
        assert not hosts, (path.name, hosts)  # nothing from another host
        if path.suffix == ".js":
            for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"):
                assert sink not in text, (path.name, sink)
            assert not re.search(r"\beval\(|new Function|setAttribute\(\s*['\"]style", text)


# --- the browser session ---------------------------------------------------------------


def capture(base: str, summary: str, **extra: Any) -> dict[str, Any]:
    body = {"source": "agent-1", "source_kind": "event", "summary": summary, **extra}
    answer = httpx.post(f"{base}/v1/capture", json=body, headers=bearer("writer"))
    assert answer.status_code == 201, answer.text
    return answer.json()  # type: ignore[no-any-return]


def bearer(who: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[who][0]}"}


def rest(base: str, method: str, path: str, body: Any = None) -> Any:
    answer = httpx.request(method, base + path, json=body, headers=bearer("reader"))
    assert answer.status_code == 200, answer.text
    return answer.json()


@pytest.fixture(scope="module")
def seeded(
    sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, dict[str, str]]]:
    """A live server holding records of every sensitivity around one project."""
    if not have_chromium():
        pytest.skip("no Chromium: `make test` installs Debian's (apt-get install -y chromium)")
    db = tmp_path_factory.mktemp("ui") / "membrane.db"
    shutil.copyfile(sqlite_template, db)
    with live_server(make_settings(f"sqlite:///{db}")) as base:
        team_a = {"scope": "team-a", "sensitivity": "low"}
        records = {
            "review": capture(
                base, "Falcon budget review moved to Friday", tags=["falcon", "budget"], **team_a
            ),
            "checklist": capture(
                base,
                "Falcon launch checklist: budget sign-off pending",
                tags=["falcon"],
                scope="team-b",
                sensitivity="public",
            ),
            "medium": capture(base, "Falcon budget for contractors is 40k", sensitivity="medium"),
            "high": capture(base, f"Falcon budget: {SECRET} is 12M", sensitivity="high"),
            "lunch": capture(base, "Lunch was pasta with tomato sauce", **team_a),
        }
        ids = {name: str(record["primary_record"]["id"]) for name, record in records.items()}
        for content in (
            {"subject": "Alice", "predicate": "leads", "object": "Falcon budget"},
            {"subject": "Alice", "predicate": "works_at", "object": "Acme"},
        ):
            body = {"source_kind": "observation", "content": content, **team_a}
            capture(base, f"{content['subject']} {content['predicate']}", **body)
        path = f"/v1/records/{ids['review']}/reinforce"
        reinforced = httpx.post(base + path, json={"rationale": "helped"}, headers=bearer("writer"))
        assert reinforced.status_code == 200, reinforced.text
        yield base, ids


def shown_results(page: Page) -> list[dict[str, Any]]:
    return list(
        page.evaluate(
            """[...document.querySelectorAll('#results .result')].map((e) => ({
                id: e.dataset.recordId,
                redacted: e.dataset.redacted === 'true',
                score: e.querySelector('.score')?.textContent ?? null,
                components: Object.fromEntries([...e.querySelectorAll('.component')].map(
                    (c) => [c.dataset.component, c.querySelector('.component-value').textContent])),
            }))"""
        )
    )


def same(shown: str, value: float | None) -> bool:
    """Whether the page's number (dom.js fmt: 3 decimals, "—" for null) is `value`; salience,
    hence the score, decays a little between the page's request and the test's."""
    if value is None:
        return shown == "—"
    return abs(float(shown) - value) <= 0.0015


def search(page: Page, base: str, query: str, **filters: str) -> list[dict[str, Any]]:
    """Search through the page; assert it shows what REST answers the same key."""
    fields = {"type": "", "scope": "", "tag": "", **filters}
    page.fill("#search-query", query)
    for name, value in fields.items():
        page.fill(f"#search-{name}", value)
    page.click("#search-button")
    page.wait_for("document.querySelector('#results').dataset.state === 'ready'")
    body: dict[str, Any] = {"limit": 20, "query": query}
    for name, key in (("type", "types"), ("scope", "scopes"), ("tag", "tags")):
        if fields[name]:
            body[key] = [fields[name]]
    expected: list[dict[str, Any]] = rest(base, "POST", "/v1/retrieve", body)["items"]
    shown = shown_results(page)
    assert [s["id"] for s in shown] == [i["record"]["id"] for i in expected]
    for item, card in zip(expected, shown, strict=True):
        assert card["redacted"] == item["record"]["redacted"]
        if not card["redacted"]:
            assert same(card["score"].removeprefix("score "), item["score"]), card
            assert card["components"].keys() == item["components"].keys()
            for name, value in item["components"].items():
                assert same(card["components"][name], value), (name, card)
    return expected


def sign_in(page: Page, base: str) -> None:
    page.navigate(f"{base}/ui", ready="document.body.dataset.ready === 'true'")
    assert page.evaluate("location.pathname") == "/ui/"
    page.fill("#api-key", "not-a-key")
    page.click("#sign-in-button")
    wrong = httpx.get(f"{base}/v1/metrics", headers={"Authorization": "Bearer not-a-key"})
    message = wrong.json()["detail"]
    page.wait_for(f"document.querySelector('#sign-in-error').textContent === {message!r}")
    assert page.evaluate("sessionStorage.length") == 0
    page.screenshot(Path("/tmp/membrane-ui-sign-in.png"))
    page.fill("#api-key", KEYS["reader"][0])
    page.click("#sign-in-button")
    page.wait_for(
        "document.body.dataset.signedIn === 'true'"
        " && document.querySelector('#results').dataset.state === 'ready'"
    )
    assert page.evaluate("Object.values(sessionStorage)") == [KEYS["reader"][0]]


def search_with_filters(page: Page, base: str, ids: dict[str, str]) -> None:
    everything = search(page, base, "falcon budget")
    by_id = {item["record"]["id"]: item["record"] for item in everything}
    assert ids["high"] not in by_id  # two levels above the reader's ceiling: invisible
    assert by_id[ids["medium"]]["redacted"] is True
    page_text = page.text("body")
    assert SECRET not in page_text and "contractors" not in page_text
    assert "Redacted" in page_text
    for filters, wanted in (
        ({"type": "semantic"}, {"semantic"}),
        ({"scope": "team-b"}, {ids["checklist"]}),
        ({"tag": "budget"}, {ids["review"]}),
    ):
        found = search(page, base, "falcon budget", **filters)
        assert found and len(found) < len(everything), filters
        assert wanted in ({i["record"]["type"] for i in found}, {i["record"]["id"] for i in found})


def open_record(page: Page, base: str, record_id: str) -> None:
    page.click(f"#results .result[data-record-id='{record_id}']")
    page.wait_for(
        "document.querySelector('#detail').dataset.state === 'ready'"
        f" && document.querySelector('#detail .detail-body').dataset.recordId === {record_id!r}"
    )
    record = rest(base, "GET", f"/v1/records/{record_id}")
    assert record["payload"]["summary"] in page.text("#detail .payload")
    audit = rest(base, "GET", f"/v1/records/{record_id}/audit")["items"]
    actions = page.evaluate(
        "[...document.querySelectorAll('#detail table.audit tbody tr')].map(r => r.dataset.action)"
    )
    assert actions == [entry["action"] for entry in audit]
    assert "reinforce" in actions
    relations = rest(base, "GET", f"/v1/records/{record_id}/relations")
    others = {e["target_id"] for e in relations["outgoing"]}
    others |= {e["source_id"] for e in relations["incoming"]}
    shown = page.evaluate(
        "[...document.querySelectorAll('#detail li[data-other]')].map(li => li.dataset.other)"
    )
    assert set(shown) == others
    page.wait_for("document.querySelector('#detail .detail-body').dataset.labelled === 'true'")
    assert '"agent-1"' in page.text("#detail .provenance") or record["provenance"] == {}


def follow_graph(page: Page, base: str) -> str:
    page.click("#tab-button-graph")
    page.fill("#graph-query", "Alice")
    page.click("#graph-button")
    page.wait_for("document.querySelector('#graph').dataset.state === 'ready'")
    body = {
        "query": "Alice",
        "max_hops": 2,
        "limit": 5,
        "node_limit": 60,
        "edge_limit": 200,
        "types": ["entity"],
    }
    expected = rest(base, "POST", "/v1/retrieve/graph", body)
    nodes = page.evaluate(
        "[...document.querySelectorAll('#graph g.node')].map(g => g.dataset.recordId)"
    )
    assert sorted(nodes) == sorted(n["record"]["id"] for n in expected["nodes"])
    assert len(nodes) >= 3
    target = next(n["record"] for n in expected["nodes"] if n["depth"] == 1)
    page.click(f"#graph g.node[data-record-id='{target['id']}']")
    page.wait_for(
        f"document.querySelector('#detail .detail-body')?.dataset.recordId === {target['id']!r}"
    )
    return str(target["id"])


def read_metrics(page: Page, base: str) -> None:
    page.click("#tab-button-metrics")
    page.wait_for("document.querySelector('#metrics').dataset.state === 'ready'")
    expected = rest(base, "GET", "/v1/metrics")
    cards = page.evaluate(
        """Object.fromEntries([...document.querySelectorAll('.metric')].map(
            (m) => [m.querySelector('.metric-name').textContent,
                    m.querySelector('.metric-value').textContent]))"""
    )
    assert cards["records"] == str(expected["total"])
    bars = page.evaluate(
        "[...document.querySelectorAll('#metrics svg.chart')[0].querySelectorAll('rect.bar')]"
        ".map(r => Number(r.dataset.value))"
    )
    assert bars == [bucket["count"] for bucket in expected["salience_histogram"]]


def screenshot(page: Page, path: Path) -> None:
    data = page.screenshot(path)
    assert png_size(data) == (WIDTH, HEIGHT)
    assert len(data) > 20_000, len(data)  # a rendered page, not a blank one


def test_browser_session_shows_what_the_key_may_see(
    seeded: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    base, ids = seeded
    with chromium(tmp_path, WIDTH, HEIGHT) as page:
        sign_in(page, base)
        search_with_filters(page, base, ids)
        search(page, base, "falcon budget")
        open_record(page, base, ids["review"])
        shot = tmp_path / "ui-record.png"
        screenshot(page, shot)
        shutil.copyfile(shot, SCREENSHOT_COPY)
        follow_graph(page, base)
        screenshot(page, tmp_path / "ui-graph.png")
        read_metrics(page, base)
        screenshot(page, tmp_path / "ui-metrics.png")
        for name in ("graph", "metrics"):
            shutil.copyfile(tmp_path / f"ui-{name}.png", Path(f"/tmp/membrane-ui-{name}.png"))
        page.click("#sign-out")
        page.wait_for("document.body.dataset.signedIn === 'false'")
        assert page.evaluate("sessionStorage.length") == 0
        assert page.evaluate("document.querySelector('#results').children.length") == 0
        # Only the wrong key's 401 may be logged: no CSP violation, no script error.
        problems = [p for p in page.problems if "status of 401" not in p]
        assert not problems, problems
