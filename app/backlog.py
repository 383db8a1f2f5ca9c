"""How long a refused request should wait before it tries again (pure).

A process serves `slots` requests at once, each for about `mean_service_s` (a moving mean
of the requests it finished), so a request behind the ones already waiting gets a turn in
about (waiting + 1) × mean_service_s / slots. A fixed Retry-After of one second sent
every shed client back while that backlog was still there, to be shed again: at the load
ramp's 256 clients (bench/load.py, SQLite) 1,080 of 1,411 answers in a 10 s step were
such 503s, each costing the server and the client a round trip (with the drain time:
619). Telling a client the backlog's own drain time spreads the retries over the time the
service needs to reach them."""

from __future__ import annotations

import math

# Weight of the newest request in the moving mean: about the last 20 requests count.
SERVICE_TIME_WEIGHT = 0.05


def retry_after_s(
    waiting: int, slots: int, mean_service_s: float, floor_s: int, ceiling_s: int
) -> int:
    """Whole seconds (as Retry-After carries them) until a request that queued behind the
    `waiting` ones would get a turn, between `floor_s` and `ceiling_s`."""
    drain = (waiting + 1) * mean_service_s / max(slots, 1)
    return max(floor_s, min(ceiling_s, math.ceil(drain)))


def moving_mean(mean: float | None, sample: float, weight: float = SERVICE_TIME_WEIGHT) -> float:
    """The exponentially weighted mean after `sample` (the first sample is the mean)."""
    return sample if mean is None else mean + weight * (sample - mean)
