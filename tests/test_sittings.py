"""Sittings: the records of one scope whose event times lie close together share in the
best match among them (app/retrieve/sittings.py, and through POST /v1/retrieve)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.clock import epoch_of
from app.retrieve.sittings import SITTING_SHARE, SITTING_WINDOW_S, best_nearby
from tests.conftest import auth

HOUR = 3600.0


def test_each_point_gets_the_best_value_among_the_others_of_its_sitting() -> None:
    points = [
        ("a", "s", 0.0),
        ("b", "s", 0.5 * HOUR),  # within 30 min of a and of c
        ("c", "s", 1.0 * HOUR),
        ("d", "s", 3.0 * HOUR),  # alone
        ("e", "t", 0.0),  # same time as a, other scope
        ("f", None, 0.1),
    ]
    value = {"a": 0.9, "b": 0.1, "c": 0.4, "d": 0.2, "e": 0.3, "f": 0.05}
    best = best_nearby(points, value)
    # never its own value: a alone in its sitting gains nothing, a best match only the
    # best of the others
    assert best == {"a": 0.1, "b": 0.9, "c": 0.1, "d": 0.0, "e": 0.0, "f": 0.0}
    assert SITTING_WINDOW_S == 0.5 * HOUR  # the window's edge is inside: b reaches a and c


def test_the_window_slides_with_each_record() -> None:
    # a chain 20 minutes apart: each point sees only its neighbours, not the chain's best
    points = [(f"r{i}", "s", i * 1200.0) for i in range(6)]
    value = {"r0": 1.0, "r1": 0.1, "r2": 0.2, "r3": 0.1, "r4": 0.1, "r5": 0.5}
    best = best_nearby(points, value)
    assert best == {"r0": 0.1, "r1": 1.0, "r2": 0.1, "r3": 0.2, "r4": 0.5, "r5": 0.1}


def test_many_records_at_one_time_each_see_the_best_of_the_others() -> None:
    points = [(f"r{i}", "s", 0.0) for i in range(37)]
    value = {f"r{i}": i / 100 for i in range(37)}
    best = best_nearby(points, value)
    assert best["r36"] == 0.35 and all(best[f"r{i}"] == 0.36 for i in range(36))


def _best_of_others_by_hand(
    points: list[tuple[str, str | None, float]], value: dict[str, float], window: float
) -> dict[str, float]:
    return {
        rid: max(
            (value[o] for o, s, t in points if o != rid and s == scope and abs(t - at) <= window),
            default=0.0,
        )
        for rid, scope, at in points
    }


def test_the_sparse_table_agrees_with_a_scan_of_every_pair() -> None:
    # Random sittings: ties in time (whole 10-minute steps), points exactly a window
    # apart, several scopes, equal values, a lone point, none at all.
    rng = random.Random(29)
    for _ in range(400):
        scopes = [None, "a", "b"][: rng.randint(1, 3)]
        points = [
            (f"r{i}", rng.choice(scopes), float(rng.choice([rng.randint(0, 12) * 600,
                                                             rng.uniform(0, 9000)])))
            for i in range(rng.randint(0, 70))
        ]  # fmt: skip
        value = {rid: rng.choice([0.0, 0.5, rng.random()]) for rid, _, _ in points}
        expected = _best_of_others_by_hand(points, value, SITTING_WINDOW_S)
        assert best_nearby(points, value) == expected


def test_event_times_read_as_epoch_seconds() -> None:
    assert epoch_of("2023-05-08T13:56:00Z") == 1683554160.0
    assert epoch_of("2023-05-08T13:56:00") == 1683554160.0  # naive: UTC
    assert epoch_of("2023-05-08T15:56:00+02:00") == 1683554160.0
    assert epoch_of("yesterday") is None
    assert epoch_of(None) is None and epoch_of(17) is None


def capture(client: TestClient, summary: str, at: str | None, **extra: Any) -> str:
    body = {
        "source": "agent",
        "source_kind": "event",
        "summary": summary,
        "scope": "team-a",
        **extra,
    }
    if at is not None:
        body["timestamp"] = at
    r = client.post("/v1/capture", json=body, headers=auth("writer"))
    assert r.status_code == 201, r.text
    rid: str = r.json()["primary_record"]["id"]
    return rid


def ask(client: TestClient, who: str = "writer", **body: Any) -> dict[str, dict[str, Any]]:
    query = {"query": "paint the garden fence", "scopes": ["team-a"], **body}
    r = client.post("/v1/retrieve", json=query, headers=auth(who))
    assert r.status_code == 200, r.text
    return {item["record"]["id"]: item for item in r.json()["items"]}


def test_a_record_of_the_best_matchs_sitting_outranks_its_twin(client: TestClient) -> None:
    # Captured in this order, so the strong hit's two neighbours get the same context
    # share; the newer twin wins a tie. Only `same` shares the hit's sitting (10 minutes).
    same = capture(client, "the paint was cheap", "2026-03-02T10:10:00Z")
    hit = capture(client, "we will paint the garden fence", "2026-03-02T10:00:00Z")
    later = capture(client, "the paint was cheap", "2026-03-02T14:00:00Z")

    plain = ask(client, expand_context=False)
    assert list(plain)[1:] == [later, same]  # twins: the newer first
    items = ask(client)
    assert list(items) == [hit, same, later]
    own, twin = items[same]["components"], items[later]["components"]
    assert own["context"] > twin["context"] > 0
    # `same` gains SITTING_SHARE of the hit's (the best) relevance; `later` is alone in
    # its sitting and gains nothing
    assert own["context"] - twin["context"] == pytest.approx(SITTING_SHARE)


def test_a_redacted_record_lends_its_sitting_nothing(client: TestClient) -> None:
    capture(client, "we will paint the garden fence", "2026-03-02T10:00:00Z", sensitivity="medium")
    same = capture(client, "the paint was cheap", "2026-03-02T10:10:00Z")
    items = ask(client, "reader", expand_context=True)  # ceiling low: medium is redacted
    assert items[same]["components"]["context"] == 0.0


def test_a_capture_without_a_timestamp_sits_when_it_was_captured(client: TestClient) -> None:
    # An agent recording as it goes gives no timestamp: the capture time is the event time.
    twin = capture(client, "the paint was cheap", "2020-03-02T10:00:00Z")
    hit = capture(client, "we will paint the garden fence", None)
    same = capture(client, "the paint was cheap", None)
    items = ask(client)
    assert list(items) == [hit, same, twin]
    own, other = items[same]["components"], items[twin]["components"]
    assert own["context"] - other["context"] == pytest.approx(SITTING_SHARE)
