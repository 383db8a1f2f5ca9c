"""Scheduler wiring, leader lock, job-run history and the admin job endpoints."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.config import Settings
from app.consolidation.service import COMPRESSED_TAG
from app.db import Database
from app.jobs import service as runner
from app.jobs.service import RunOutcome, leader_lock, run_job, run_scheduled
from app.main import create_app
from app.models import JobRunRow, RelationRow
from tests.conftest import app_state, auth, make_settings
from tests.lifecycle_support import create, episodic, record_count


def _runs(db: Database) -> list[JobRunRow]:
    with db.transaction() as s:
        return list(s.scalars(select(JobRunRow).order_by(JobRunRow.id)))


def test_admin_runs_jobs_and_reads_history(client: TestClient) -> None:
    for job in ("decay", "consolidation"):
        r = client.post(f"/v1/jobs/{job}/run", headers=auth("admin"))
        assert r.status_code == 200, r.text
        assert r.json()["status"] == "succeeded" and r.json()["trigger"] == "manual"
        assert r.json()["duration_s"] >= 0
    history = client.get("/v1/jobs", headers=auth("admin")).json()["items"]
    assert [h["job"] for h in history] == ["consolidation", "decay"]
    only = client.get("/v1/jobs", params={"job": "decay"}, headers=auth("admin")).json()
    assert [h["job"] for h in only["items"]] == ["decay"]


def test_job_endpoints_are_admin_only(client: TestClient) -> None:
    assert client.post("/v1/jobs/decay/run", headers=auth("writer")).status_code == 403
    assert client.get("/v1/jobs", headers=auth("writer")).status_code == 403
    assert client.post("/v1/jobs/decay/run").status_code == 401
    assert client.post("/v1/jobs/vacuum/run", headers=auth("admin")).status_code == 422


def test_two_schedulers_on_one_database_run_a_tick_once(db_url: str, settings: Settings) -> None:
    """Two replicas fire the same tick at the same moment: exactly one runs it."""
    replicas = [Database(db_url), Database(db_url)]
    barrier = threading.Barrier(2)
    outcomes: list[RunOutcome] = []

    def replica(db: Database) -> None:
        barrier.wait()
        outcomes.append(run_scheduled(db, settings, "decay", interval_s=3600))

    threads = [threading.Thread(target=replica, args=(db,)) for db in replicas]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    runs = _runs(replicas[0])
    for db in replicas:
        db.dispose()
    assert [(r.job, r.trigger, r.status) for r in runs] == [("decay", "schedule", "succeeded")]
    assert sorted(o.run is None for o in outcomes) == [False, True]
    assert {o.skipped for o in outcomes} - {None} <= {"locked", "already_ran"}


def test_a_held_lock_makes_other_runners_skip(
    client: TestClient, db: Database, settings: Settings
) -> None:
    other_replica = Database(settings.database_url)
    try:
        with leader_lock(other_replica, "decay") as leader:
            assert leader
            assert run_job(db, settings, "decay", "schedule").skipped == "locked"
            r = client.post("/v1/jobs/decay/run", headers=auth("admin"))
            assert r.status_code == 409
        assert run_job(db, settings, "decay", "manual").run is not None
    finally:
        other_replica.dispose()
    assert len(_runs(db)) == 1


def test_next_tick_runs_again(db: Database, settings: Settings) -> None:
    assert run_scheduled(db, settings, "decay", interval_s=3600).run is not None
    assert run_scheduled(db, settings, "decay", interval_s=3600).skipped == "already_ran"
    # A tick an interval later (short interval here) runs again.
    assert run_scheduled(db, settings, "decay", interval_s=1e-9).run is not None
    assert len(_runs(db)) == 2


def test_a_failing_job_is_recorded(
    db: Database, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any) -> dict[str, Any]:
        raise ValueError("bad batch")

    monkeypatch.setitem(runner.JOBS, "decay", broken)
    outcome = run_job(db, settings, "decay", "manual")
    assert outcome.run is not None
    assert outcome.run.status == "failed"
    assert outcome.run.error == "ValueError: bad batch"
    assert outcome.run.finished_at is not None


def test_consolidation_compresses_old_episodes_once(
    client: TestClient, db: Database, settings: Settings
) -> None:
    ids = [create(client, episodic(f"step {i}"), scope="team-a")["id"] for i in range(3)]
    create(client, episodic("alone"), scope="team-b")
    later = time.time() + 2 * 3600
    first = run_job(db, settings, "consolidation", "manual", now=later).run
    assert first is not None and first.status == "succeeded", first and first.error
    assert first.counts["compressed_records"] == 1 and first.counts["compressed_sources"] == 3
    with db.transaction() as s:
        edges = list(s.scalars(select(RelationRow).where(RelationRow.predicate == "derived_from")))
    assert len({e.source_id for e in edges}) == 1
    assert sorted(e.target_id for e in edges) == sorted(ids)
    compressed = client.get(f"/v1/records/{edges[0].source_id}", headers=auth("admin")).json()
    assert compressed["type"] == "episodic" and COMPRESSED_TAG in compressed["tags"]
    assert compressed["scope"] == "team-a" and len(compressed["payload"]["timeline"]) == 3
    assert record_count(db) == 5  # the originals are kept
    second = run_job(db, settings, "consolidation", "manual", now=later).run
    assert second is not None and second.counts["compressed_records"] == 0


def test_scheduler_follows_settings(db_url: str, make_client: Callable[..., TestClient]) -> None:
    off = make_client(make_settings(db_url))
    assert app_state(off).scheduler is None
    on_settings = make_settings(
        db_url,
        scheduler={"enabled": True, "decay_interval_s": 120, "consolidation_interval_s": 900},
    )
    with TestClient(create_app(on_settings)) as on:
        scheduler = app_state(on).scheduler
        assert scheduler is not None
        jobs = {j.id: j.trigger.interval.total_seconds() for j in scheduler.get_jobs()}
        assert jobs == {"decay": 120, "consolidation": 900}
        assert scheduler.running
    assert not scheduler.running
