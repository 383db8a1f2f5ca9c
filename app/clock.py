"""Time as the service sees it: UNIX epoch seconds inside, aware datetimes at the edges."""

from __future__ import annotations

import time
from datetime import UTC, datetime


def now() -> float:
    # Microsecond precision, so a timestamp read back from the API (ISO-8601, µs) compares
    # equal to the stored value.
    return round(time.time(), 6)


def to_datetime(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, tz=UTC)


def to_epoch(value: datetime) -> float:
    if value.tzinfo is None:  # naive timestamps are taken as UTC
        value = value.replace(tzinfo=UTC)
    return value.timestamp()


def epoch_of(value: object) -> float | None:
    """An ISO-8601 time stored in a payload as epoch seconds (naive read as UTC); None
    when it is not one."""
    if not isinstance(value, str):
        return None
    try:
        return to_epoch(datetime.fromisoformat(value))
    except ValueError:
        return None
