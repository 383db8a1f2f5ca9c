"""The worker process killed (SIGKILL) during consolidation, twice, on both stores: each
promoted unit (an episode's facts, a competence group, a plan) is there whole or not at
all, exactly as its episodes' stage markers say, and the next run finishes the work with
no duplicate.

The worker is the real `python -m app.worker` with its scheduler running consolidation
every half second; the first kill lands inside the semantic stage's second transaction,
the second inside the competence stage's first (fail points, app/failpoints.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import func, select

from app import clock, failpoints
from app.consolidation import competence_stage, plan_graph_stage, semantic_stage
from app.db import Database
from app.jobs.service import run_now
from app.models import AuditRow, RecordRow
from app.records import payload_json
from tests.conftest import make_settings
from tests.fault_support import ROOT, failpoint_env, service_env, wait_until_held
from tests.store_consistency import Snapshot, store_problems

EPISODES = 400
SCOPES = 4
WORKFLOWS = [
    ["search_code", "read_file", "run_tests"],
    ["git_pull", "run_tests", "git_commit", "git_push"],
    ["http_get", "parse_json", "sql_insert"],
    ["read_file", "edit_file", "run_tests", "git_commit"],
    ["sql_query", "render_chart"],  # two nodes: a competence, never a plan
]
OBSERVATIONS = ["tests are green", "cache is cold", "disk at 91%", "token refreshed"]
FACT_MAKER = "consolidation/structural-semantic"
START_TIMEOUT_S = 300.0  # generous: a loaded CI machine is slow, the kill still lands mid-run


def _episode(n: int, t: float) -> RecordRow:
    tools = WORKFLOWS[n % len(WORKFLOWS)]
    nodes = [
        {"id": f"c{i}", "tool": tool, "args": {"n": n}, "depends_on": [f"c{i - 1}"] if i else []}
        for i, tool in enumerate(tools)
    ]
    timeline = [
        {"t": clock.to_datetime(t).isoformat(), "event_kind": "check", "summary": obs}
        for obs in (OBSERVATIONS[n % 4], OBSERVATIONS[(n + 1) % 4], f"run {n} finished")
    ]
    summary = f"run {n}: {' then '.join(tools)}"
    return RecordRow(
        id=str(uuid.uuid4()),
        type="episodic",
        status="active",
        sensitivity=1,
        scope=f"team-{n % SCOPES}",
        confidence=0.8,
        tags=[],
        created_at=t,
        updated_at=t,
        salience_base=1.0,
        salience_t0=t,
        salience_swept=1.0,
        decay_curve="exponential",
        half_life_s=3600.0,
        min_salience=0.0,
        reinforcement_gain=0.1,
        pinned=False,
        deletion_policy="auto_prune",
        created_by="seed",
        provenance={},
        interpretation={},
        payload={
            "kind": "episodic",
            "summary": summary,
            "timeline": timeline,
            "tool_graph": nodes,
            "outcome": "failure" if n % 7 == 6 else "success",
        },
        search_text=summary,
    )


def _seed(db: Database) -> list[RecordRow]:
    """Recent episodes (too young to compress, so every stage but compression has work),
    written in bulk with their `create` audit entries."""
    t = clock.now() - 60
    rows = [_episode(n, t + n / 1000) for n in range(EPISODES)]
    with db.transaction() as session:
        session.add_all(rows)
        session.flush()
        session.add_all(
            AuditRow(record_id=r.id, action="create", actor="seed", timestamp=t) for r in rows
        )
    return rows


@contextmanager
def _worker(db_url: str, log: Path, extra: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    env = service_env(db_url)
    env.update(
        extra,
        MEMBRANE_SCHEDULER__ENABLED="true",
        MEMBRANE_SCHEDULER__CONSOLIDATION_INTERVAL_S="0.5",
        MEMBRANE_SCHEDULER__DECAY_INTERVAL_S="86400",
        MEMBRANE_EMBEDDING__WORKER_ENABLED="false",
    )
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app.worker"], cwd=ROOT, env=env, stdout=out, stderr=out
        )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def _markers(db: Database, stage: str) -> int:
    with db.read_transaction() as session:
        stmt = select(func.count()).where(AuditRow.action == f"consolidate:{stage}")
        return int(session.scalar(stmt) or 0)


def _kill_at(db_url: str, log: Path, point: str, nth: int = 1) -> None:
    """Start a worker and SIGKILL it once its consolidation run holds still at the fail
    point `point` (app/failpoints.py), reached for the `nth` time."""
    marker = log.with_suffix(f".{point}")
    with _worker(db_url, log, failpoint_env(point, marker, nth)) as proc:

        def still_running() -> None:
            assert proc.poll() is None, log.read_text(errors="replace")[-3000:]

        wait_until_held(marker, still_running, START_TIMEOUT_S)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)


def _unit_problems(snap: Snapshot, episodes: dict[str, RecordRow]) -> list[str]:
    """Every promoted record is whole and its episodes carry the stage's marker; every
    marked episode has its promoted records; no marker twice."""
    problems = [f"{r} marked twice" for r, n in _marker_counts(snap).items() if n > 1]
    promoted = {
        semantic_stage.STAGE: [
            r
            for r in snap.records.values()
            if r.type == "semantic" and (r.provenance or {}).get("created_by") == FACT_MAKER
        ],
        competence_stage.STAGE: snap.tagged(competence_stage.TAG, "competence"),
        plan_graph_stage.STAGE: snap.tagged(plan_graph_stage.TAG, "plan_graph"),
    }
    for stage, records in promoted.items():
        marker = f"consolidate:{stage}"
        fed: set[str] = set()
        for record in records:
            sources = snap.targets(record.id, "derived_from")
            if "create" not in snap.actions(record.id) or not sources:
                problems.append(f"{stage} record {record.id} is not whole")
            for source in sources:
                fed.add(source)
                if marker not in snap.actions(source):
                    problems.append(f"{stage} record {record.id} from unmarked {source}")
        for episode_id in episodes:
            if marker in snap.actions(episode_id) and episode_id not in fed:
                problems.append(f"{episode_id} marked by {stage} but fed no record")
    return problems


def _marker_counts(snap: Snapshot) -> Counter[tuple[str, str]]:
    return Counter(
        (rid, a.action)
        for rid, entries in snap.audit.items()
        for a in entries
        if a.action.startswith("consolidate:")
    )


def _checked(db: Database, episodes: dict[str, RecordRow]) -> Snapshot:
    snap = Snapshot.load(db)
    assert store_problems(snap) == []
    assert _unit_problems(snap, episodes) == []
    return snap


def test_killing_the_worker_mid_consolidation_leaves_whole_units_and_loses_nothing(
    db_url: str, db: Database, tmp_path: Path
) -> None:
    episodes = {r.id: r for r in _seed(db)}
    log = tmp_path / "worker.log"
    # Killed inside the semantic stage's second transaction: the first batch is there
    # whole, nothing of the second.
    _kill_at(db_url, log, failpoints.SEMANTIC_BATCH_UNCOMMITTED, nth=2)
    first = _checked(db, episodes)
    assert _markers(db, semantic_stage.STAGE) == semantic_stage.EPISODES_PER_TRANSACTION
    # Killed inside the competence stage's first transaction, the semantic stage done.
    _kill_at(db_url, log, failpoints.FOLD_BATCH_UNCOMMITTED)
    _checked(db, episodes)
    assert _markers(db, semantic_stage.STAGE) == len(_successful(episodes))
    assert _markers(db, competence_stage.STAGE) == 0
    assert len(first.records) > len(episodes)  # the first killed run had promoted some
    # the next run, in this process, finishes the work
    run = run_now(db, make_settings(db_url), "consolidation")
    assert run.status == "succeeded", run.error
    snap = _checked(db, episodes)
    successes = set(_successful(episodes))
    for stage in (semantic_stage.STAGE, competence_stage.STAGE, plan_graph_stage.STAGE):
        marked = {rid for rid in episodes if f"consolidate:{stage}" in snap.actions(rid)}
        assert marked == _expected_markers(stage, episodes), stage
    facts = [
        (r.scope, r.payload["subject"], r.payload["object"])
        for r in snap.records.values()
        if r.type == "semantic"
    ]
    observed = {
        (episodes[rid].scope, entry["event_kind"], entry["summary"])
        for rid in successes
        for entry in payload_json.episodic(episodes[rid].payload)["timeline"]
    }
    assert sorted(facts) == sorted(observed)  # every observation once, none twice
    competence = snap.tagged(competence_stage.TAG, "competence")
    assert len(competence) == SCOPES * len(WORKFLOWS)  # one per (scope, signature)
    plans = snap.tagged(plan_graph_stage.TAG, "plan_graph")
    assert len(plans) == SCOPES * sum(1 for w in WORKFLOWS if len(w) >= 3)


def _expected_markers(stage: str, episodes: dict[str, RecordRow]) -> set[str]:
    """Semantic: the successful episodes; competence: every episode of a signature with
    two successes (here all of them); plan graph: every episode with 3+ tool nodes."""
    if stage == semantic_stage.STAGE:
        return set(_successful(episodes))
    if stage == competence_stage.STAGE:
        return set(episodes)
    return {
        rid
        for rid, row in episodes.items()
        if len(payload_json.episodic(row.payload)["tool_graph"]) >= 3
    }


def _successful(episodes: dict[str, RecordRow]) -> list[str]:
    return [rid for rid, row in episodes.items() if row.payload["outcome"] == "success"]
