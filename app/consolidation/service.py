"""Consolidation: the original Membrane's pipeline, stage by stage, in its order —
1. episodic compression (below), 2. the structural semantic stage
(app/consolidation/semantic_stage.py), 3. LLM triple extraction
(app/consolidation/extraction_stage.py; only with an LLM endpoint configured),
4. competence extraction
(app/consolidation/competence_stage.py), 5. plan graph extraction
(app/consolidation/plan_graph_stage.py). Stages 2, 4 and 5 share their bookkeeping
(app/consolidation/promotion.py). A run's counts are the stages' counts merged, plus
`duplicates_resolved`: the existing records reinforced instead of duplicated, over all
stages (every `*_reinforced` count).

Episodic compression:

Active episodic records at least COMPRESS_AFTER_S old are grouped by (scope, thread)
— the thread is `payload.environment.thread_id` when present — and every group of two
or more becomes one compressed episodic record: a timeline with one entry per source
episode, `derived_from` edges to each source, the tag `consolidation:compressed` and a
longer half-life, so the gist outlives the raw episodes. The sources are kept (they
decay and are pruned as usual); as in the original, compression lowers their salience,
by `scheduler.compression_source_factor` (0.5; 1.0 leaves them as they were).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from app import clock, failpoints
from app.config import Settings
from app.consolidation import repository as consolidation_repo
from app.consolidation.competence_stage import run_competence_stage
from app.consolidation.extraction_stage import run_extraction_stage
from app.consolidation.plan_graph_stage import run_plan_graph_stage
from app.consolidation.repository import EpisodeKey
from app.consolidation.semantic_stage import run_semantic_stage
from app.db import Database
from app.enums import Sensitivity
from app.models import RecordRow
from app.records import repository as record_repo
from app.records.payloads import EpisodicPayload, TimelineEntry
from app.records.policy import PolicyEngine
from app.records.schemas import (
    DecaySpec,
    LifecycleSpec,
    Provenance,
    ProvenanceSource,
    RecordCreate,
    RelationSpec,
)
from app.records.service import staged_writes
from app.salience.service import scale_unaudited
from app.trust import TrustContext

ACTOR = "system:consolidation"
COMPRESSED_TAG = consolidation_repo.COMPRESSED_TAG
COMPRESS_AFTER_S = 3600.0  # one episodic half-life
COMPRESSED_HALF_LIFE_S = 7 * 86400.0
MIN_GROUP = 2
MAX_GROUP = 200  # bigger groups are split into chunks
MAX_SOURCES_PER_TRANSACTION = 5000  # groups are written in transactions of about this many
SUMMARY_CHARS = 200

SYSTEM_TRUST = TrustContext(ceiling=Sensitivity.hyper, scopes=None, actor_id=ACTOR)

GroupKey = tuple[str | None, str | None]


def thread_of(environment: Any) -> str | None:
    thread = environment.get("thread_id") if isinstance(environment, dict) else None
    return thread if isinstance(thread, str) else None


def group_episodes(keys: Sequence[EpisodeKey]) -> list[list[EpisodeKey]]:
    """Groups of MIN_GROUP..MAX_GROUP episodes sharing scope and thread, oldest first."""
    by_key: dict[GroupKey, list[EpisodeKey]] = defaultdict(list)
    for key in keys:
        by_key[(key.scope, thread_of(key.environment))].append(key)
    groups = []
    for members in by_key.values():
        members.sort(key=lambda k: (k.created_at, k.id))
        for i in range(0, len(members), MAX_GROUP):
            chunk = members[i : i + MAX_GROUP]
            if len(chunk) >= MIN_GROUP:
                groups.append(chunk)
    return groups


def transactions_of(groups: list[list[EpisodeKey]]) -> list[list[list[EpisodeKey]]]:
    """Consecutive groups, about MAX_SOURCES_PER_TRANSACTION sources per transaction."""
    out: list[list[list[EpisodeKey]]] = [[]]
    size = 0
    for group in groups:
        if out[-1] and size + len(group) > MAX_SOURCES_PER_TRANSACTION:
            out.append([])
            size = 0
        out[-1].append(group)
        size += len(group)
    return [chunk for chunk in out if chunk]


def compressed_spec(members: list[RecordRow]) -> RecordCreate:
    summaries = [str(m.payload.get("summary") or "")[:SUMMARY_CHARS] for m in members]
    outcomes: dict[str, int] = defaultdict(int)
    for m in members:
        outcomes[str(m.payload.get("outcome"))] += 1
    scope, thread = members[0].scope, thread_of(members[0].payload.get("environment"))
    headline = f"{len(members)} episodes" + (f" in thread {thread}" if thread else "")
    payload = EpisodicPayload(
        summary=(headline + ": " + "; ".join(s for s in summaries[:5] if s))[:2000],
        timeline=[
            TimelineEntry(
                t=clock.to_datetime(m.created_at),
                event_type="episode",
                summary=s,
                data={"record_id": m.id},
            )
            for m, s in zip(members, summaries, strict=True)
        ],
        environment={"compressed_from": len(members), "thread_id": thread, "outcomes": outcomes},
        outcome=_common_outcome(members),
    )
    return RecordCreate(
        payload=payload,
        scope=scope,
        sensitivity=Sensitivity.from_rank(max(m.sensitivity for m in members)),
        tags=[COMPRESSED_TAG],
        lifecycle=LifecycleSpec(decay=DecaySpec(half_life_seconds=COMPRESSED_HALF_LIFE_S)),
        provenance=Provenance(
            sources=[ProvenanceSource(kind="consolidation", ref="episodic-compression")],
            created_by=ACTOR,
        ),
        relations=[RelationSpec(predicate="derived_from", target_id=m.id) for m in members],
    )


def _common_outcome(members: list[RecordRow]) -> Any:
    outcomes = {m.payload.get("outcome") for m in members}
    return outcomes.pop() if len(outcomes) == 1 else None


def run_consolidation(db: Database, settings: Settings, *, now: float) -> dict[str, int]:
    """The stages in order; returns the run's counts. Each stage takes at most
    `scheduler.consolidation_max_episodes` episodes; the rest waits for the next run."""
    policy = PolicyEngine(settings)
    limit = settings.scheduler.consolidation_max_episodes
    factor = settings.scheduler.compression_source_factor
    counts = compress_episodes(db, policy, now=now, limit=limit, source_factor=factor)
    counts.update(run_semantic_stage(db, policy, SYSTEM_TRUST, now=now, limit=limit))
    counts.update(run_extraction_stage(db, policy, SYSTEM_TRUST, settings, now=now))
    counts.update(run_competence_stage(db, policy, SYSTEM_TRUST, now=now, limit=limit))
    counts.update(run_plan_graph_stage(db, policy, SYSTEM_TRUST, now=now, limit=limit))
    counts["duplicates_resolved"] = duplicates_resolved(counts)
    return counts


def duplicates_resolved(counts: dict[str, int]) -> int:
    """Existing records reinforced instead of duplicated: every stage's `*_reinforced`."""
    return sum(int(v) for k, v in counts.items() if k.endswith("_reinforced"))


def compress_episodes(
    db: Database, policy: PolicyEngine, *, now: float, limit: int, source_factor: float = 1.0
) -> dict[str, int]:
    """Episodic compression: candidates listed without their payloads, then written in
    transactions of whole groups (a crash leaves each group compressed or untouched)."""
    with db.read_transaction() as session:
        keys = consolidation_repo.uncompressed_episodes(
            session, before=now - COMPRESS_AFTER_S, compressed_tag=COMPRESSED_TAG, limit=limit
        )
    groups = group_episodes(keys)
    written = sources = 0
    for chunk in transactions_of(groups):
        with db.transaction() as session:
            rows = record_repo.get_many(session, [k.id for group in chunk for k in group])
            # The chunk's records are written together (multi-row INSERTs).
            with staged_writes(session, policy) as service:
                for group in chunk:
                    members = [rows[k.id] for k in group if _still_active(rows.get(k.id))]
                    if len(members) < MIN_GROUP:
                        continue  # deleted or revised since it was listed
                    spec = compressed_spec(members)
                    service.create(spec, SYSTEM_TRUST, source_kind="consolidation")
                    scale_unaudited(session, [m.id for m in members], source_factor, now)
                    written += 1
                    sources += len(members)
            failpoints.reach(failpoints.COMPRESSION_UNCOMMITTED)
    failpoints.reach(failpoints.COMPRESSION_COMMITTED)
    return {"candidates": len(keys), "compressed_records": written, "compressed_sources": sources}


def _still_active(row: RecordRow | None) -> bool:
    return row is not None and row.status == "active"
