"""Neighbours from headers already read (`retrieve.adjacent`) agree with the look-ups of
`retrieve.neighbour_repository`: the small-scope path of a retrieve finds the same context
as every other retrieve."""

from __future__ import annotations

import random
import time
from typing import Any

from fastapi.testclient import TestClient

from app.records.filters import RecordFilter, RecordQuery
from app.retrieve import header_repository as header_repo
from app.retrieve import neighbour_repository as neighbour_repo
from app.retrieve.adjacent import adjacent_episodes
from app.trust import Visibility
from tests.conftest import app_state, auth


def _capture(client: TestClient, summary: str, at: float, **extra: Any) -> str:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))
    body = {"source": "agent", "source_kind": "event", "summary": summary, "timestamp": stamp}
    r = client.post("/v1/capture", json={**body, **extra}, headers=auth("admin"))
    assert r.status_code == 201, r.text
    rid: str = r.json()["primary_record"]["id"]
    return rid


def test_neighbours_from_the_admitted_headers_match_the_look_ups(client: TestClient) -> None:
    rng = random.Random(5)
    start = time.time() - 86_400
    for i in range(40):
        # Some share a timestamp (ties settle by id), some the reader cannot read, some
        # live in another scope: the filters leave gaps in the timeline.
        at = start + 60 * (i // 3)
        sensitivity = "high" if rng.random() < 0.25 else "low"
        scope = "elsewhere" if rng.random() < 0.15 else "team"
        _capture(client, f"step {i} of the deploy", at, scope=scope, sensitivity=sensitivity)
    db = app_state(client).db
    records = RecordQuery(RecordFilter(scopes=["team"]), Visibility(1, None), time.time())
    with db.read_transaction() as session:
        read = header_repo.every_admitted(session, records, None, limit=200)
        assert read is not None
        admitted = read[0]
        assert 0 < len(admitted) < 40
        seeds = sorted(admitted)
        for radius in (1, 2):
            known = set(seeds[::2])
            looked_up, near_headers = neighbour_repo.temporal_neighbours(
                session, [admitted[s] for s in seeds], records, radius, known=known
            )
            assert adjacent_episodes(admitted, seeds, radius) == looked_up
            # the headers of the neighbours picked, those the caller knows aside
            picked = {rid for near in looked_up.values() for rid, _ in near}
            assert set(near_headers) == picked - known
            assert all(near_headers[rid] == admitted[rid] for rid in near_headers)
            assert any(len(near) == 2 * radius for near in looked_up.values())
        assert header_repo.every_admitted(session, records, None, limit=len(admitted) - 1) is None
