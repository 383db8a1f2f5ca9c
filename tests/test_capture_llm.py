"""LLM interpretation at capture (app/interpret), through the HTTP API on both stores, with
a real OpenAI-compatible chat server on loopback (tests/llm_support.py).

Most tests run the API in `worker` mode (no background thread) and drain the queue by
calling the worker's `drain` directly, at a chosen `now`, so retries and give-ups are
deterministic; two tests run the worker where it really runs (the API process's thread,
and `app.worker.run`)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.capture.service import CaptureService
from app.config import Settings
from app.interpret import repository as queue_repo
from app.interpret import worker as interpret_worker
from app.interpret.parse import MAX_ENTITIES, parse_answer
from app.main import create_app
from app.worker import run as run_worker
from tests.conftest import app_state, auth
from tests.llm_support import (
    MALFORMED,
    PROSE_ONLY,
    Behaviour,
    FakeLLM,
    hang,
    llm_settings,
    serve_fake_llm,
    text,
)

W = auth("writer")
ADMIN = auth("admin")
Client = Callable[[Settings], TestClient]


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    with serve_fake_llm() as fake:
        yield fake


def answer(entities: list[Any], facts: list[dict[str, Any]] | None = None) -> Behaviour:
    return text(json.dumps({"entities": entities, "facts": facts or []}))


def settings_for(db_url: str, fake: FakeLLM, *, background: str = "worker", **llm: Any) -> Settings:
    cfg: dict[str, Any] = {"capture_interpretation": True, "capture_timeout_s": 5.0, **llm}
    return llm_settings(db_url, fake, **cfg).model_copy(update={"background": background})


def drain(client: TestClient, now: float | None = None) -> int:
    state = app_state(client)
    cfg = state.settings.llm
    with interpret_worker.chat_client(cfg) as chat:
        return interpret_worker.drain(state.db, state.policy, cfg, chat, now=now)


def queued(client: TestClient) -> int:
    with app_state(client).db.read_transaction() as session:
        return queue_repo.count(session)


def capture(client: TestClient, headers: dict[str, str] = W, **body: Any) -> dict[str, Any]:
    body.setdefault("source", "agent-1")
    r = client.post("/v1/capture", json=body, headers=headers)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def record(client: TestClient, record_id: str) -> dict[str, Any]:
    r = client.get(f"/v1/records/{record_id}", headers=ADMIN)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def audit(client: TestClient, record_id: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = client.get(
        f"/v1/records/{record_id}/audit", headers=ADMIN
    ).json()["items"]
    return items


def edges(client: TestClient, record_id: str, predicate: str) -> set[str]:
    out = client.get(f"/v1/records/{record_id}/relations", headers=ADMIN).json()["outgoing"]
    return {e["target_id"] for e in out if e["predicate"] == predicate}


def all_records(client: TestClient) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = client.get(
        "/v1/records", params={"limit": 500}, headers=ADMIN
    ).json()["items"]
    return items


def entity(client: TestClient, name: str, sensitivity: str, headers: dict[str, str]) -> str:
    """An entity record made directly (not captured, so not queued itself)."""
    body = {
        "payload": {"kind": "entity", "canonical_name": name},
        "scope": "team-a",
        "sensitivity": sensitivity,
    }
    r = client.post("/v1/records", json=body, headers=headers)
    assert r.status_code == 201, r.text
    rid: str = r.json()["id"]
    return rid


# -- the answer is good -------------------------------------------------------------------


def test_found_entities_link_and_facts_derive_within_the_capturers_ceiling(
    db_url: str, fake_llm: FakeLLM, make_client: Client
) -> None:
    client = make_client(settings_for(db_url, fake_llm))
    alice = entity(client, "Alice", "low", W)  # the writer (ceiling high) can read it
    hidden = entity(client, "Acme Corp", "hyper", ADMIN)  # above the writer's ceiling
    fake_llm.default = answer(
        [
            {"name": "Alice", "types": ["Person"]},
            {"name": "Acme Corp", "types": ["Organization"], "aliases": ["Acme"]},
            "Bob",
        ],
        [{"subject": "Alice", "predicate": "works at", "object": "Acme Corp"}],
    )
    out = capture(
        client,
        source_kind="event",
        content={"text": "Alice told Bob she works at Acme Corp", "entities": ["Bob"]},
        scope="team-a",
        tags=["hr"],
    )
    primary = out["primary_record"]
    assert primary["interpretation"]["llm"] == {"status": "pending"}
    assert fake_llm.requests == []  # the capture never waited on the model
    bob = out["created_records"][0]["id"]
    assert queued(client) == 1

    assert drain(client) == 1
    assert queued(client) == 0 and len(fake_llm.requests) == 1
    prompt = fake_llm.requests[0]["messages"][-1]["content"]
    assert "Alice told Bob she works at Acme Corp" in prompt

    rec = record(client, primary["id"])
    llm = rec["interpretation"]["llm"]
    assert llm["status"] == "done" and llm["model"] == "fake-extractor" and llm["attempts"] == 1
    assert llm["entities"] == [
        {"name": "Alice", "created": False},
        {"name": "Acme Corp", "created": True},
    ]  # Bob was linked by the rule-based interpreter already
    mentioned = edges(client, primary["id"], "mentions_entity")
    acme = (mentioned - {alice, bob}).pop()
    assert mentioned == {alice, bob, acme} and acme != hidden
    acme_rec = record(client, acme)
    assert acme_rec["payload"]["canonical_name"] == "Acme Corp"
    assert acme_rec["payload"]["aliases"] == ["Acme"] and acme_rec["scope"] == "team-a"
    assert acme_rec["sensitivity"] == primary["sensitivity"]

    [fact] = llm["facts"]
    assert (fact["subject"], fact["predicate"], fact["object"]) == (
        "Alice",
        "works at",
        "Acme Corp",
    )
    fact_rec = record(client, fact["record_id"])
    assert fact_rec["type"] == "semantic" and fact_rec["tags"] == ["hr"]
    assert fact_rec["payload"]["evidence"][0]["ref"] == primary["id"]
    assert edges(client, fact_rec["id"], "derived_from") == {primary["id"]}
    assert edges(client, fact_rec["id"], "subject_entity") == {alice}
    assert edges(client, fact_rec["id"], "object_entity") == {acme}
    assert fact_rec["interpretation"]["interpreter"] == "llm"
    assert audit(client, fact_rec["id"])[0]["actor"] == "writer"

    entry = audit(client, primary["id"])[-1]
    assert entry["action"] == "interpret:llm" and entry["actor"] == "writer"
    assert entry["details"]["status"] == "done"
    assert set(entry["details"]["created"]) == {acme, fact_rec["id"]}
    # The entity above the writer's ceiling was never resolved: its id is nowhere.
    seen = [rec, acme_rec, fact_rec, audit(client, primary["id"])]
    seen += [client.get(f"/v1/records/{r}/relations", headers=ADMIN).json() for r in mentioned]
    assert hidden not in json.dumps(seen)
    assert drain(client) == 0  # done once


def test_trust_is_the_capturers_narrowed_trust_at_capture_time(
    db_url: str, fake_llm: FakeLLM, make_client: Client
) -> None:
    client = make_client(settings_for(db_url, fake_llm))
    medium = entity(client, "Project Lark", "medium", W)
    fake_llm.default = answer(["Project Lark"])
    narrowed = {**W, "X-Membrane-Max-Sensitivity": "low"}
    out = capture(
        client, narrowed, source_kind="event", content={"text": "Lark shipped"}, scope="team-a"
    )
    assert drain(client) == 1
    [linked] = edges(client, out["primary_record"]["id"], "mentions_entity")
    assert linked != medium  # a medium entity is above the capture's narrowed ceiling
    assert record(client, linked)["sensitivity"] == "low"


def test_batch_capture_queues_every_stored_item(
    db_url: str, fake_llm: FakeLLM, make_client: Client
) -> None:
    client = make_client(settings_for(db_url, fake_llm))
    fake_llm.default = answer(["Zed"])
    items = [
        {"source": "a", "source_kind": "event", "content": {"text": "Zed called"}},
        {"source": "a", "source_kind": "nope"},
        {"source": "a", "source_kind": "event", "content": {"text": "Zed left"}},
    ]
    r = client.post("/v1/capture/batch", json={"items": items}, headers=W)
    assert r.status_code == 200 and r.json()["created"] == 2
    ids = [i["result"]["primary_record"]["id"] for i in r.json()["results"] if i["result"]]
    assert queued(client) == 2
    assert drain(client) == 2
    links = [edges(client, rid, "mentions_entity") for rid in ids]
    assert links[0] == links[1] and len(links[0]) == 1  # one Zed, created once, reused
    for rid in ids:
        assert record(client, rid)["interpretation"]["llm"]["status"] == "done"


def test_an_entity_capture_never_mentions_itself(
    db_url: str, fake_llm: FakeLLM, make_client: Client
) -> None:
    client = make_client(settings_for(db_url, fake_llm))
    fake_llm.default = answer([{"name": "ada", "types": ["Person"]}])
    out = capture(
        client, source_kind="observation", proposed_type="entity", content={"name": "Ada"}
    )
    rid = out["primary_record"]["id"]
    assert drain(client) == 1
    assert record(client, rid)["interpretation"]["llm"]["entities"] == []
    assert edges(client, rid, "mentions_entity") == set()


def test_dropped_items_are_counted_and_the_rest_is_kept(
    db_url: str, fake_llm: FakeLLM, make_client: Client
) -> None:
    client = make_client(settings_for(db_url, fake_llm))
    many = [f"Name {i}" for i in range(MAX_ENTITIES + 5)]
    fake_llm.default = text(
        "Sure! Here it is:\n```json\n"
        + json.dumps(
            {
                "entities": [{"name": ""}, 42, {"types": ["x"]}, *many],
                "facts": [{"subject": "Name 0", "predicate": "is"}, "nonsense"],
            }
        )
        + "\n```\nAnything else?"
    )
    out = capture(client, source_kind="event", content={"text": "a crowd"})
    assert drain(client) == 1
    llm = record(client, out["primary_record"]["id"])["interpretation"]["llm"]
    assert llm["status"] == "done" and llm["facts"] == []
    assert len(llm["entities"]) == MAX_ENTITIES and llm["dropped"] == 3 + 5 + 2


# -- the answer is bad, late, or the record moved on ------------------------------------


@pytest.mark.parametrize(
    ("behaviour", "reason"), [(MALFORMED, "malformed"), (PROSE_ONLY, "no_object")]
)
def test_unusable_answers_are_retried_then_failed_with_nothing_written(
    db_url: str, fake_llm: FakeLLM, make_client: Client, behaviour: Behaviour, reason: str
) -> None:
    client = make_client(settings_for(db_url, fake_llm, max_attempts=2))
    fake_llm.default = behaviour
    out = capture(client, source_kind="event", content={"text": "Alice met Bob"})
    rid = out["primary_record"]["id"]
    before = all_records(client)
    now = time.time()
    assert drain(client, now) == 1
    pending = record(client, rid)["interpretation"]["llm"]
    assert pending == {"status": "pending", "attempts": 1, "last_error": reason}
    assert drain(client, now) == 0  # not due again before its backoff
    assert drain(client, now + 3600) == 1
    llm = record(client, rid)["interpretation"]["llm"]
    assert llm == {"status": "failed", "reason": reason, "attempts": 2}
    assert [r["id"] for r in all_records(client)] == [r["id"] for r in before]
    assert edges(client, rid, "mentions_entity") == set()
    entry = audit(client, rid)[-1]
    assert entry["action"] == "interpret:llm" and entry["details"]["status"] == "failed"
    assert queued(client) == 0 and len(fake_llm.requests) == 2


def test_a_hanging_endpoint_never_holds_the_capture_and_ends_failed(
    db_url: str, fake_llm: FakeLLM, make_client: Client
) -> None:
    settings = settings_for(db_url, fake_llm, capture_timeout_s=0.2, max_retries=0, max_attempts=2)
    client = make_client(settings)
    fake_llm.default = hang(60)
    out = capture(client, source_kind="event", content={"text": "Alice met Bob"})
    rid = out["primary_record"]["id"]
    assert record(client, rid)["interpretation"]["llm"] == {"status": "pending"}
    now = time.time()
    assert drain(client, now) == 1
    assert record(client, rid)["interpretation"]["llm"]["last_error"] == "timeout"
    assert drain(client, now + 3600) == 1
    llm = record(client, rid)["interpretation"]["llm"]
    assert llm == {"status": "failed", "reason": "timeout", "attempts": 2}
    assert queued(client) == 0 and len(fake_llm.requests) == 2


def test_a_failed_write_leaves_nothing_and_is_retried(
    db_url: str, fake_llm: FakeLLM, make_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = make_client(settings_for(db_url, fake_llm))
    fake_llm.default = answer(
        ["Alice", "Acme"], [{"subject": "Alice", "predicate": "works at", "object": "Acme"}]
    )
    out = capture(client, source_kind="event", content={"text": "Alice works at Acme"})
    rid = out["primary_record"]["id"]
    before = [r["id"] for r in all_records(client)]

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the disk is full")

    with monkeypatch.context() as patch:  # fails after entities and the fact were created
        patch.setattr(CaptureService, "link_fact", boom)
        now = time.time()
        assert drain(client, now) == 1
    assert [r["id"] for r in all_records(client)] == before
    assert edges(client, rid, "mentions_entity") == set()
    llm = record(client, rid)["interpretation"]["llm"]
    assert llm == {"status": "pending", "attempts": 1, "last_error": "store_error: RuntimeError"}
    assert drain(client, now + 3600) == 1
    assert record(client, rid)["interpretation"]["llm"]["status"] == "done"
    assert len(edges(client, rid, "mentions_entity")) == 2


def test_retracted_records_are_skipped_and_deleted_ones_leave_the_queue(
    db_url: str, fake_llm: FakeLLM, make_client: Client
) -> None:
    client = make_client(settings_for(db_url, fake_llm))
    fact = capture(
        client,
        source_kind="observation",
        proposed_type="semantic",
        content={"subject": "Alice", "predicate": "likes", "object": "tea"},
    )["primary_record"]
    gone = capture(client, source_kind="event", content={"text": "soon deleted"})
    r = client.post(f"/v1/records/{fact['id']}/retract", json={"rationale": "no"}, headers=W)
    assert r.status_code == 200, r.text
    r = client.delete(f"/v1/records/{gone['primary_record']['id']}", headers=W)
    assert r.status_code == 200, r.text
    assert queued(client) == 1
    assert drain(client) == 1
    llm = record(client, fact["id"])["interpretation"]["llm"]
    assert llm == {"status": "skipped", "reason": "retracted"}
    assert audit(client, fact["id"])[-1]["action"] == "interpret:llm"
    assert fake_llm.requests == [] and queued(client) == 0


# -- off by default; where the worker runs ----------------------------------------------


@pytest.mark.parametrize("llm", [{}, {"capture_interpretation": True, "base_url": ""}])
def test_off_by_default_nothing_is_queued(
    db_url: str, fake_llm: FakeLLM, make_client: Client, llm: dict[str, Any]
) -> None:
    client = make_client(llm_settings(db_url, fake_llm, **llm))  # in-process background
    assert app_state(client).interpretation is None
    out = capture(client, source_kind="event", content={"text": "Alice met Bob"})
    assert "llm" not in out["primary_record"]["interpretation"]
    assert queued(client) == 0 and fake_llm.requests == []


def wait_for(client: TestClient, rid: str, status: str) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while True:
        llm: dict[str, Any] = record(client, rid)["interpretation"]["llm"]
        if llm["status"] == status:
            return llm
        assert time.monotonic() < deadline, f"still {llm}"
        time.sleep(0.05)


def test_the_api_process_worker_interprets_in_the_background(
    db_url: str, fake_llm: FakeLLM, make_client: Client
) -> None:
    client = make_client(settings_for(db_url, fake_llm, background="in_process"))
    assert app_state(client).interpretation is not None
    fake_llm.default = answer(["Quinn"])
    out = capture(client, source_kind="event", content={"text": "Quinn left"})
    llm = wait_for(client, out["primary_record"]["id"], "done")
    assert llm["entities"] == [{"name": "Quinn", "created": True}]


def test_a_hung_call_holds_no_transaction(db_url: str) -> None:
    with (
        serve_fake_llm() as fake,
        TestClient(
            create_app(
                settings_for(
                    db_url, fake, background="in_process", capture_timeout_s=30.0, max_retries=0
                )
            )
        ) as client,
    ):
        fake.script = [hang(60)]
        stuck = capture(client, source_kind="event", content={"text": "first"})
        deadline = time.monotonic() + 30
        while not fake.requests:  # the worker is inside its call now
            assert time.monotonic() < deadline, "the worker never called"
            time.sleep(0.02)
        # Captures still store meanwhile: a SQLite write turn held by the call would make
        # this one wait and answer 503.
        fake.default = answer(["Quinn"])
        out = capture(client, source_kind="event", content={"text": "Quinn arrived"})
        assert record(client, out["primary_record"]["id"])["type"] == "episodic"
        pending = record(client, stuck["primary_record"]["id"])["interpretation"]["llm"]
        assert pending == {"status": "pending"}
        fake.stop.set()  # end the hung call, so that the worker stops at once


def test_the_worker_process_interprets(db_url: str, fake_llm: FakeLLM, make_client: Client) -> None:
    settings = settings_for(db_url, fake_llm)  # the API process runs no worker
    client = make_client(settings)
    assert app_state(client).interpretation is None
    fake_llm.default = answer(["Rosa"])
    out = capture(client, source_kind="event", content={"text": "Rosa joined"})
    stop = threading.Event()
    thread = threading.Thread(target=run_worker, args=(settings, stop), daemon=True)
    thread.start()
    try:
        llm = wait_for(client, out["primary_record"]["id"], "done")
    finally:
        stop.set()
        thread.join(30)
    assert not thread.is_alive()
    assert llm["entities"] == [{"name": "Rosa", "created": True}]


# -- the parser (pure) ------------------------------------------------------------------


def test_parser_reads_fenced_and_bare_objects_and_refuses_the_rest() -> None:
    good = {"entities": [{"name": " Ada  Lovelace ", "type": "Person", "aliases": "Ada"}]}
    fenced = parse_answer(f"ok\n```json\n{json.dumps(good)}\n```", max_chars=10_000)
    assert fenced.error is None
    [ada] = fenced.entities
    assert (ada.name, ada.types, ada.aliases) == ("Ada Lovelace", ["Person"], ["Ada"])
    prose = parse_answer(
        'I see {"x": 1} and then {"facts": [{"subject": "a", "predicate": "b", "object": 3}]}',
        max_chars=10_000,
    )
    assert prose.facts == [("a", "b", "3")] and prose.entities == []
    assert parse_answer("", max_chars=100).error == "empty_answer"
    assert parse_answer("x" * 101, max_chars=100).error == "oversized"
    assert parse_answer('{"entities": [', max_chars=100).error == "malformed"
    assert parse_answer("nothing here", max_chars=100).error == "no_object"
    assert parse_answer('[{"name": "a"}]', max_chars=100).error == "malformed"
    dupes = parse_answer(
        json.dumps({"entities": ["A", "a", "B\x00"], "facts": "no"}), max_chars=1000
    )
    assert [m.name for m in dupes.entities] == ["A", "B"] and dupes.dropped == 2
