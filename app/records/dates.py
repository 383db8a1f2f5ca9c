"""Time expressions resolved against the time of the event that says them (pure).

"I went to the support group yesterday", said on 8 May 2023, is about 7 May 2023. At
capture the event's own date and every relative expression of its text that names a day
("yesterday", "last night", "three days ago", "last Saturday", "last weekend", "two weeks
ago", "last month", …) are resolved to calendar dates and written as words ("7 may 2023")
into the record's search text, so that a later question naming the date, the month or the
year finds the memory lexically although its text never spelled the date out."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, timedelta

MONTHS = [
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
]  # fmt: skip
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MAX_DATES = 12  # per text: the event's own date and the first relative ones
_COUNTS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "a few": 3, "a couple of": 2, "few": 3,
}  # fmt: skip
_COUNT_WORDS = "a couple of|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten|few"
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}


def _months_back(anchor: date, months: int) -> date:
    """The same day `months` months earlier (clamped to the month's last day)."""
    year, month = divmod(anchor.year * 12 + anchor.month - 1 - months, 12)
    month += 1
    for day in range(anchor.day, 0, -1):
        try:
            return date(year, month, day)
        except ValueError:
            continue
    return date(year, month, 1)


def _ago(match: re.Match[str], anchor: date) -> date | None:
    count = _COUNTS.get(match.group(1)) or (int(match.group(1)) if match.group(1).isdigit() else 0)
    if not 0 < count <= 100:
        return None
    unit = match.group(2)
    if unit == "month":
        return _months_back(anchor, count)
    if unit == "year":
        return _months_back(anchor, 12 * count)
    return anchor - timedelta(days=count * _UNIT_DAYS[unit])


def _last_weekday(match: re.Match[str], anchor: date) -> date:
    """The most recent such weekday strictly before the anchor's day."""
    back = (anchor.weekday() - WEEKDAYS.index(match.group(1))) % 7
    return anchor - timedelta(days=back or 7)


Rule = tuple[re.Pattern[str], Callable[[re.Match[str], date], date | None]]
_RULES: list[Rule] = [
    (re.compile(r"\b(?:the day before yesterday)\b"), lambda m, a: a - timedelta(days=2)),
    (re.compile(r"\b(?:(?<!before )yesterday|last night)\b"), lambda m, a: a - timedelta(days=1)),
    (re.compile(r"\b(?:tomorrow)\b"), lambda m, a: a + timedelta(days=1)),
    (re.compile(r"\b(\d{1,3}|" + _COUNT_WORDS + r") (day|week|month|year)s? ago\b"), _ago),
    (re.compile(r"\blast week\b"), lambda m, a: a - timedelta(days=7)),
    (
        re.compile(r"\blast weekend\b"),
        lambda m, a: a - timedelta(days=(a.weekday() - 5) % 7 or 7),
    ),
    (re.compile(r"\blast month\b"), lambda m, a: _months_back(a, 1)),
    (re.compile(r"\blast year\b"), lambda m, a: _months_back(a, 12)),
    (re.compile(r"\bnext week\b"), lambda m, a: a + timedelta(days=7)),
    (re.compile(r"\b(?:last|this past) (" + "|".join(WEEKDAYS) + r")\b"), _last_weekday),
]


def resolved_dates(text: str, anchor: date) -> list[date]:
    """The anchor, then the dates `text`'s relative expressions name, first seen first."""
    found = [anchor]
    lowered = text.casefold()
    for pattern, resolve in _RULES:
        for match in pattern.finditer(lowered):
            day = resolve(match, anchor)
            if day is not None and day not in found:
                found.append(day)
    return found[:MAX_DATES]


def date_words(day: date) -> str:
    """`7 may 2023`: day, month name and year, the words a question would use."""
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


def event_date(timestamp: object) -> date | None:
    """The calendar date (UTC as written) of an ISO-8601 event time, or None."""
    if not isinstance(timestamp, str) or not timestamp:
        return None
    try:
        return datetime.fromisoformat(timestamp.replace("Z", "+00:00")).date()
    except ValueError:
        return None


def dated_terms(events: list[tuple[str, object]]) -> str:
    """The date words of (text, event time) pairs: each event's own date and the dates its
    text names relative to it, each date once."""
    days: list[date] = []
    for text, timestamp in events:
        anchor = event_date(timestamp)
        if anchor is None:
            continue
        days += [d for d in resolved_dates(text, anchor) if d not in days]
    return " ".join(date_words(d) for d in days[:MAX_DATES])
