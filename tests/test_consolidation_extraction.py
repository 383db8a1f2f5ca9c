"""Consolidation's LLM triple extraction against a real loopback chat server, through the
HTTP API on both stores; the answer parser and the chat client on their own."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app import clock
from app.config import Settings
from app.consolidation.extraction_stage import COUNTS, run_extraction_stage
from app.db import Database
from app.enums import Sensitivity
from app.llm import triples as tp
from app.llm.client import Budget, BudgetExhausted, ChatClient, LLMError
from app.records.policy import PolicyEngine
from app.trust import TrustContext
from tests.conftest import app_state, auth, make_settings
from tests.llm_support import (
    EMPTY,
    MALFORMED,
    PROSE,
    PROSE_ONLY,
    SERVER_ERROR,
    Behaviour,
    FakeLLM,
    hang,
    llm_settings,
    oversized,
    rate_limited,
    serve_fake_llm,
    text,
)

A, W, R = auth("admin"), auth("writer"), auth("reader")
TRUST = TrustContext(ceiling=Sensitivity.hyper, scopes=None, actor_id="system:consolidation")


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    with serve_fake_llm() as fake:
        yield fake


@dataclass
class Env:
    client: TestClient
    settings: Settings
    fake: FakeLLM

    def episode(self, summary: str, **extra: Any) -> str:
        body = {"source": "agent-7", "summary": summary, **extra}
        r = self.client.post("/v1/ingest/episodes", json=body, headers=W)
        assert r.status_code == 201, r.text
        rid: str = r.json()["primary_record"]["id"]
        return rid

    def run(self, trust: TrustContext = TRUST) -> dict[str, int]:
        """One consolidation run through POST /v1/jobs/consolidation/run, and the
        extraction stage's counts; a narrower `trust` runs the stage alone under it."""
        if trust is not TRUST:
            state = app_state(self.client)
            return run_extraction_stage(
                state.db, state.policy, trust, self.settings, now=clock.now()
            )
        r = self.client.post("/v1/jobs/consolidation/run", headers=A)
        assert r.status_code == 200, r.text
        assert r.json()["status"] == "succeeded", r.text
        counts: dict[str, int] = r.json()["counts"]
        return {k: counts[k] for k in COUNTS if k in counts}

    def facts(self, headers: dict[str, str] = A) -> dict[tuple[str, str, str], dict[str, Any]]:
        r = self.client.get(
            "/v1/records", params={"type": "semantic", "limit": 500}, headers=headers
        )
        assert r.status_code == 200, r.text
        return {
            (f["payload"]["subject"], f["payload"]["predicate"], f["payload"]["object"]): f
            for f in r.json()["items"]
            if not f["redacted"]
        }

    def audit(self, record_id: str) -> list[dict[str, Any]]:
        r = self.client.get(f"/v1/records/{record_id}/audit", headers=A)
        assert r.status_code == 200, r.text
        items: list[dict[str, Any]] = r.json()["items"]
        return items

    def edges(self, record_id: str) -> set[tuple[str, str]]:
        r = self.client.get(f"/v1/records/{record_id}/relations", headers=A)
        assert r.status_code == 200, r.text
        return {(e["predicate"], e["target_id"]) for e in r.json()["outgoing"]}


@pytest.fixture
def env(
    db_url: str, fake_llm: FakeLLM, make_client: Callable[..., TestClient]
) -> Callable[..., Env]:
    def build(**llm: Any) -> Env:
        settings = llm_settings(db_url, fake_llm, **llm)
        return Env(make_client(settings), settings, fake_llm)

    return build


def counts(extracted: int, reinforced: int, skipped: int, episodes: int) -> dict[str, int]:
    return dict(zip(COUNTS, (extracted, reinforced, skipped, episodes), strict=True))


def _actions(env: Env, record_id: str, prefix: str = "consolidate:") -> list[dict[str, Any]]:
    return [a for a in env.audit(record_id) if a["action"].startswith(prefix)]


# -- end to end ----------------------------------------------------------------------------


def test_good_answers_become_facts_with_provenance_once(env: Callable[..., Env]) -> None:
    e = env()
    first = e.episode("alice | prefers | green tea; the build | runs on | linux")
    second = e.episode("bob | uses | vim")
    assert e.run() == counts(3, 0, 0, 2)
    assert e.fake.batches() == [
        ["alice | prefers | green tea; the build | runs on | linux", "bob | uses | vim"]
    ]
    body = e.fake.requests[0]
    assert body["model"] == "fake-extractor" and body["messages"][0]["role"] == "system"
    assert e.fake.auth_headers == ["Bearer sk-llm-test"]
    facts = e.facts()
    assert set(facts) == {
        ("alice", "prefers", "green tea"),
        ("the build", "runs on", "linux"),
        ("bob", "uses", "vim"),
    }
    tea = facts[("alice", "prefers", "green tea")]
    assert tea["provenance"]["created_by"] == "consolidation/semantic-extractor"
    assert [(s["kind"], s["ref"]) for s in tea["provenance"]["sources"]] == [("record", first)]
    assert [ev["ref"] for ev in tea["payload"]["evidence"]] == [first]
    assert e.edges(tea["id"]) == {("derived_from", first)}
    assert [a["action"] for a in e.audit(tea["id"])] == ["create"]
    assert ("derives", tea["id"]) in e.edges(first)
    marker = _actions(e, second)
    assert [(a["action"], a["details"]["created"]) for a in marker] == [
        ("consolidate:extraction", 1)
    ]
    # a second run sends nothing for processed episodes
    assert e.run() == counts(0, 0, 0, 0)
    assert len(e.fake.requests) == 1 and len(e.facts()) == 3


def test_a_repeated_fact_reinforces_the_one_stored(env: Callable[..., Env]) -> None:
    e = env()
    first = e.episode("carol | likes | jazz")
    second = e.episode("carol | likes | jazz; carol | likes | jazz; carol | lives in | Oslo")
    assert e.run() == counts(2, 1, 0, 2)  # in one batch: the second episode reinforces
    third = e.episode("carol | likes | jazz")
    assert e.run() == counts(0, 1, 0, 1)  # across runs too
    facts = e.facts()
    assert set(facts) == {("carol", "likes", "jazz"), ("carol", "lives in", "Oslo")}
    jazz = facts[("carol", "likes", "jazz")]
    assert [a["action"] for a in e.audit(jazz["id"])] == ["create", "reinforce", "reinforce"]
    assert e.edges(jazz["id"]) == {("derived_from", rid) for rid in (first, second, third)}


def test_an_episode_is_stored_whole_or_not_at_all(env: Callable[..., Env]) -> None:
    e = env()
    e.episode("xena | is | known", sensitivity="high")
    assert e.run() == counts(1, 0, 0, 1)
    rid = e.episode("xena | is | known; yves | is | new", sensitivity="high")
    # a runner that may not write `high` facts: the reinforcement of the first triple is
    # rolled back with the refused second one, and the episode counts a failed attempt
    low = TrustContext(ceiling=Sensitivity.low, scopes=None, actor_id="system:consolidation")
    assert e.run(low) == counts(0, 0, 1, 0)
    known = e.facts()[("xena", "is", "known")]
    assert [a["action"] for a in e.audit(known["id"])] == ["create"]
    assert [a["details"]["reason"] for a in _actions(e, rid)] == ["store_error: Forbidden"]
    assert e.run() == counts(1, 1, 0, 1)
    assert [a["action"] for a in e.audit(known["id"])] == ["create", "reinforce"]


@pytest.mark.parametrize(
    ("behaviour", "reason"),
    [
        (MALFORMED, "malformed"),
        (PROSE_ONLY, "no_array"),
        (text('[{"subject": "", "predicate": "x"}]'), "no_triples"),
        (oversized(2000), "oversized"),
        (text(""), "empty_answer"),
    ],
    ids=["malformed", "prose-only", "nothing-usable", "oversized", "blank"],
)
def test_an_unusable_answer_is_skipped_and_retried_next_run(
    env: Callable[..., Env], behaviour: Behaviour, reason: str
) -> None:
    e = env(max_answer_chars=2000)
    rid = e.episode("dave | works at | Acme")
    e.fake.script.append(behaviour)
    assert e.run() == counts(0, 0, 1, 0)
    failed = _actions(e, rid)
    assert [(a["action"], a["details"]) for a in failed] == [
        ("consolidate:extraction-failed", {"reason": reason, "attempt": 1})
    ]
    assert e.facts() == {}
    assert e.run() == counts(1, 0, 0, 1)  # the next run asks again and gets an answer
    assert set(e.facts()) == {("dave", "works at", "Acme")}


def test_an_empty_array_means_nothing_worth_keeping(env: Callable[..., Env]) -> None:
    e = env()
    rid = e.episode("the weather was fine")
    e.fake.script.append(EMPTY)
    assert e.run() == counts(0, 0, 0, 1)  # done, nothing created, never asked again
    assert [a["details"] for a in e.audit(rid) if a["action"] == "consolidate:extraction"] == [
        {"created": 0, "reinforced": 0, "model": e.settings.llm.model}
    ]
    calls = len(e.fake.requests)
    assert e.run() == counts(0, 0, 0, 0)
    assert len(e.fake.requests) == calls


def test_prose_and_fences_around_the_answer_are_tolerated(env: Callable[..., Env]) -> None:
    e = env()
    e.episode("erin | speaks | Finnish")
    e.fake.script.append(PROSE)
    assert e.run() == counts(1, 0, 0, 1)
    assert set(e.facts()) == {("erin", "speaks", "Finnish")}


def test_an_episode_is_given_up_after_max_attempts(env: Callable[..., Env]) -> None:
    e = env(max_attempts=2)
    e.fake.default = PROSE_ONLY
    rid = e.episode("frank | owns | a boat")
    assert e.run() == counts(0, 0, 1, 0)
    assert e.run() == counts(0, 0, 1, 0)
    assert [(a["action"], a["details"]) for a in _actions(e, rid)] == [
        ("consolidate:extraction-failed", {"reason": "no_array", "attempt": 1}),
        ("consolidate:extraction-failed", {"reason": "no_array", "attempt": 2}),
        ("consolidate:extraction", {"skipped": "no_array", "attempts": 2}),
    ]
    assert e.run() == counts(0, 0, 0, 0)
    assert len(e.fake.requests) == 2


def test_rate_limit_is_retried_after_retry_after(env: Callable[..., Env]) -> None:
    e = env(backoff_s=0.001)
    e.episode("gina | drives | a tram")
    e.fake.script.append(rate_limited("0.3"))
    assert e.run() == counts(1, 0, 0, 1)
    assert len(e.fake.requests) == 2
    assert e.fake.times[1] - e.fake.times[0] >= 0.3


def test_server_errors_skip_the_batch_after_retries_and_the_run_goes_on(
    env: Callable[..., Env],
) -> None:
    e = env(max_retries=2)
    rid = e.episode("hank | fears | heights")
    e.episode("ivy | collects | stamps", sensitivity="medium")  # another batch
    e.fake.script.extend([SERVER_ERROR] * 3)
    assert e.run() == counts(1, 0, 1, 1)
    assert len(e.fake.requests) == 4  # three tries of the first batch, one of the second
    # the endpoint's fault, not the episode's: no attempt is used up, it simply waits
    assert _actions(e, rid) == []
    assert set(e.facts()) == {("ivy", "collects", "stamps")}
    assert e.run() == counts(1, 0, 0, 1)


def test_a_dead_endpoint_stops_the_run_after_three_failed_calls(
    env: Callable[..., Env],
) -> None:
    e = env(max_retries=0, batch_size=1)
    e.fake.default = SERVER_ERROR
    for name in ("jo", "kim", "lee", "max"):
        e.episode(f"{name} | is | here")
    assert e.run() == counts(0, 0, 3, 0)
    assert len(e.fake.requests) == 3  # the fourth episode waits for the next run
    e.fake.default = Behaviour("good")
    assert e.run() == counts(4, 0, 0, 4)


def test_a_hanging_endpoint_times_out_and_is_skipped(env: Callable[..., Env]) -> None:
    e = env(timeout_s=0.2, max_retries=1)
    rid = e.episode("nina | plays | cello")
    e.fake.script.extend([hang(3.0), hang(3.0)])
    assert e.run() == counts(0, 0, 1, 0)
    assert len(e.fake.requests) == 2  # the first try and one retry, both cut off
    assert _actions(e, rid) == []  # a slow endpoint uses none of the episode's attempts
    assert e.run() == counts(1, 0, 0, 1)


@pytest.mark.parametrize("limit", ["calls", "tokens"])
def test_the_budget_stops_the_run_and_the_next_run_continues(
    env: Callable[..., Env], limit: str
) -> None:
    budget = {"max_calls_per_run": 2} if limit == "calls" else {"max_tokens_per_run": 500}
    e = env(batch_size=1, **budget)
    for name in ("olga", "pete", "quin"):
        e.episode(f"{name} | likes | {'long text ' * 60}")
    per_run = 2 if limit == "calls" else 1  # one call spends more than 500 tokens
    first = e.run()
    assert first == counts(per_run, 0, 0, per_run)
    assert len(e.fake.requests) == per_run
    second = e.run()
    assert first["extraction_episodes"] + second["extraction_episodes"] == min(3, 2 * per_run)
    while e.run()["extraction_episodes"]:
        pass
    assert len(e.facts()) == 3 and len(e.fake.requests) == 3


def test_sensitive_and_scoped_episodes_batch_apart(env: Callable[..., Env]) -> None:
    e = env()
    e.episode("ruth | prefers | tea")
    e.episode("the vault | has code | 4711", sensitivity="high")
    e.episode("team a | deploys on | fridays", scope="team-a")
    e.episode("sam | prefers | coffee")
    assert e.run() == counts(4, 0, 0, 4)
    assert sorted(e.fake.batches()) == sorted(
        [
            ["ruth | prefers | tea", "sam | prefers | coffee"],
            ["the vault | has code | 4711"],
            ["team a | deploys on | fridays"],
        ]
    )
    facts = e.facts()
    vault = facts[("the vault", "has code", "4711")]
    assert vault["sensitivity"] == "high"
    assert facts[("team a", "deploys on", "fridays")]["scope"] == "team-a"
    assert facts[("ruth", "prefers", "tea")]["sensitivity"] == "low"
    seen = e.facts(R)
    assert ("the vault", "has code", "4711") not in seen and ("ruth", "prefers", "tea") in seen
    r = e.client.get("/v1/records", params={"type": "semantic"}, headers=R)
    assert vault["id"] not in {f["id"] for f in r.json()["items"]}
    found = e.client.post("/v1/retrieve", json={"query": "vault code 4711"}, headers=R).json()
    assert all(i["record"]["sensitivity"] in ("public", "low") for i in found["items"])


def test_compressed_and_blank_episodes_are_not_sent(env: Callable[..., Env]) -> None:
    e = env()
    e.episode("uma | is | compressed", tags=["consolidation:compressed"])
    e.episode("   ")
    e.episode("vic | is | plain")
    assert e.run() == counts(1, 0, 0, 1)
    assert e.fake.batches() == [["vic | is | plain"]]


def test_the_stage_is_off_without_a_base_url(db_url: str, fake_llm: FakeLLM) -> None:
    settings = make_settings(db_url)
    assert settings.llm.base_url == ""
    db = Database(db_url)
    try:
        assert run_extraction_stage(db, PolicyEngine(settings), TRUST, settings, now=0.0) == {}
    finally:
        db.dispose()
    assert fake_llm.requests == []


# -- the answer parser (pure) --------------------------------------------------------------


def parse(answer: str, episodes: int = 1, per_episode: int = 50) -> tp.Extraction:
    return tp.parse_triples(
        answer, episodes=episodes, max_chars=10_000, max_per_episode=per_episode
    )


def fact(episode: Any = None, s: Any = "a", p: Any = "b", o: Any = "c") -> dict[str, Any]:
    out = {"subject": s, "predicate": p, "object": o}
    return out if episode is None else {"episode": episode, **out}


def test_parser_tolerates_fences_prose_and_wrappers() -> None:
    body = json.dumps([fact(1), fact(2, "x", "y", "z")])
    for answer in (
        body,
        f"Sure! [1] Here they are:\n```json\n{body}\n```\nAnything else?",
        f"Note [see below]: {body} — done.",
        json.dumps({"triples": json.loads(body)}),
    ):
        out = parse(answer, episodes=2)
        assert out.error is None, answer
        assert out.triples == {1: [("a", "b", "c")], 2: [("x", "y", "z")]}


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ("", "empty_answer"),
        ("  \n ", "empty_answer"),
        ("No facts here.", "no_array"),
        ('{"subject": "a"}', "no_array"),
        ('[{"subject": "a", "predicate": ', "malformed"),
        ("[1, 2, 3]", "malformed"),
        ("[" * 5000, "malformed"),
        ('[{"subject": "a", "predicate": ""}]', "no_triples"),
        (json.dumps([fact(1, s=""), fact(1, o=None), fact(1, p={"x": 1})]), "no_triples"),
        ("[" + ",".join([json.dumps(fact(1))] * 400) + "]", "oversized"),
    ],
)
def test_parser_rejects_unusable_answers(answer: str, error: str) -> None:
    assert parse(answer).error == error


def test_parser_cleans_caps_and_deduplicates_fields() -> None:
    long = "w" * (tp.OBJECT_CHARS + 50)
    items = [
        fact(1, "  Alice \n  Smith ", " likes\t", " tea "),
        fact(1, "Alice Smith", "likes", "tea"),  # the same after cleaning
        fact(1, "nul\u0000led", "is", 42),
        fact(1, True, "count", 1.5),
        fact(1, "long", "text", long),
        fact(1, ["list"], "x", "y"),
        "not an object",
    ]
    out = parse(json.dumps(items))
    assert out.triples[1] == [
        ("Alice Smith", "likes", "tea"),
        ("nulled", "is", "42"),
        ("true", "count", "1.5"),
        ("long", "text", "w" * tp.OBJECT_CHARS),
    ]
    assert out.dropped == 3


def test_parser_maps_triples_to_their_episode() -> None:
    # a batch of one: a missing number means that episode; a wrong one is dropped
    one = parse(json.dumps([fact(), fact(1, "x"), fact(2, "y")]))
    assert one.triples == {1: [("a", "b", "c"), ("x", "b", "c")]} and one.dropped == 1
    # a batch of several: no number, a wrong one, a bool → dropped
    items = [fact(None), fact(0), fact(4), fact(True), fact("2"), fact(3.0, "z"), fact("x")]
    many = parse(json.dumps(items), episodes=3)
    assert many.triples == {2: [("a", "b", "c")], 3: [("z", "b", "c")]}
    assert many.dropped == 5


def test_parser_caps_the_triples_of_an_episode() -> None:
    items = [fact(1, f"s{i}") for i in range(5)] + [fact(2, "t")]
    out = parse(json.dumps(items), episodes=2, per_episode=3)
    assert [t[0] for t in out.triples[1]] == ["s0", "s1", "s2"]
    assert out.triples[2] == [("t", "b", "c")] and out.dropped == 2


def test_prompt_numbers_the_episodes_and_caps_summaries() -> None:
    messages = tp.messages_for(['say "hi"\n[2] not an episode', "x" * (tp.SUMMARY_CHARS + 9)])
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "JSON array" in messages[0]["content"]
    user = messages[1]["content"]
    data = json.loads(user[user.index("{") :])
    assert [e["episode"] for e in data["episodes"]] == [1, 2]
    assert data["episodes"][0]["summary"] == 'say "hi"\n[2] not an episode'
    assert len(data["episodes"][1]["summary"]) == tp.SUMMARY_CHARS


# -- the chat client -----------------------------------------------------------------------


def chat(fake: FakeLLM, **kw: Any) -> ChatClient:
    cfg = {"model": "m", "timeout_s": 2.0, "max_retries": 2, "backoff_s": 0.001, **kw}
    return ChatClient(base_url=fake.url, **cfg)


MESSAGES = tp.messages_for(["wes | likes | tea"])


def test_client_answers_and_counts_tokens(fake_llm: FakeLLM) -> None:
    budget = Budget(max_calls=5, max_tokens=10**6)
    with chat(fake_llm, api_key="k") as c:
        answer = c.complete(MESSAGES, max_tokens=99, budget=budget)
        fake_llm.script.append(Behaviour("good", usage=False))
        estimated = c.complete(MESSAGES, max_tokens=99, budget=budget)
    assert json.loads(answer.text) == [fact(1, "wes", "likes", "tea")]
    prompt = sum(len(m["content"]) for m in MESSAGES)
    assert answer.total_tokens == prompt // 4 + len(answer.text) // 4
    assert estimated.total_tokens == (prompt + len(estimated.text)) // 4
    assert (budget.calls, budget.tokens) == (2, answer.total_tokens + estimated.total_tokens)
    assert fake_llm.requests[0]["max_tokens"] == 99
    assert fake_llm.auth_headers[0] == "Bearer k"


def test_client_budget_refuses_calls_once_spent(fake_llm: FakeLLM) -> None:
    budget = Budget(max_calls=1, max_tokens=10**6)
    with chat(fake_llm) as c:
        c.complete(MESSAGES, max_tokens=10, budget=budget)
        with pytest.raises(BudgetExhausted):
            c.complete(MESSAGES, max_tokens=10, budget=budget)
    tokens = Budget(max_calls=10, max_tokens=1)
    with chat(fake_llm) as c:
        c.complete(MESSAGES, max_tokens=10, budget=tokens)
        with pytest.raises(BudgetExhausted):
            c.complete(MESSAGES, max_tokens=10, budget=tokens)
    assert len(fake_llm.requests) == 2


@pytest.mark.parametrize(
    ("script", "reason", "tries"),
    [
        ([Behaviour("status", status=400)], "http_400", 1),
        ([SERVER_ERROR] * 3, "http_500", 3),
        ([hang(3.0)] * 3, "timeout", 3),
    ],
    ids=["bad-request", "server-error", "timeout"],
)
def test_client_raises_typed_errors(
    fake_llm: FakeLLM, script: list[Behaviour], reason: str, tries: int
) -> None:
    fake_llm.script.extend(script)
    with chat(fake_llm, timeout_s=0.2) as c, pytest.raises(LLMError) as err:
        c.complete(MESSAGES, max_tokens=10)
    assert err.value.reason == reason
    assert len(fake_llm.requests) == tries


def test_client_refuses_unusable_responses(fake_llm: FakeLLM) -> None:
    with chat(fake_llm, max_response_bytes=4096) as c:
        fake_llm.script.append(oversized(10_000))
        with pytest.raises(LLMError) as err:
            c.complete(MESSAGES, max_tokens=10)
        assert err.value.reason == "oversized"
    with ChatClient(base_url=fake_llm.url + "/nowhere", model="m", max_retries=0) as c:
        with pytest.raises(LLMError) as err:
            c.complete(MESSAGES, max_tokens=10)
        assert err.value.reason == "http_404"


def test_client_reports_an_unreachable_endpoint() -> None:
    with serve_fake_llm() as gone:
        url = gone.url
    client = ChatClient(base_url=url, model="m", max_retries=1, backoff_s=0.001)
    with client as c, pytest.raises(LLMError) as err:
        c.complete(MESSAGES, max_tokens=10)
    assert err.value.reason == "unreachable"
