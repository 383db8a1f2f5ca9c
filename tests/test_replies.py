"""An episode is found by the question it answers (app/capture/replies.py): capture adds
the questions of the episode just before it (same scope, same sitting, no more
sensitive) to its search text, and nothing else changes."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, select

from app.capture.service import CaptureService
from app.errors import Conflict
from app.models import RecordRow
from app.records.search_text import MAX_QUESTION_CHARS, questions_asked
from tests.conftest import app_state, auth

AT = "2023-05-08T13:56:00Z"


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        (
            "Nate: Hey! Long time no see. What have you been playing lately?",
            "What have you been playing lately?",
        ),
        ("What was it about? What made it special?", "What was it about? What made it special?"),
        ("user: how do I reset the VPN?\nagent: try this", "how do I reset the VPN?"),
        ("Is it 3.5 or 4.0? Yes.", "Is it 3.5 or 4.0?"),
        ("Nothing to ask. Really!", ""),
        ("?", ""),
        ('He said "are you sure?" Then left.', 'He said "are you sure?"'),
        ("Élodie: Tu viens demain？ ok", "Tu viens demain？"),
        ("Seriously, why?! Fine.", "Seriously, why?!"),
    ],
)
def test_questions_asked_are_the_question_sentences_without_a_label(text: str, asked: str) -> None:
    assert questions_asked(text) == asked


def test_questions_asked_take_each_field_apart_and_each_question_once() -> None:
    # A field without a final stop must not run into the next field's question, and the
    # summary repeated as the timeline's summary gives its question once.
    fields = ("Deploy of the api failed", "Kim: why did it fail?", "Kim: why did it fail?")
    assert questions_asked(*fields) == "why did it fail?"


def test_questions_asked_stop_at_whole_sentences_within_the_bound() -> None:
    long = " ".join(f"Is question number {i} the one you meant?" for i in range(40))
    asked = questions_asked(long)
    assert 0 < len(asked) <= MAX_QUESTION_CHARS
    assert asked.endswith("meant?") and long.startswith(asked)


def turn(
    text: str, scope: str | None = "chat", at: str | None = AT, **extra: Any
) -> dict[str, Any]:
    return {
        "source": "chat",
        "source_kind": "event",
        "scope": scope,
        "summary": text,
        "timestamp": at,
        **extra,
    }


def capture(client: TestClient, body: dict[str, Any]) -> str:
    r = client.post("/v1/capture", json=body, headers=auth("writer"))
    assert r.status_code == 201, r.text
    return str(r.json()["primary_record"]["id"])


def search_text(client: TestClient, record_id: str) -> str:
    with app_state(client).db.read_transaction() as session:
        stmt = select(RecordRow.search_text).where(RecordRow.id == record_id)
        return str(session.scalars(stmt).one())


def lexical_hits(client: TestClient, query: str) -> dict[str, float]:
    body = {"query": query, "types": ["episodic"], "limit": 10, "expand_context": False}
    r = client.post("/v1/retrieve", json=body, headers=auth("writer"))
    assert r.status_code == 200, r.text
    items = r.json()["items"]
    return {it["record"]["id"]: it["components"]["lexical"] for it in items}


QUESTION = "Maria: Nice! What is your favourite console game these days?"
REPLY = "John: Xenoblade Chronicles, a fantasy RPG with huge worlds."


def test_a_reply_is_found_by_the_words_of_the_question_before_it(client: TestClient) -> None:
    asked = capture(client, turn(QUESTION))
    reply = capture(client, turn(REPLY))
    hits = lexical_hits(client, "favourite console game")
    assert hits.get(reply, 0) > 0  # none of these words is the reply's own
    text = search_text(client, reply)
    assert text.endswith("What is your favourite console game these days?")
    assert "Maria:" not in text  # the question's words, not its speaker label
    assert text.count("favourite") == 1  # the summary and the timeline repeat it: once
    r = client.get(f"/v1/records/{reply}", headers=auth("writer"))
    assert r.json()["payload"]["timeline"][0]["summary"] == REPLY  # what it says is unchanged
    assert r.json()["interpretation"]["questions_from"] == asked  # where the words came from


def test_only_the_previous_episodes_own_words_are_borrowed(client: TestClient) -> None:
    capture(client, turn("Ana: Shall we hike the ridge trail on Sunday?"))
    capture(client, turn("Ben: Sure. Which car do we take?"))
    third = capture(client, turn("Ana: Mine, it has room for the dog."))
    text = search_text(client, third)
    assert "Which car do we take?" in text
    assert "ridge" not in text  # the second turn's borrowed question is not passed on


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (turn(QUESTION, scope="other-chat"), turn(REPLY)),  # another scope
        (turn(QUESTION, at="2023-05-08T10:00:00Z"), turn(REPLY)),  # hours before: another sitting
        (turn(QUESTION, sensitivity="high"), turn(REPLY, sensitivity="low")),  # more sensitive
        (turn(QUESTION, at="2023-05-08T14:00:00Z"), turn(REPLY)),  # asked after the reply
        (turn(QUESTION, scope=None), turn(REPLY, scope=None)),  # unscoped: every agent's
    ],
    ids=["other-scope", "other-sitting", "more-sensitive", "asked-later", "unscoped"],
)
def test_no_words_cross_a_scope_a_sitting_or_a_sensitivity(
    client: TestClient, before: dict[str, Any], after: dict[str, Any]
) -> None:
    capture(client, before)
    reply = capture(client, after)
    assert "favourite" not in search_text(client, reply)
    assert reply not in lexical_hits(client, "favourite console game")


def test_a_batch_reply_borrows_from_the_question_staged_before_it(client: TestClient) -> None:
    items = [turn(QUESTION), {"source_kind": "nonsense"}, turn(REPLY)]
    r = client.post("/v1/capture/batch", json={"items": items}, headers=auth("writer"))
    assert r.status_code == 200, r.text
    results = r.json()["results"]
    assert [x["status"] for x in results] == [201, 422, 201]
    reply = results[2]["result"]["primary_record"]["id"]
    assert search_text(client, reply).endswith("What is your favourite console game these days?")
    assert lexical_hits(client, "favourite console game").get(reply, 0) > 0


def test_a_refused_batch_item_precedes_nothing(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    linked = CaptureService.link_fact

    def refuse_boom(self: CaptureService, row: Any, fact: Any, *args: Any) -> Any:
        if fact[0] == "boom":
            raise Conflict("refused after the episode was staged")
        return linked(self, row, fact, *args)

    monkeypatch.setattr(CaptureService, "link_fact", refuse_boom)
    boom = {"subject": "boom", "predicate": "happened at", "object": "noon"}
    items = [turn(QUESTION), turn("Did the boom happen at noon?", content=boom), turn(REPLY)]
    r = client.post("/v1/capture/batch", json={"items": items}, headers=auth("writer"))
    results = r.json()["results"]
    assert [x["status"] for x in results] == [201, 409, 201]
    text = search_text(client, results[2]["result"]["primary_record"]["id"])
    assert text.endswith("What is your favourite console game these days?")
    assert "boom" not in text  # the refused item's question was dropped with it


def test_a_batch_looks_up_its_scopes_questions_at_once(client: TestClient) -> None:
    """Each batch reply answers its scope's stored question, as a capture's would; the
    batch looks up the latest stored episode of all its scopes in one statement, not
    one per item (a round trip each)."""
    asked = {scope: capture(client, turn(QUESTION, scope=scope)) for scope in ("c1", "c2", "c3")}
    capture(client, turn("Ben: Anyone up for chess?", scope="other"))  # newer, another scope
    items = [turn(REPLY, scope=s) for s in ("c1", "c2", "c3", "c4")]
    engine = app_state(client).db.engine
    seen: list[str] = []

    def keep(_c: Any, _cur: Any, statement: str, *_rest: Any) -> None:
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", keep)
    try:
        r = client.post("/v1/capture/batch", json={"items": items}, headers=auth("writer"))
    finally:
        event.remove(engine, "before_cursor_execute", keep)
    assert r.status_code == 200 and r.json()["failed"] == 0, r.text
    replies = [x["result"]["primary_record"] for x in r.json()["results"]]
    for scope, reply in zip(("c1", "c2", "c3"), replies, strict=False):
        assert reply["interpretation"]["questions_from"] == asked[scope]
        assert search_text(client, reply["id"]).endswith("these days?")
    assert "questions_from" not in replies[3]["interpretation"]  # c4 holds no episode
    walks = [s for s in seen if "ORDER BY records.created_at DESC" in s or " walked" in s]
    assert len(walks) == 1 and " walked" in walks[0], walks
