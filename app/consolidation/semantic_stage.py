"""Structural semantic stage: what successful episodes observed becomes semantic facts.

Each timeline entry with a summary, in an active episode whose outcome is `success`,
becomes the fact (subject: the entry's event kind, predicate `observed_in`, object: the
summary), or reinforces the identical fact already stored in the same scope at the same
sensitivity. Facts never merge across sensitivities: reinforcing a `low` fact from a
`high` episode would tell `low` readers something about the episode. A promoted fact
carries the episode's scope and sensitivity, evidence and provenance pointing at it, a
`derived_from` edge and an audit entry; a reinforced fact gets another edge and
provenance source (app/consolidation/promotion.py).

One transaction per batch of episodes (EPISODES_PER_TRANSACTION): a crash leaves an
episode either fully processed or untouched. A processed episode gets the audit entry
`consolidate:semantic`, so each episode is processed once across runs and crashes.
"""

from __future__ import annotations

from app import failpoints
from app.consolidation import repository as consolidation_repo
from app.consolidation.fact_batch import FactBatch, Triple
from app.consolidation.promotion import (
    UNIT_ERRORS,
    Promotion,
    pending_ids,
    skip_unit,
    sourced_spec,
)
from app.db import Database
from app.models import RecordRow
from app.records import payload_json as stored
from app.records import repository as record_repo
from app.records.payload_json import StoredJson
from app.records.payloads import Evidence, SemanticPayload
from app.records.policy import PolicyEngine
from app.records.schemas import RecordCreate
from app.trust import TrustContext

STAGE = "semantic"
PREDICATE = "observed_in"
CREATED_BY = "consolidation/structural-semantic"
MAX_EPISODES_PER_RUN = 100_000  # the default; runs pass the setting
# Episodes promoted per transaction: a commit per episode cost a tenth of the stage on
# SQLite (each commit writes the pages it touched to the WAL again). A batch holds the
# write lock for some 50 ms; an episode that cannot be promoted rolls its batch back,
# and the batch's episodes then go one by one.
EPISODES_PER_TRANSACTION = 16
ANALYZE_AFTER_FACTS = 500  # FactGrowth: a first run's statistics renewed from here on
SUBJECT_CHARS = 1024


def observed_facts(payload: StoredJson) -> list[Triple]:
    """The distinct (event kind, observed_in, summary) facts of an episode's timeline."""
    facts: list[Triple] = []
    for entry in stored.episodic(payload).get("timeline") or []:
        if not isinstance(entry, dict):
            continue
        summary = str(entry.get("summary") or "").strip()
        kind = str(entry.get("event_kind") or entry.get("event_type") or "event").strip()
        fact = (kind[:SUBJECT_CHARS] or "event", PREDICATE, summary)
        if summary and fact not in facts:
            facts.append(fact)
    return facts


def run_semantic_stage(
    db: Database,
    policy: PolicyEngine,
    trust: TrustContext,
    *,
    now: float,
    limit: int = MAX_EPISODES_PER_RUN,
) -> dict[str, int]:
    ids = pending_ids(db, stage=STAGE, outcomes=("success",), limit=limit)
    counts = dict.fromkeys(
        ("semantic_created", "semantic_reinforced", "semantic_episodes", "semantic_skipped"), 0
    )
    growth = FactGrowth(db)
    for start in range(0, len(ids), EPISODES_PER_TRANSACTION):
        batch = ids[start : start + EPISODES_PER_TRANSACTION]
        growth.keep_statistics()
        try:
            with db.transaction() as session:
                facts = FactBatch(session, policy)
                unit = Promotion(session, policy, trust, STAGE, now, facts)
                episodes = record_repo.get_many(session, batch)  # one read for the batch
                with facts.gathered():  # the batch's rows written together
                    done: list[tuple[int, int] | None] = [
                        _promote(unit, episodes.get(i)) for i in batch
                    ]
                failpoints.reach(failpoints.SEMANTIC_BATCH_UNCOMMITTED, before=session.flush)
        except UNIT_ERRORS:  # rolled back: each episode again on its own
            done = [_promote_alone(db, policy, trust, now, i) for i in batch]
        for result in done:
            if result is None:
                counts["semantic_skipped"] += 1
                continue
            counts["semantic_created"] += result[0]
            growth.created += result[0]
            counts["semantic_reinforced"] += result[1]
            counts["semantic_episodes"] += 1
    return counts


class FactGrowth:
    """Keeps PostgreSQL's statistics of `records` in step with the facts a run creates.

    Each episode's duplicate look-up (`same_facts`) should go through the object index.
    Planned on statistics that know no facts (a store's first consolidation; autovacuum
    analyzes a minute later at best), PostgreSQL walked the (type, created_at) index
    instead and read every fact stored so far on each look-up: 1.5 ms of server time an
    episode at 3,000 episodes, growing with the store. The tables are analyzed again once
    the facts created since the last time reach half of those there were then (and at
    least ANALYZE_AFTER_FACTS): a dozen times in a 50,000-episode first run, a few
    hundred milliseconds each at a million records."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.created = 0  # facts created by the run since statistics were last taken
        self.postgres = db.engine.dialect.name == "postgresql"
        self.known: int | None = None  # counted when the first transaction begins

    def keep_statistics(self) -> None:
        if not self.postgres:
            return
        if self.known is None:
            with self.db.read_transaction() as session:
                self.known = consolidation_repo.stored_fact_count(session)
        if self.created < max(ANALYZE_AFTER_FACTS, self.known // 2):
            return
        with self.db.transaction() as session:
            consolidation_repo.refresh_record_statistics(session)
        self.known += self.created
        self.created = 0


def _promote_alone(
    db: Database, policy: PolicyEngine, trust: TrustContext, now: float, episode_id: str
) -> tuple[int, int] | None:
    """One episode in a transaction of its own; None when it cannot be promoted (it is
    then marked skipped)."""
    try:
        with db.transaction() as session:
            episode = record_repo.get(session, episode_id)
            return _promote(Promotion(session, policy, trust, STAGE, now), episode)
    except UNIT_ERRORS as exc:
        skip_unit(db, trust, STAGE, [episode_id], exc)
        return None


def _promote(unit: Promotion, episode: RecordRow | None) -> tuple[int, int]:
    """Facts of one episode (None: deleted since it was listed): (created, reinforced)."""
    if episode is None or episode.status != "active":
        return 0, 0  # deleted or revised since it was listed
    created, reinforced = unit.observe_facts(
        episode.id,
        (episode.scope, episode.sensitivity),
        observed_facts(episode.payload),
        lambda triple: _fact_spec(episode.id, episode.scope, episode.sensitivity, triple),
        rationale="observed again in a successful episode",
    )
    unit.mark([episode.id], {"created": created, "reinforced": reinforced})
    return created, reinforced


def _fact_spec(episode_id: str, scope: str | None, rank: int, triple: Triple) -> RecordCreate:
    subject, predicate, obj = triple
    payload = SemanticPayload(
        subject=subject,
        predicate=predicate,
        object=obj,
        evidence=[Evidence(kind="record", ref=episode_id)],
    )
    return sourced_spec(
        payload, [episode_id], scope=scope, rank=rank, tags=[], created_by=CREATED_BY
    )
