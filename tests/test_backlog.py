"""Retry-After from the backlog (app/backlog.py, pure)."""

from __future__ import annotations

import pytest

from app.backlog import moving_mean, retry_after_s


@pytest.mark.parametrize(
    ("waiting", "slots", "service_s", "expected"),
    [
        (0, 4, 0.0, 1),  # nothing measured yet: the floor
        (0, 4, 0.05, 1),  # an idle queue drains at once: the floor
        (39, 4, 0.2, 2),  # 40 × 0.2 s / 4 slots = 2 s
        (40, 4, 0.2, 3),  # 2.05 s rounds up: a client told 2 would come back too early
        (1_000, 4, 0.2, 10),  # capped
    ],
)
def test_retry_after_is_the_drain_time_within_bounds(
    waiting: int, slots: int, service_s: float, expected: int
) -> None:
    assert retry_after_s(waiting, slots, service_s, floor_s=1, ceiling_s=10) == expected


def test_a_higher_floor_wins_over_a_short_backlog() -> None:
    assert retry_after_s(0, 1, 0.1, floor_s=5, ceiling_s=10) == 5


def test_moving_mean_starts_at_the_first_sample_and_follows_the_next() -> None:
    assert moving_mean(None, 0.3) == 0.3
    assert moving_mean(1.0, 2.0, weight=0.5) == 1.5
    mean = None
    for _ in range(200):
        mean = moving_mean(mean, 0.1)
    assert mean == pytest.approx(0.1)
