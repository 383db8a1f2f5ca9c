"""Exact decay (DESIGN §5): the pure formula, its SQL twin, and the sweep."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from app.db import Database
from app.models import JobRunRow, RecordRow
from app.models.clauses import current_salience_sql
from app.records import repository as record_repo
from app.salience.decay import current_salience
from app.sweep.service import SWEEP_TOLERANCE, run_sweep
from tests.conftest import auth
from tests.lifecycle_support import audit_total, create, lifecycle, row, semantic

T0 = 1_700_000_000.0


def test_exponential_halves_every_half_life() -> None:
    assert current_salience(0.8, T0, T0, half_life_s=100) == 0.8
    assert current_salience(0.8, T0, T0 + 100, half_life_s=100) == pytest.approx(0.4)
    assert current_salience(0.8, T0, T0 + 300, half_life_s=100) == pytest.approx(0.1)


def test_linear_is_half_at_one_half_life_and_zero_at_two() -> None:
    kw: dict[str, Any] = {"half_life_s": 100, "curve": "linear"}
    assert current_salience(0.8, T0, T0 + 100, **kw) == pytest.approx(0.4)
    assert current_salience(0.8, T0, T0 + 200, **kw) == 0.0
    assert current_salience(0.8, T0, T0 + 10_000, **kw) == 0.0


def test_floor_and_pinned() -> None:
    assert current_salience(1.0, T0, T0 + 1e6, half_life_s=10, min_salience=0.2) == 0.2
    assert current_salience(0.7, T0, T0 + 1e9, half_life_s=10, pinned=True) == 0.7
    # A clock before t0 never raises salience above s0.
    assert current_salience(0.7, T0, T0 - 50, half_life_s=10) == 0.7


def _insert(db: Database, **state: Any) -> str:
    rid = str(uuid.uuid4())
    values: dict[str, Any] = {
        "id": rid,
        "type": "semantic",
        "status": "active",
        "sensitivity": 1,
        "confidence": 0.9,
        "scope": None,
        "tags": [],
        "created_at": T0,
        "updated_at": T0,
        "salience_base": 1.0,
        "salience_t0": T0,
        "decay_curve": "exponential",
        "half_life_s": 3600.0,
        "min_salience": 0.0,
        "max_age_s": None,
        "reinforcement_gain": 0.1,
        "pinned": False,
        "deletion_policy": "manual_only",
        "created_by": "test",
        "provenance": {},
        "interpretation": {},
        "payload": {"kind": "semantic", "subject": "s", "predicate": "p", "object": "o"},
        "search_text": "s p o",
        "embedding_status": "skipped",
    }
    values.update(state)
    values.setdefault("salience_swept", values["salience_base"])
    with db.transaction() as s:
        record_repo.bulk_insert(s, [values])
    return rid


def _sql_salience(db: Database, rid: str, now: float) -> float:
    with db.transaction() as s:
        expr = current_salience_sql(db.dialect, now)
        return float(s.scalar(select(expr).where(RecordRow.id == rid)) or 0.0)


@pytest.mark.parametrize("curve", ["exponential", "linear"])
@pytest.mark.parametrize("s0", [1e-320, 1e-200, 5e-324])
def test_tiny_salience_decays_to_zero_without_sql_underflow(
    db: Database, curve: str, s0: float
) -> None:
    """PostgreSQL raises on a product that underflows to 0; SQL and Python agree on 0."""
    rid = _insert(db, salience_base=s0, half_life_s=1.0, decay_curve=curve)
    later = T0 + 1.999 if curve == "linear" else T0 + 767
    run_sweep(db, now=later, batch_size=2)
    expected = current_salience(s0, T0, later, half_life_s=1.0, curve=curve)
    if s0 < 1e-300:
        assert expected == 0.0  # below 2^-1000 decay yields exactly 0
    assert _sql_salience(db, rid, later) == pytest.approx(expected, rel=1e-9, abs=1e-300)


decay_states = st.fixed_dictionaries(
    {
        "salience_base": st.floats(0.0, 1.0),
        "half_life_s": st.floats(1.0, 1e7),
        "decay_curve": st.sampled_from(["exponential", "linear"]),
        "min_salience": st.floats(0.0, 0.5),
        "pinned": st.booleans(),
    }
)
offsets = st.floats(0.0, 1e8)


@settings(
    max_examples=25,
    database=None,  # no example database written into the working tree
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(state=decay_states, sweeps=st.lists(offsets, max_size=4), final=offsets)
def test_sweeping_at_any_interval_equals_computing_once(
    db: Database, state: dict[str, Any], sweeps: list[float], final: float
) -> None:
    rid = _insert(db, **state)
    for offset in sorted(sweeps):
        run_sweep(db, now=T0 + offset, batch_size=2)
        swept = row(db, rid)
        assert swept is not None
        truth_then = current_salience(
            state["salience_base"],
            T0,
            T0 + offset,
            half_life_s=state["half_life_s"],
            curve=state["decay_curve"],
            min_salience=state["min_salience"],
            pinned=state["pinned"],
        )
        assert abs(swept.salience_swept - truth_then) <= SWEEP_TOLERANCE + 1e-12
        # The sweep never moves the decay baseline.
        assert (swept.salience_base, swept.salience_t0) == (state["salience_base"], T0)
    once = current_salience(
        state["salience_base"],
        T0,
        T0 + final,
        half_life_s=state["half_life_s"],
        curve=state["decay_curve"],
        min_salience=state["min_salience"],
        pinned=state["pinned"],
    )
    stored = row(db, rid)
    assert stored is not None
    assert stored.salience_at(T0 + final) == once
    assert _sql_salience(db, rid, T0 + final) == pytest.approx(once, rel=1e-12, abs=1e-300)


def test_sweep_refreshes_swept_in_batches_without_audit_rows(db: Database) -> None:
    ids = [_insert(db, half_life_s=100.0) for _ in range(7)]
    result = run_sweep(db, now=T0 + 100, batch_size=3)
    assert result.swept == 7
    assert result.pruned == 0
    for rid in ids:
        stored = row(db, rid)
        assert stored is not None and stored.salience_swept == pytest.approx(0.5)
    # A second sweep at the same instant has nothing left to write.
    assert run_sweep(db, now=T0 + 100, batch_size=3).swept == 0
    assert audit_total(db) == 0


def test_decay_job_is_recorded_once_as_a_job_run(client: TestClient, db: Database) -> None:
    for _ in range(3):
        create(client, semantic(), lifecycle=lifecycle(half_life=60))
    audit_before = audit_total(db)
    r = client.post("/v1/jobs/decay/run", headers=auth("admin"))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["job"] == "decay" and body["status"] == "succeeded"
    assert body["counts"]["pruned"] == 0
    assert audit_total(db) == audit_before  # no audit row per record per sweep
    with db.transaction() as s:
        runs = list(s.scalars(select(JobRunRow)))
    assert [(r.job, r.trigger, r.status) for r in runs] == [("decay", "manual", "succeeded")]
    assert runs[0].finished_at is not None and runs[0].finished_at >= runs[0].started_at


def test_reads_use_current_salience_not_the_last_sweep(client: TestClient, db: Database) -> None:
    rec = create(
        client, semantic(), salience=0.9, lifecycle=lifecycle(half_life=3600, policy="manual_only")
    )
    run_sweep(db, now=T0 * 2)  # a sweep "from the future" writes a tiny swept value
    stored = row(db, rec["id"])
    assert stored is not None and stored.salience_swept < 0.001
    got = client.get(f"/v1/records/{rec['id']}", headers=auth("reader")).json()
    assert got["salience"] == pytest.approx(0.9, abs=1e-3)
