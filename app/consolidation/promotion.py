"""What the consolidation stages share.

Every stage works the same way: list the episodes it has not processed yet (an episode
is processed by `stage` once it carries the audit entry `consolidate:<stage>`), then,
per promoted unit, create a record from them or reinforce the record they repeat, and
mark them processed in that same transaction. Units are written a batch per transaction
(a commit per unit cost most of a run of small units); a unit that cannot be promoted
rolls its batch back, and the batch's units are then run one transaction each. So a
crash leaves a unit either fully promoted and marked, or untouched for the next run: an
episode is promoted exactly once.

Reinforcing a record from an episode always leaves the same trail: a salience
reinforcement (at the run's `now`), a `reinforce` audit entry naming the episodes, and a
`derived_from` edge and a provenance source (kind `record`) per episode, so every record
points at everything it was learned from.

Pattern stages (competence, plan graph) also share the fold (`fold_groups`): episodes
with the same pattern fingerprint in the same scope at the same sensitivity are folded
into one record, found again by the tag `<stage tag>:<fingerprint>`. A new pattern
becomes a record once `can_create` allows it; episodes of a known pattern update the
record's counts in place (`merged`) and reinforce it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

from sqlalchemy.orm import Session

from app import clock, failpoints
from app.audit import repository as audit_repo
from app.consolidation import repository as consolidation_repo
from app.consolidation.fact_batch import FactBatch, Triple
from app.db import Database
from app.enums import LIVE_STATUSES, Sensitivity
from app.errors import DomainError
from app.models import RecordRow, staging
from app.records import repository as record_repo
from app.records.payload_json import StoredJson
from app.records.payloads import Payload
from app.records.policy import PolicyEngine
from app.records.schemas import Provenance, ProvenanceSource, RecordCreate, RelationSpec
from app.records.service import RecordService, staged_writes
from app.relations import service as relations
from app.salience.service import reinforce_unaudited
from app.trust import TrustContext

log = logging.getLogger("membrane.consolidation")

# The outcomes a pattern stage counts: the others (partial, unknown, none yet) say
# nothing about whether the pattern works, and may still change to one of these.
COUNTED_OUTCOMES = ("success", "failure")

PatternKey = tuple[str | None, int, str]  # scope, sensitivity rank, fingerprint


def pending_ids(
    db: Database, *, stage: str, outcomes: Sequence[str], limit: int, min_tools: int = 0
) -> list[str]:
    """Ids of the active episodes with one of `outcomes` (and at least `min_tools` tool
    graph nodes) that `stage` has not processed, oldest first."""
    with db.read_transaction() as session:
        return consolidation_repo.pending_episodes(
            session, stage=stage, outcomes=outcomes, limit=limit, min_tools=min_tools
        )


@dataclass(frozen=True)
class Promotion:
    """The writes of one stage inside one transaction."""

    session: Session
    policy: PolicyEngine
    trust: TrustContext
    stage: str
    now: float
    facts: FactBatch | None = None  # new facts gathered over the transaction (semantic)

    def observe_facts(
        self,
        episode_id: str,
        where: tuple[str | None, int],
        triples: Sequence[Triple],
        spec_of: Callable[[Triple], RecordCreate],
        rationale: str,
    ) -> tuple[int, int]:
        """An episode's facts, in its scope at its sensitivity (`where`): each stored
        already is reinforced, the others are created together. (created, reinforced)"""
        scope, rank = where
        distinct = list(dict.fromkeys(triples))  # a repeated triple is one fact
        facts = self.facts or FactBatch(self.session, self.policy)
        facts.before_look_up(scope, rank, distinct)
        stored = consolidation_repo.same_facts(self.session, scope, rank, distinct)
        repeated = [stored[t] for t in distinct if t in stored]
        new = [t for t in distinct if t not in stored]
        # The episode's rows (its edges and audit entries too): gathered with the
        # transaction's others, or written together at the end of this block.
        episode: AbstractContextManager[object] = nullcontext() if self.facts else facts.gathered()
        with episode:
            self.reinforce(repeated, [episode_id], rationale=rationale)
            for triple in new:
                facts.create(spec_of(triple), self.trust, where, triple)
        return len(new), len(repeated)

    def create_all(self, specs: Sequence[RecordCreate]) -> list[RecordRow]:
        """New records through the one creation path, written together (`staged_writes`)."""
        with staged_writes(self.session, self.policy, settles_facts=True) as service:
            return [service.create(spec, self.trust, source_kind="consolidation") for spec in specs]

    def reinforce(
        self,
        record_ids: Sequence[str],
        episode_ids: Sequence[str],
        *,
        rationale: str,
        details: Mapping[str, object] | None = None,
    ) -> None:
        """Each of `record_ids` seen again in `episode_ids`: one salience reinforcement and
        audit entry, and an edge and a provenance source per episode. The records'
        salience moves in one round trip and their rows (whose provenance grows) are read
        in one; a row this transaction read already is not read again."""
        reinforce_unaudited(self.session, record_ids, self.now)
        rows = record_repo.get_many_loaded(self.session, record_ids)
        service = RecordService(self.session, self.policy)
        for record_id in record_ids:
            audit_repo.append(
                self.session,
                record_id,
                "reinforce",
                self.trust.actor_id,
                self.now,
                rationale=rationale,
                details={"stage": self.stage, "episodes": list(episode_ids), **(details or {})},
            )
            row = rows.get(record_id)
            for episode_id in episode_ids:
                relations.link(self.session, record_id, "derived_from", episode_id, self.now)
                if row is not None:
                    service.add_provenance(row, ProvenanceSource(kind="record", ref=episode_id))

    def mark(self, episode_ids: Sequence[str], details: Mapping[str, object]) -> None:
        """The episodes are processed by this stage (never listed for it again)."""
        action = consolidation_repo.stage_action(self.stage)
        # Multi-row INSERTs, not an ORM flush with a RETURNING per entry: the transaction's
        # gathered facts take them along, else they are written now.
        gathering: AbstractContextManager[list[object]] = (
            nullcontext([]) if self.facts else staging.gathering(self.session)
        )
        with gathering as staged:
            for episode_id in episode_ids:
                audit_repo.append(
                    self.session, episode_id, action, self.trust.actor_id, self.now, details=details
                )
        record_repo.insert_staged(self.session, staged)


def sourced_spec(
    payload: Payload,
    episode_ids: Sequence[str],
    *,
    scope: str | None,
    rank: int,
    tags: list[str],
    created_by: str,
    observed_at: float | None = None,
) -> RecordCreate:
    """A promoted record: its sources' scope and sensitivity, provenance (stamped with
    `observed_at`, when the sources happened: a fact's event time) and a `derived_from`
    edge to each source."""
    stamp = clock.to_datetime(observed_at) if observed_at is not None else None
    return RecordCreate(
        payload=payload,
        scope=scope,
        sensitivity=Sensitivity.from_rank(rank),
        tags=tags,
        provenance=Provenance(
            sources=[ProvenanceSource(kind="record", ref=e, timestamp=stamp) for e in episode_ids],
            created_by=created_by,
        ),
        relations=[RelationSpec(predicate="derived_from", target_id=e) for e in episode_ids],
    )


@dataclass(frozen=True)
class Pattern:
    """A pattern stage: what identifies a pattern in an episode and what its record is."""

    stage: str
    record_type: str
    tag: str
    created_by: str
    # The episode payload's pattern fingerprint; None when it has no such pattern.
    fingerprint: Callable[[StoredJson], str | None]
    # Whether these episodes (of one new pattern) are enough for a record.
    can_create: Callable[[list[RecordRow]], bool]
    new_payload: Callable[[list[RecordRow]], Payload]
    # The record's payload with these episodes' counts added.
    merged: Callable[[StoredJson, list[RecordRow]], dict[str, object]]

    def key_of(self, row: RecordRow) -> PatternKey | None:
        if row.payload.get("outcome") not in COUNTED_OUTCOMES:
            return None
        fingerprint = self.fingerprint(row.payload)
        return None if fingerprint is None else (row.scope, row.sensitivity, fingerprint)

    def fingerprint_tag(self, fingerprint: str) -> str:
        return f"{self.tag}:{fingerprint}"


@dataclass
class FoldCounts:
    created: int = 0
    reinforced: int = 0
    episodes: int = 0
    skipped: int = 0  # episodes of units that could not be promoted (marked, never retried)


# A unit whose data cannot become a record (a payload the models refuse, a write the
# service refuses) is a data problem: retrying it every run would fail the same way and,
# the oldest going first, block everything after it. Database errors are not caught.
UNIT_ERRORS = (ValueError, DomainError)


def skip_unit(
    db: Database, trust: TrustContext, stage: str, episode_ids: Sequence[str], exc: Exception
) -> None:
    """Mark a failed unit's episodes processed, with the reason, in a transaction of its
    own (the unit's was rolled back)."""
    log.warning("consolidation %s: skipped %d episode(s): %r", stage, len(episode_ids), exc)
    details = {"skipped": f"{type(exc).__name__}: {str(exc)[:300]}"}
    action = consolidation_repo.stage_action(stage)
    with db.transaction() as session:
        for episode_id in episode_ids:
            audit_repo.append(
                session, episode_id, action, trust.actor_id, clock.now(), details=details
            )


# Pattern units (a group's chunk) folded per transaction: most units are a handful of
# episodes, and a transaction each cost its commit and set-up per unit (952 plan graphs
# from 3,000 episodes: a fifth of a run).
UNITS_PER_TRANSACTION = 16

Unit = tuple[PatternKey, list[str]]


def fold_groups(
    db: Database,
    policy: PolicyEngine,
    trust: TrustContext,
    pattern: Pattern,
    groups: Sequence[tuple[PatternKey, list[str]]],
    *,
    now: float,
    budget: int,
    chunk: int,
) -> FoldCounts:
    """Fold each group's episodes into its pattern's record, at most `chunk` episodes
    per unit and UNITS_PER_TRANSACTION units per transaction, until `budget` episodes
    are folded (the rest wait for the next run: they stay unmarked)."""

    def promotion(session: Session) -> Promotion:
        return Promotion(session, policy, trust, pattern.stage, now)

    counts = FoldCounts()
    units = [(key, ids[i : i + chunk]) for key, ids in groups for i in range(0, len(ids), chunk)]
    position = 0
    while position < len(units):
        left = budget - counts.episodes - counts.skipped
        batch: list[Unit] = []
        for key, part in units[position : position + UNITS_PER_TRANSACTION]:
            if left <= 0:
                break
            batch.append((key, part[:left]))
            left -= len(batch[-1][1])
        if not batch:
            break
        position += len(batch)
        _fold_batch(db, promotion, trust, pattern, batch, counts)
    return counts


MakePromotion = Callable[[Session], Promotion]


def _fold_batch(
    db: Database,
    make: MakePromotion,
    trust: TrustContext,
    pattern: Pattern,
    batch: list[Unit],
    counts: FoldCounts,
) -> None:
    """`batch` in one transaction; when a unit cannot be promoted, the batch rolls back
    and each unit runs alone (the failing one is then marked skipped)."""
    try:
        with db.transaction() as session:
            unit = make(session)
            results: list[tuple[int, int, int] | None] = [
                _fold(unit, pattern, key, part) for key, part in batch
            ]
            failpoints.reach(failpoints.FOLD_BATCH_UNCOMMITTED, before=session.flush)
    except UNIT_ERRORS:
        results = [_fold_alone(db, make, trust, pattern, one) for one in batch]
    for (_, part), result in zip(batch, results, strict=True):
        if result is None:
            counts.skipped += len(part)
            continue
        counts.created += result[0]
        counts.reinforced += result[1]
        counts.episodes += result[2]


def _fold_alone(
    db: Database, make: MakePromotion, trust: TrustContext, pattern: Pattern, unit: Unit
) -> tuple[int, int, int] | None:
    """One unit in a transaction of its own; None when it cannot be promoted (its
    episodes are then marked skipped)."""
    key, part = unit
    try:
        with db.transaction() as session:
            return _fold(make(session), pattern, key, part)
    except UNIT_ERRORS as exc:
        skip_unit(db, trust, pattern.stage, part, exc)
        return None


def _fold(
    unit: Promotion, pattern: Pattern, key: PatternKey, ids: list[str]
) -> tuple[int, int, int]:
    """One transaction: (created, reinforced, episodes folded). The episodes are read
    again, so one deleted, revised or re-labelled since the listing is left out."""
    session = unit.session
    rows = consolidation_repo.unprocessed_among(session, ids, pattern.stage)
    rows = [row for row in rows if pattern.key_of(row) == key]
    if not rows:
        return 0, 0, 0
    scope, rank, fingerprint = key
    tag = pattern.fingerprint_tag(fingerprint)
    existing = _live_record(unit, pattern.record_type, tag, scope, rank)
    episode_ids = [row.id for row in rows]
    if existing is not None:
        merged = pattern.merged(existing.payload, rows)
        record_repo.set_payload(session, existing.id, merged, unit.now)
        rationale = f"{len(rows)} more episode(s) of this pattern"
        unit.reinforce([existing.id], episode_ids, rationale=rationale)
        unit.mark(episode_ids, {"record": existing.id, "reinforced": True})
        return 0, 1, len(rows)
    if not pattern.can_create(rows):
        return 0, 0, 0
    spec = sourced_spec(
        pattern.new_payload(rows),
        episode_ids,
        scope=scope,
        rank=rank,
        tags=[pattern.tag, tag],
        created_by=pattern.created_by,
    )
    created = unit.create_all([spec])[0]
    unit.mark(episode_ids, {"record": created.id, "created": True})
    return 1, 0, len(rows)


def _live_record(
    unit: Promotion, record_type: str, tag: str, scope: str | None, rank: int
) -> RecordRow | None:
    """The pattern's record, locked for the in-place update (its counts are read and
    written back), or None."""
    session = unit.session
    found = consolidation_repo.pattern_record(
        session, record_type=record_type, tag=tag, scope=scope, sensitivity=rank
    )
    if found is None:
        return None
    row = record_repo.lock(session, [found]).get(found)
    return row if row is not None and row.status in LIVE_STATUSES else None


@dataclass(frozen=True)
class Tally:
    """What a batch of folded episodes adds to a pattern's counts."""

    successes: int
    failures: int
    last_at: float  # the newest episode's creation time

    @classmethod
    def of(cls, rows: Sequence[RecordRow]) -> Tally:
        successes = sum(1 for row in rows if row.payload.get("outcome") == "success")
        return cls(successes, len(rows) - successes, max(row.created_at for row in rows))
