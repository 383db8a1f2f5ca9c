"""MEMBRANE_FAILPOINT's value: what arms a fail point, and what stops the process at
start instead of arming nothing (a misspelt point would leave a fault test waiting)."""

from __future__ import annotations

import pytest

from app import failpoints
from app.failpoints import SEMANTIC_BATCH_UNCOMMITTED as POINT


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", ("", "", 0)),
        (f"{POINT}:/tmp/x.marker", (POINT, "/tmp/x.marker", 1)),
        (f"{POINT}:/tmp/x.marker:3", (POINT, "/tmp/x.marker", 3)),
        (f"{POINT}:/tmp/a:b/x.marker", (POINT, "/tmp/a:b/x.marker", 1)),
    ],
)
def test_a_value_names_the_point_its_marker_file_and_which_arrival(
    value: str, expected: tuple[str, str, int]
) -> None:
    assert failpoints._parsed(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        "consolidation.no_such_point:/tmp/x.marker",
        f"{POINT}",
        f"{POINT}:",
        f"{POINT}:/tmp/x.marker:0",
    ],
)
def test_a_value_that_arms_nothing_is_refused(value: str) -> None:
    with pytest.raises(ValueError, match="MEMBRANE_FAILPOINT"):
        failpoints._parsed(value)


def test_an_unarmed_point_passes_straight_through() -> None:
    called: list[bool] = []
    failpoints.reach(POINT, before=lambda: called.append(True))  # returns: nothing armed
    assert called == []  # nor does it prepare a moment it will not hold
