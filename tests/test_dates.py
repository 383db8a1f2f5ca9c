"""Time expressions resolved at capture (app/records/dates.py): the event's date and the
days its words name ("yesterday", "three days ago", "last Saturday") become words of the
record's search text, so a question that names the date finds the memory."""

from __future__ import annotations

from datetime import date

import pytest
from fastapi.testclient import TestClient

from app.records.dates import date_words, dated_terms, resolved_dates
from tests.conftest import auth

MONDAY = date(2023, 5, 8)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("I went to the dentist yesterday", date(2023, 5, 7)),
        ("we talked last night", date(2023, 5, 7)),
        ("the day before yesterday it rained", date(2023, 5, 6)),
        ("see you tomorrow", date(2023, 5, 9)),
        ("I painted it three days ago", date(2023, 5, 5)),
        ("a couple of days ago", date(2023, 5, 6)),
        ("2 weeks ago we moved", date(2023, 4, 24)),
        ("a month ago", date(2023, 4, 8)),
        ("a few years ago", date(2020, 5, 8)),
        ("last week was busy", date(2023, 5, 1)),
        ("last weekend we hiked", date(2023, 5, 6)),
        ("last Saturday", date(2023, 5, 6)),
        ("this past Monday", date(2023, 5, 1)),
        ("last month", date(2023, 4, 8)),
        ("LAST YEAR", date(2022, 5, 8)),
        ("next week", date(2023, 5, 15)),
    ],
)
def test_relative_expressions_resolve_against_the_event_date(text: str, named: date) -> None:
    assert resolved_dates(text, MONDAY) == [MONDAY, named]


def test_text_without_time_words_keeps_only_its_own_date() -> None:
    assert resolved_dates("an hour ago I said lastweek and yesterdays", MONDAY) == [MONDAY]


def test_month_arithmetic_clamps_to_the_last_day() -> None:
    assert resolved_dates("a month ago", date(2024, 3, 31)) == [
        date(2024, 3, 31),
        date(2024, 2, 29),
    ]


def test_dated_terms_are_words_once_each_and_skip_events_without_a_time() -> None:
    events: list[tuple[str, object]] = [
        ("lunch yesterday", "2023-05-08T13:56:00Z"),
        ("more yesterday", "2023-05-08T20:00:00+00:00"),
        ("undated", None),
        ("bad time", "not a time"),
    ]
    assert dated_terms(events) == "8 may 2023 7 may 2023"
    assert date_words(date(2024, 12, 1)) == "1 december 2024"


def test_a_question_naming_the_day_finds_the_memory_that_said_yesterday(
    client: TestClient,
) -> None:
    said = {
        "source": "agent",
        "source_kind": "event",
        "summary": "Caroline went to the support group yesterday",
        "timestamp": "2023-05-08T13:56:00Z",
    }
    other = {**said, "summary": "Caroline went to the support group", "timestamp": None}
    target = client.post("/v1/capture", json=said, headers=auth("writer"))
    client.post("/v1/capture", json=other, headers=auth("writer"))
    assert target.status_code == 201, target.text
    body = {"query": "support group on 7 May 2023", "limit": 5, "expand_context": False}
    found = client.post("/v1/retrieve", json=body, headers=auth("writer")).json()["items"]
    assert found[0]["record"]["id"] == target.json()["primary_record"]["id"]
    assert found[0]["components"]["lexical"] > found[1]["components"]["lexical"]
