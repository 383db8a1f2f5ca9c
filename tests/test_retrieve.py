"""POST /v1/retrieve: filters, trust, redaction, ranking and selection (provider none)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.db import Database
from app.records import repository as record_repo
from app.retrieve import candidates as retrieve_candidates
from app.retrieve import pg_terms_repository
from app.retrieve import pg_text_repository as pg_text
from tests.conftest import auth, make_settings


def capture(
    client: TestClient, summary: str, *, who: str = "writer", **extra: Any
) -> dict[str, Any]:
    body = {"source": "agent", "source_kind": "event", "summary": summary, **extra}
    r = client.post("/v1/capture", json=body, headers=auth(who))
    assert r.status_code == 201, r.text
    primary: dict[str, Any] = r.json()["primary_record"]
    return primary


def create(client: TestClient, payload: dict[str, Any], **extra: Any) -> dict[str, Any]:
    r = client.post("/v1/records", json={"payload": payload, **extra}, headers=auth("admin"))
    assert r.status_code == 201, r.text
    record: dict[str, Any] = r.json()
    return record


def retrieve(
    client: TestClient, who: str = "reader", headers: dict[str, str] | None = None, **body: Any
) -> dict[str, Any]:
    r = client.post("/v1/retrieve", json=body, headers={**auth(who), **(headers or {})})
    assert r.status_code == 200, r.text
    result: dict[str, Any] = r.json()
    return result


def ids(result: dict[str, Any]) -> list[str]:
    return [item["record"]["id"] for item in result["items"]]


def test_query_ranks_the_matching_record_first(client: TestClient) -> None:
    capture(client, "The deploy to staging failed with a timeout")
    target = capture(client, "Alice adopted a golden retriever named Max")
    capture(client, "Lunch was pasta with tomato sauce")
    result = retrieve(client, query="Which dog did Alice adopt?", expand_context=False)
    assert ids(result)[0] == target["id"]
    top = result["items"][0]
    assert top["components"]["lexical"] == 1.0
    assert top["components"]["vector"] is None  # provider none: no vector signal
    assert top["components"]["relevance"] == 1.0
    assert result["signals"] == ["lexical", "salience"]
    # score = 0.7 · relevance + 0.3 · current salience
    expected = 0.7 * 1.0 + 0.3 * top["components"]["salience"]
    assert abs(top["score"] - expected) < 1e-9


def test_plain_text_content_without_a_summary_is_found(client: TestClient) -> None:
    """A capture of only `content` (a string) is searchable by that text: it becomes the
    summary that search and vectors read."""
    body = {"source": "agent", "source_kind": "observation", "content": "The vault code is 4711"}
    r = client.post("/v1/capture", json=body, headers=auth("writer"))
    assert r.status_code == 201, r.text
    assert r.json()["primary_record"]["payload"]["summary"] == "The vault code is 4711"
    result = retrieve(client, query="what is the vault code", expand_context=False)
    assert ids(result) == [r.json()["primary_record"]["id"]]


def test_query_without_any_match_returns_nothing(client: TestClient) -> None:
    capture(client, "The deploy to staging failed with a timeout")
    result = retrieve(client, query="zebra quokka", expand_context=False)
    assert result["items"] == []


def test_trust_ceiling_hides_and_redacts(client: TestClient) -> None:
    low = capture(client, "project falcon budget low", sensitivity="low")
    medium = capture(client, "project falcon budget medium", sensitivity="medium")
    high = capture(client, "project falcon budget high", sensitivity="high")
    result = retrieve(client, "reader", query="falcon budget")
    by_id = {item["record"]["id"]: item for item in result["items"]}
    assert set(by_id) == {low["id"], medium["id"]}  # high is two levels above: invisible
    redacted = by_id[medium["id"]]
    assert redacted["record"]["redacted"] is True
    assert "payload" not in redacted["record"]
    assert redacted["score"] is None and redacted["components"] is None
    assert by_id[low["id"]]["record"]["payload"]["summary"] == "project falcon budget low"
    # The writer (high) sees all three in full.
    full = retrieve(client, "writer", query="falcon budget")
    assert set(ids(full)) == {low["id"], medium["id"], high["id"]}
    assert not any(item["record"]["redacted"] for item in full["items"])


def test_body_and_header_narrowing_only_narrow(client: TestClient) -> None:
    low = capture(client, "quarterly numbers low", sensitivity="low")
    medium = capture(client, "quarterly numbers medium", sensitivity="medium")
    high = capture(client, "quarterly numbers high", sensitivity="high")
    narrowed = retrieve(
        client, "writer", query="quarterly numbers", trust={"max_sensitivity": "low"}
    )
    views = {i["record"]["id"]: i["record"]["redacted"] for i in narrowed["items"]}
    assert views == {low["id"]: False, medium["id"]: True}
    header = retrieve(
        client, "writer", headers={"X-Membrane-Max-Sensitivity": "low"}, query="quarterly"
    )
    assert {i["record"]["id"] for i in header["items"]} == {low["id"], medium["id"]}
    # Asking for more than the principal has changes nothing.
    wider = retrieve(
        client, "reader", query="quarterly numbers", trust={"max_sensitivity": "hyper"}
    )
    assert high["id"] not in ids(wider)
    assert {i["record"]["id"] for i in wider["items"] if i["record"]["redacted"]} == {medium["id"]}


def test_scopes_of_the_principal_and_of_the_request(client: TestClient) -> None:
    a = capture(client, "release checklist team a", scope="team-a")
    b = capture(client, "release checklist team b", scope="team-b")
    shared = capture(client, "release checklist shared")
    assert set(ids(retrieve(client, "team_a", query="release checklist"))) == {
        a["id"],
        shared["id"],
    }
    only_a = retrieve(client, "writer", query="release checklist", scopes=["team-a"])
    assert ids(only_a) == [a["id"]]
    narrowed = retrieve(client, "writer", query="release checklist", trust={"scopes": ["team-b"]})
    assert set(ids(narrowed)) == {b["id"], shared["id"]}
    none_left = retrieve(client, "team_a", query="release checklist", trust={"scopes": ["team-b"]})
    assert ids(none_left) == [shared["id"]]


def test_retracted_and_superseded_excluded_unless_asked(client: TestClient, db: Database) -> None:
    active = capture(client, "the api key rotates monthly")
    retracted = capture(client, "the api key rotates yearly")
    superseded = capture(client, "the api key rotates weekly")
    with db.transaction() as session:
        record_repo.set_status(session, [retracted["id"]], "retracted", 1.0)
        record_repo.set_status(session, [superseded["id"]], "superseded", 1.0)
    assert ids(retrieve(client, query="api key rotates")) == [active["id"]]
    assert ids(retrieve(client)) == [active["id"]]  # no query: same filter
    asked = retrieve(client, query="api key rotates", statuses=["retracted", "superseded"])
    assert set(ids(asked)) == {retracted["id"], superseded["id"]}


def test_tags_must_all_match(client: TestClient) -> None:
    both = capture(client, "invoice overdue", tags=["billing", "urgent"])
    capture(client, "invoice paid", tags=["billing"])
    capture(client, "invoice draft", tags=["urgent"])
    assert ids(retrieve(client, query="invoice", tags=["billing", "urgent"])) == [both["id"]]
    assert ids(retrieve(client, tags=["urgent", "billing"])) == [both["id"]]


def test_types_filter(client: TestClient) -> None:
    capture(client, "the cache server runs redis")
    fact = create(
        client,
        {"kind": "semantic", "subject": "cache server", "predicate": "runs", "object": "redis"},
    )
    result = retrieve(client, query="what does the cache server run", types=["semantic"])
    assert ids(result) == [fact["id"]]


def test_no_query_orders_by_current_salience_then_layer(client: TestClient) -> None:
    pinned = {"pinned": True}
    low = create(client, {"kind": "episodic", "summary": "low"}, salience=0.2, lifecycle=pinned)
    high = create(client, {"kind": "episodic", "summary": "high"}, salience=0.9, lifecycle=pinned)
    working = create(
        client,
        {"kind": "working", "thread_id": "t1", "context_summary": "tie"},
        salience=0.5,
        lifecycle=pinned,
    )
    episodic = create(
        client, {"kind": "episodic", "summary": "tie"}, salience=0.5, lifecycle=pinned
    )
    result = retrieve(client)
    assert ids(result) == [high["id"], working["id"], episodic["id"], low["id"]]
    assert [i["score"] for i in result["items"]] == [0.9, 0.5, 0.5, 0.2]
    assert result["items"][0]["components"]["relevance"] is None
    assert result["signals"] == ["salience"]
    assert ids(retrieve(client, min_salience=0.5)) == [high["id"], working["id"], episodic["id"]]
    # limits between the statement's steps (salience_repository.LIMIT_STEPS) cut exactly
    assert ids(retrieve(client, limit=1)) == [high["id"]]
    assert ids(retrieve(client, limit=3)) == [high["id"], working["id"], episodic["id"]]


def test_salience_breaks_equal_relevance(client: TestClient) -> None:
    pinned = {"pinned": True}
    faint = create(
        client, {"kind": "episodic", "summary": "printer jam"}, salience=0.1, lifecycle=pinned
    )
    vivid = create(
        client, {"kind": "episodic", "summary": "printer jam"}, salience=0.9, lifecycle=pinned
    )
    result = retrieve(client, query="printer jam", expand_context=False)
    assert ids(result) == [vivid["id"], faint["id"]]
    assert (
        result["items"][0]["components"]["relevance"]
        == result["items"][1]["components"]["relevance"]
    )


def test_group_by_layer(client: TestClient) -> None:
    episode = capture(client, "kubernetes upgrade went fine")
    fact = create(
        client,
        {"kind": "semantic", "subject": "kubernetes", "predicate": "version", "object": "1.30"},
    )
    grouped = retrieve(client, query="kubernetes upgrade", group_by_layer=True)
    assert ids(grouped) == [fact["id"], episode["id"]]


def test_neighbouring_episodes_share_context(client: TestClient) -> None:
    scope = {"scope": "chat-1"}
    # A statement, not a question: the reply would otherwise carry the question's words
    # (tests/test_replies.py) and be found lexically, not only through context.
    question = capture(client, "Bob: tell me about the marathon in Boston.", **scope)
    answer = capture(client, "Alice: it was exhausting but I finished under four hours", **scope)
    capture(client, "Unrelated: the office plants need water", scope="chat-2")
    result = retrieve(client, query="marathon Boston")
    assert ids(result) == [question["id"], answer["id"]]
    shared = result["items"][1]["components"]
    assert shared["lexical"] == 0.0 and shared["context"] > 0
    assert "context" in result["signals"]
    alone = retrieve(client, query="marathon Boston", expand_context=False)
    assert ids(alone) == [question["id"]]


def test_context_reaches_two_places_out_at_half_the_share(client: TestClient) -> None:
    scope = {"scope": "chat-3"}
    texts = ["the weather is grey", "Bob: how was the marathon in Boston?",
             "Alice: exhausting", "Alice: but I finished", "Bob: lunch later?"]  # fmt: skip
    # a day apart: each turn is a sitting of its own (tests/test_sittings.py), so only the
    # neighbours' share is at work here
    days = [f"2026-01-0{day}T10:00:00Z" for day in range(1, 6)]
    turns = [
        capture(client, text, timestamp=at, **scope) for text, at in zip(texts, days, strict=True)
    ]
    result = retrieve(client, query="marathon Boston")
    by_id = {item["record"]["id"]: item["components"] for item in result["items"]}
    seed, one, two = by_id[turns[1]["id"]], by_id[turns[2]["id"]], by_id[turns[3]["id"]]
    before = by_id[turns[0]["id"]]
    assert seed["lexical"] == 1.0
    assert one["context"] == before["context"] > 0  # one place away, either side
    assert two["context"] == pytest.approx(one["context"] / 2)  # two places: half
    assert turns[4]["id"] not in by_id  # three places: nothing
    ranked = ids(result)  # ties (one place either side) go to the newer record
    assert ranked[:4] == [turns[1]["id"], turns[2]["id"], turns[0]["id"], turns[3]["id"]]


def test_context_skips_episodes_the_caller_cannot_see(client: TestClient) -> None:
    """Places are counted among the episodes the caller may see: hidden ones between a
    hit and its neighbours neither take a place nor leak. One hidden episode before the
    hit is passed by the look-up's spare candidate; three after it by the filtered walk."""
    scope = {"scope": "chat-4"}
    plan = [("the weather is grey", "low"), ("vault code 4411", "high"),
            ("Bob: how was the marathon in Boston?", "low"),
            ("vault code 4412", "high"), ("vault code 4413", "high"), ("vault code 4414", "high"),
            ("Alice: exhausting", "low"), ("Alice: but I finished", "low")]  # fmt: skip
    days = [f"2026-02-0{day}T10:00:00Z" for day in range(1, 9)]
    turns = [
        capture(client, text, timestamp=at, sensitivity=level, **scope)
        for (text, level), at in zip(plan, days, strict=True)
    ]
    result = retrieve(client, query="marathon Boston")
    by_id = {item["record"]["id"]: item["components"] for item in result["items"]}
    seed, before = by_id[turns[2]["id"]], by_id[turns[0]["id"]]
    one, two = by_id[turns[6]["id"]], by_id[turns[7]["id"]]
    assert seed["lexical"] == 1.0
    assert one["context"] == before["context"] > 0  # the nearest visible, either side
    assert two["context"] == pytest.approx(one["context"] / 2)
    assert not {t["id"] for t in turns if t["sensitivity"] == "high"} & set(by_id)
    # The writer sees them all: the hidden turns are the neighbours then.
    mine = retrieve(client, "writer", query="marathon Boston")
    near = {item["record"]["id"]: item["components"]["context"] for item in mine["items"]}
    assert near[turns[1]["id"]] == near[turns[3]["id"]] > 0
    assert turns[6]["id"] not in near


def test_entity_names_in_the_query_boost_entity_records(client: TestClient) -> None:
    r = client.post(
        "/v1/capture",
        json={
            "source": "agent",
            "source_kind": "event",
            "summary": "met the new manager",
            "content": {"entities": [{"name": "Grace Hopper", "aliases": ["Amazing Grace"]}]},
        },
        headers=auth("writer"),
    )
    entity_id = r.json()["created_records"][0]["id"]
    result = retrieve(client, query="what do we know about amazing grace", types=["entity"])
    assert ids(result) == [entity_id]
    assert result["items"][0]["components"]["entity"] == 1.0
    assert "entity" in result["signals"]


def test_records_mentioning_the_party_a_query_names_rank_higher(client: TestClient) -> None:
    said = "I finally fixed the garden fence"  # on two days: two sittings
    alice = capture(client, said, content={"speaker": "Alice"}, timestamp="2026-01-01T10:00:00Z")
    bob = capture(client, said, content={"speaker": "Bob"}, timestamp="2026-01-02T10:00:00Z")
    # bob's is newer: it wins a tie
    unnamed = retrieve(client, query="who fixed the garden fence?", types=["episodic"])
    assert ids(unnamed) == [bob["id"], alice["id"]]
    assert "entity" not in unnamed["signals"]

    result = retrieve(client, query="How did Alice fix the garden fence?", types=["episodic"])
    assert ids(result) == [alice["id"], bob["id"]]
    first, second = (item["components"] for item in result["items"])
    assert (first["entity"], second["entity"]) == (0.3, 0.0)
    assert first["relevance"] == 1.0
    assert second["relevance"] == pytest.approx(1 / 1.3)  # Alice's sum was raised by 30 %
    assert "entity" in result["signals"]
    by_bob = retrieve(client, query="What did Bob say about the fence?", types=["episodic"])
    assert ids(by_bob) == [bob["id"], alice["id"]]


def test_an_entity_above_the_ceiling_lends_no_lift(client: TestClient) -> None:
    zed = create(client, {"kind": "entity", "canonical_name": "Zed"}, sensitivity="high")
    mentioning = capture(client, "the fence is fixed", content={"speaker": "Zed"})
    other = capture(client, "the fence is fixed")
    assert mentioning["sensitivity"] == other["sensitivity"] == "low"
    edges = client.get(f"/v1/records/{mentioning['id']}/relations", headers=auth("admin"))
    assert zed["id"] in {e["target_id"] for e in edges.json()["outgoing"]}

    query: dict[str, Any] = {
        "query": "did Zed fix the fence",
        "types": ["episodic"],
        "expand_context": False,
    }
    writer = retrieve(client, "writer", **query)  # may read the high entity
    assert ids(writer) == [mentioning["id"], other["id"]]
    assert writer["items"][0]["components"]["entity"] == 0.3
    reader = retrieve(client, "reader", **query)  # may not: the two rank as equals
    assert ids(reader) == [other["id"], mentioning["id"]]
    assert [item["components"]["entity"] for item in reader["items"]] == [0.0, 0.0]


def competence(name: str, trigger: str, successes: int, failures: int) -> dict[str, Any]:
    return {
        "kind": "competence",
        "skill_name": name,
        "triggers": [{"signal": trigger}],
        "performance": {"success_count": successes, "failure_count": failures},
    }


def test_selector_picks_an_applicable_reliable_competence(client: TestClient) -> None:
    good = create(client, competence("restart nginx", "nginx returns 502", 20, 0), confidence=0.95)
    create(
        client,
        {"kind": "plan_graph", "plan_id": "p1", "intent": "rotate nginx logs"},
        confidence=0.3,
    )
    result = retrieve(client, "writer", query="nginx returns 502")
    selection = result["selection"]
    assert selection["selected_id"] == good["id"]
    first, second = selection["candidates"]
    assert first["applicability"] == 1.0 and first["success_rate"] > 0.9
    assert {first["type"], second["type"]} == {"competence", "plan_graph"}
    # the original's confidence: the normalised gap between the two best candidates
    gap = (first["confidence"] - second["confidence"]) / first["confidence"]
    assert selection["confidence"] == pytest.approx(gap)
    assert selection["needs_more"] is False
    assert selection["confidence"] >= selection["threshold"] == 0.7


def test_a_close_rival_makes_the_selector_ask_for_more(client: TestClient) -> None:
    good = create(client, competence("restart nginx", "nginx returns 502", 20, 0), confidence=0.95)
    create(client, competence("restart nginx carefully", "nginx returns 502", 1, 9))
    selection = retrieve(client, "writer", query="nginx returns 502")["selection"]
    assert selection["selected_id"] == good["id"]  # the reliable one still ranks first
    first, second = selection["candidates"]
    assert first["confidence"] > second["confidence"] > 0.5
    assert selection["confidence"] < 0.7 and selection["needs_more"] is True


def test_selector_asks_for_more_when_unsure(client: TestClient) -> None:
    create(client, competence("restore database backup", "database corrupted", 0, 0))
    result = retrieve(client, "writer", query="database restore after corruption of disk array")
    selection = result["selection"]
    assert selection["needs_more"] is True
    assert selection["confidence"] < 0.7
    assert selection["selected_id"] is not None  # the best guess is still named


def test_no_selection_without_candidates(client: TestClient) -> None:
    capture(client, "just an event")
    assert retrieve(client, query="event")["selection"] is None


def test_bad_bodies_are_rejected(client: TestClient) -> None:
    for body in ({"limit": 0}, {"types": ["nope"]}, {"min_salience": 2}, {"unknown": 1}):
        r = client.post("/v1/retrieve", json=body, headers=auth("reader"))
        assert r.status_code == 422, body
        assert r.headers["content-type"].startswith("application/problem+json")
    assert client.post("/v1/retrieve", json={}).status_code == 401


def test_query_text_is_never_search_syntax(client: TestClient) -> None:
    target = capture(client, 'She said "NEAR" and OR and AND * - it was odd')
    for query in ('"NEAR" OR AND *', "'; DROP TABLE records; --", "(a | b) & !c:*", "..."):
        r = client.post("/v1/retrieve", json={"query": query}, headers=auth("reader"))
        assert r.status_code == 200, (query, r.text)
    assert ids(retrieve(client, query='"near" OR', expand_context=False)) == [target["id"]]
    long_query = " ".join(f"word{i}" for i in range(10_000))  # ≈ 89,000 characters
    assert retrieve(client, query=long_query)["items"] == []


def test_postgres_large_store_rules_select_by_rare_words_and_score_with_all(
    pg_url: str, make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The large-store path of PostgreSQL BM25 (estimated frequencies, common words that
    score but do not select), exercised on a small store by lowering its threshold."""
    client = make_client(make_settings(pg_url))
    db = Database(pg_url)
    monkeypatch.setattr(pg_terms_repository, "LARGE_STORE", 1)
    monkeypatch.setattr(pg_text, "COMMON_FRACTION", 0.3)
    for i in range(8):
        capture(client, f"Caroline talked about the weather on day {i}")
    both = capture(client, "Caroline talked about her pottery class")
    rare_only = capture(client, "A pottery kiln needs hours to cool")
    with db.transaction() as session:
        session.execute(text("ANALYZE records"))
    db.dispose()
    result = retrieve(client, query="Caroline pottery", expand_context=False, limit=5)
    assert ids(result)[:2] == [both["id"], rare_only["id"]]  # scored with both words
    assert len(result["items"]) == 2  # records with only the common word are not ranked


def test_postgres_small_scope_reads_every_record_of_the_scope(
    pg_url: str, make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scope that holds few records is searched record by record: there even the words
    that the large-store rules leave out of selection find their records."""
    client = make_client(make_settings(pg_url))
    db = Database(pg_url)
    monkeypatch.setattr(pg_terms_repository, "LARGE_STORE", 1)
    monkeypatch.setattr(pg_text, "COMMON_FRACTION", 0.3)
    for i in range(8):
        capture(client, f"Caroline talked about the weather on day {i}", scope="elsewhere")
    common_only = capture(client, "Caroline talked about the weather", scope="team")
    rare_only = capture(client, "A pottery kiln needs hours to cool", scope="team")
    with db.transaction() as session:
        session.execute(text("ANALYZE records"))
    db.dispose()
    wide = retrieve(client, query="Caroline pottery", expand_context=False, limit=5)
    assert common_only["id"] not in ids(wide)  # across scopes only the rare word selects
    narrow = retrieve(
        client, query="Caroline pottery", scopes=["team"], expand_context=False, limit=5
    )
    assert sorted(ids(narrow)) == sorted([common_only["id"], rare_only["id"]])
    monkeypatch.setattr(retrieve_candidates, "SMALL_SCOPE", 1)  # the scope counts as large
    narrow = retrieve(
        client, query="Caroline pottery", scopes=["team"], expand_context=False, limit=5
    )
    assert ids(narrow) == [rare_only["id"]]
