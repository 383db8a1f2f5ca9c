"""Scope sizes are counted once a minute per scope set, not once per threshold: a count
that stopped short of its threshold is the size, and answers every other threshold."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from app.db import Database
from app.retrieve import repository as search_repo
from app.retrieve import scope_sizes
from tests.conftest import make_settings
from tests.test_retrieve import capture


def test_one_count_answers_every_threshold(
    db_url: str, make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    client = make_client(make_settings(db_url))
    for i in range(5):
        capture(client, f"note {i}", scope="five")
    for i in range(3):
        capture(client, f"other {i}", scope="three")
    counted: list[tuple[tuple[str, ...], int]] = []
    count = search_repo.records_in_scopes

    def spy(session: object, scopes: list[str], n: int) -> int:
        counted.append((tuple(scopes), n))
        return count(session, scopes, n)  # type: ignore[arg-type]

    monkeypatch.setattr(search_repo, "records_in_scopes", spy)
    db = Database(db_url)
    try:
        with db.transaction() as s:
            assert scope_sizes.scopes_hold_fewer(s, ["five"], 20_000)
            assert scope_sizes.scopes_hold_fewer(s, ["five"], 6)
            assert not scope_sizes.scopes_hold_fewer(s, ["five"], 5)
            assert not scope_sizes.scopes_hold_fewer(s, ["five"], 2)
            assert counted == [(("five",), 20_000)]  # the size, known from the first count
            # A count that reached its threshold only says "at least": it answers the
            # thresholds below it, and a larger one is counted.
            assert not scope_sizes.scopes_hold_fewer(s, ["three"], 2)
            assert not scope_sizes.scopes_hold_fewer(s, ["three"], 1)
            assert scope_sizes.scopes_hold_fewer(s, ["three"], 4)
            assert counted[1:] == [(("three",), 2), (("three",), 4)]
            assert not scope_sizes.scopes_hold_fewer(s, ["three"], 3)
            assert len(counted) == 3
            assert scope_sizes.scopes_hold_fewer(s, ["five", "three"], 9)
            assert not scope_sizes.scopes_hold_fewer(s, ["three", "five"], 8)
            assert len(counted) == 4
    finally:
        db.dispose()
