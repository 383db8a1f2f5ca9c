"""Structural semantic stage: what successful episodes observed becomes semantic facts.

Each timeline entry with a summary, in an active episode whose outcome is `success`,
becomes the fact (subject: the entry's event kind, predicate `observed_in`, object: the
summary), or reinforces the identical fact already stored in the same scope at the same
sensitivity. Facts never merge across sensitivities: reinforcing a `low` fact from a
`high` episode would tell `low` readers something about the episode. A promoted fact
carries the episode's scope and sensitivity, evidence and provenance pointing at it, a
`derived_from` edge and an audit entry.

One transaction per episode: a crash leaves an episode either fully processed or
untouched. A processed episode gets the audit entry `consolidate:semantic`, so each
episode is processed once across runs and crashes.
"""

from __future__ import annotations

from typing import Any

from app.audit import repository as audit_repo
from app.consolidation import repository as consolidation_repo
from app.db import Database
from app.enums import Sensitivity
from app.records import repository as record_repo
from app.records.payloads import Evidence, SemanticPayload
from app.records.policy import PolicyEngine
from app.records.schemas import Provenance, ProvenanceSource, RecordCreate, RelationSpec
from app.records.service import RecordService
from app.relations import repository as relation_repo
from app.salience import repository as salience_repo
from app.trust import TrustContext

STAGE = "semantic"
PREDICATE = "observed_in"
CREATED_BY = "consolidation/structural-semantic"
MAX_EPISODES_PER_RUN = 5000
SUBJECT_CHARS = 1024

Triple = tuple[str, str, str]


def observed_facts(payload: dict[str, Any]) -> list[Triple]:
    """The distinct (event kind, observed_in, summary) facts of an episode's timeline."""
    facts: list[Triple] = []
    for entry in payload.get("timeline") or []:
        if not isinstance(entry, dict):
            continue
        summary = str(entry.get("summary") or "").strip()
        kind = str(entry.get("event_kind") or entry.get("event_type") or "event").strip()
        fact = (kind[:SUBJECT_CHARS] or "event", PREDICATE, summary)
        if summary and fact not in facts:
            facts.append(fact)
    return facts


def run_semantic_stage(
    db: Database, policy: PolicyEngine, trust: TrustContext, *, now: float
) -> dict[str, int]:
    with db.read_transaction() as session:
        episodes = consolidation_repo.unconsolidated_successes(
            session, stage=STAGE, limit=MAX_EPISODES_PER_RUN
        )
        ids = [e.id for e in episodes]
    counts = {"semantic_created": 0, "semantic_reinforced": 0, "semantic_episodes": 0}
    for episode_id in ids:
        with db.transaction() as session:
            created, reinforced = _promote(session, episode_id, policy, trust, now)
        counts["semantic_created"] += created
        counts["semantic_reinforced"] += reinforced
        counts["semantic_episodes"] += 1
    return counts


def _promote(
    session: Any, episode_id: str, policy: PolicyEngine, trust: TrustContext, now: float
) -> tuple[int, int]:
    """Facts of one episode: (created, reinforced)."""
    episode = record_repo.get(session, episode_id)
    if episode is None or episode.status != "active":
        return 0, 0  # deleted or revised since it was listed
    created = reinforced = 0
    for triple in observed_facts(episode.payload):
        existing = consolidation_repo.same_fact(session, episode.scope, episode.sensitivity, triple)
        if existing is None:
            RecordService(session, policy).create(
                _fact_spec(episode.id, episode.scope, episode.sensitivity, triple),
                trust,
                source_kind="consolidation",
            )
            created += 1
            continue
        salience_repo.reinforce(session, existing, now)
        audit_repo.append(
            session,
            existing,
            "reinforce",
            trust.actor_id,
            now,
            rationale="observed again in a successful episode",
            details={"episode": episode.id, "stage": STAGE},
        )
        relation_repo.add_pair(session, existing, "derived_from", episode.id, now)
        reinforced += 1
    audit_repo.append(
        session,
        episode.id,
        f"consolidate:{STAGE}",
        trust.actor_id,
        now,
        details={"created": created, "reinforced": reinforced},
    )
    return created, reinforced


def _fact_spec(episode_id: str, scope: str | None, rank: int, triple: Triple) -> RecordCreate:
    subject, predicate, obj = triple
    return RecordCreate(
        payload=SemanticPayload(
            subject=subject,
            predicate=predicate,
            object=obj,
            evidence=[Evidence(kind="record", ref=episode_id)],
        ),
        scope=scope,
        sensitivity=Sensitivity.from_rank(rank),
        provenance=Provenance(
            sources=[ProvenanceSource(kind="record", ref=episode_id)], created_by=CREATED_BY
        ),
        relations=[RelationSpec(predicate="derived_from", target_id=episode_id)],
    )
