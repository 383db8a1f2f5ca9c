"""Record ids (app/records/ids.py): version-7 UUIDs that never go below the previous one."""

from __future__ import annotations

import time
import uuid

import pytest

from app.records import ids


def test_ids_keep_growing_when_the_clock_steps_back(monkeypatch: pytest.MonkeyPatch) -> None:
    first = ids.new_record_id()
    an_hour_ago = time.time_ns() - 3600 * 10**9
    monkeypatch.setattr(time, "time_ns", lambda: an_hour_ago)
    later = [ids.new_record_id() for _ in range(3)]
    assert [first, *later] == sorted({first, *later})  # strictly growing, none repeated
    for rid in (first, *later):
        parsed = uuid.UUID(rid)
        assert parsed.version == 7 and parsed.variant == uuid.RFC_4122 and str(parsed) == rid


def test_an_id_carries_the_time_it_was_made() -> None:
    before_ms = time.time_ns() // 10**6
    rid = ids.new_record_id()
    after_ms = time.time_ns() // 10**6
    assert before_ms <= uuid.UUID(rid).int >> 80 <= after_ms
