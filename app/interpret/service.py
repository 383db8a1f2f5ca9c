"""LLM interpretation of captured records: what one queue item becomes.

`claim` takes a due item and snapshots its record (what to ask the model); the call is
the worker's, with no transaction open; `apply` writes what the answer adds in one
transaction; `retry_or_fail` and `skip` settle the other outcomes. Every write first
locks the record, then the queue item, and goes on only if the item is still the one
claimed (same attempt), so a worker whose lease ran out never writes twice.

Trust is the capturer's at capture time (actor, ceiling rank, scopes, kept in the queue
row): entity names resolve only to entities it could read, and the records written
(entities, derived facts) are created under its trust, in the record's scope, at the
record's sensitivity, with the record's tags — exactly as capture writes them, through
capture's own `resolve_entities`, `derive_fact` and `link_fact`. Only what the
rule-based interpretation did not already link or derive is added.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Required, TypedDict

from sqlalchemy.orm import Session

from app.audit import repository as audit_repo
from app.capture.classifier import Mention
from app.capture.schemas import CaptureRequest
from app.capture.service import CaptureResult, CaptureService
from app.entities import service as entity_service
from app.enums import Sensitivity, SourceKind, Status
from app.interpret import repository as queue_repo
from app.interpret.parse import Fact, Reading, fact_key, has_words, messages_for
from app.models import InterpretationQueueRow, RecordRow
from app.records import payload_json
from app.records import repository as record_repo
from app.records.policy import PolicyEngine
from app.records.service import RecordService
from app.relations import service as relations
from app.trust import TrustContext

ACTION = "interpret:llm"
RETRY_BASE_S = 30.0  # the first retry waits this long, each next one twice as long
RETRY_MAX_S = 3600.0


class LinkedEntity(TypedDict):
    name: str
    created: bool  # by this interpretation (else an entity already known)


class DerivedFact(TypedDict):
    subject: str
    predicate: str
    object: str
    record_id: str


class LlmSection(TypedDict, total=False):
    """A record's `interpretation.llm`: pending (with its last error), done (what it
    linked and derived), skipped or failed (with the reason)."""

    status: Required[str]
    reason: str | None
    last_error: str
    model: str
    attempts: int
    entities: list[LinkedEntity]
    facts: list[DerivedFact]
    dropped: int


@dataclass(frozen=True)
class Job:
    """One claimed attempt: the item, the capturer's trust, and what to ask (or, in
    `skip`, why nothing is asked)."""

    record_id: str
    attempts: int
    actor_id: str
    ceiling: int
    scopes: tuple[str, ...] | None
    scope: str | None
    messages: list[dict[str, str]]
    skip: str | None = None

    def trust(self) -> TrustContext:
        scopes = frozenset(self.scopes) if self.scopes is not None else None
        return TrustContext(Sensitivity.from_rank(self.ceiling), scopes, self.actor_id)


def retry_delay(attempts: int) -> float:
    return min(RETRY_BASE_S * 2.0 ** max(attempts - 1, 0), RETRY_MAX_S)


def claim(session: Session, now: float, lease_s: float) -> Job | None:
    item = queue_repo.claim(session, now, lease_s)
    if item is None:
        return None
    row = record_repo.get(session, item.record_id)
    skip = None
    if row is None:
        skip = "gone"
    elif row.status == Status.retracted.value:
        skip = "retracted"
    elif not has_words(row.payload):
        skip = "no_text"
    return Job(
        record_id=item.record_id,
        attempts=item.attempts,
        actor_id=item.actor_id,
        ceiling=item.ceiling,
        scopes=tuple(item.scopes) if item.scopes is not None else None,
        scope=row.scope if row is not None else None,
        messages=messages_for(row.type, row.payload) if row is not None and not skip else [],
        skip=skip,
    )


def apply(
    session: Session,
    policy: PolicyEngine,
    job: Job,
    reading: Reading,
    *,
    model: str,
    now: float,
) -> LlmSection | None:
    """Link the new mentions and derive the new facts of `reading`; returns the record's
    `interpretation.llm`, or None when the item is no longer this job's."""
    mentions = mentions_of(reading)
    entity_service.lock_names(
        session, [(job.scope, n) for m in mentions for n in (m.name, *m.aliases)]
    )
    held = _hold(session, job)
    if held is None:
        return None
    row = held[0]
    if row.status == Status.retracted.value:
        return _finish(session, row, job, {"status": "skipped", "reason": "retracted"}, now)
    trust = job.trust()
    capture = CaptureService(session, RecordService(session, policy, settles_facts=True))
    origin = origin_of(row, job.actor_id)
    result = CaptureResult(primary=row)
    entities = capture.resolve_entities(mentions, origin, trust, result.created)
    added = _link_mentions(session, row, mentions, entities, result, trust, now)
    facts: list[DerivedFact] = []
    done = _rule_fact(row)
    for fact in reading.facts:
        if fact_key(fact) in done:
            continue
        fact_row = capture.derive_fact(origin, fact, row, trust, result)
        capture.link_fact(fact_row, fact, entities, row.scope, trust, now)
        subject, predicate, obj = fact
        facts.append(
            {"subject": subject, "predicate": predicate, "object": obj, "record_id": fact_row.id}
        )
    for created in result.created:
        created.interpretation = {**(created.interpretation or {}), "interpreter": "llm"}
    section: LlmSection = {
        "status": "done",
        "model": model,
        "attempts": job.attempts,
        "entities": added,
        "facts": facts,
        "dropped": reading.dropped,
    }
    return _finish(session, row, job, section, now, [r.id for r in result.created])


def mentions_of(reading: Reading) -> list[Mention]:
    """The entities the answer names, and every fact's subject (a fact links to it)."""
    mentions = list(reading.entities)
    named = {m.name.casefold() for m in mentions}
    for subject, _, _ in reading.facts:
        if subject.casefold() not in named:
            named.add(subject.casefold())
            mentions.append(Mention(subject))
    return mentions


def _link_mentions(
    session: Session,
    row: RecordRow,
    mentions: list[Mention],
    entities: dict[str, str],
    result: CaptureResult,
    trust: TrustContext,
    now: float,
) -> list[LinkedEntity]:
    """`mentions_entity` edges to the entities the record does not mention yet (an
    entity record never mentions itself)."""
    linked = {
        e.target_id
        for e in relations.outgoing(session, [row.id], trust)
        if e.predicate == "mentions_entity"
    }
    created = {r.id for r in result.created}
    added: list[LinkedEntity] = []
    for mention in mentions:
        entity_id = entities[mention.name.casefold()]
        if entity_id in linked or entity_id == row.id:
            continue
        linked.add(entity_id)
        result.edges += relations.link(session, row.id, "mentions_entity", entity_id, now)
        # No id here: a reused entity may be more sensitive than the record (its readers
        # see the edge only if they may read the entity); names are the record's own.
        added.append({"name": mention.name, "created": entity_id in created})
    return added


def _rule_fact(row: RecordRow) -> set[Fact]:
    """The fact the rule-based interpretation already derived (or the record is)."""
    fact = (row.interpretation or {}).get("fact")
    if not isinstance(fact, dict):
        return set()
    obj = fact.get("object")
    text = obj if isinstance(obj, str) else json.dumps(obj)
    return {fact_key((str(fact.get("subject")), str(fact.get("predicate")), text))}


def origin_of(row: RecordRow, actor_id: str) -> CaptureRequest:
    """The capture as its record remembers it: source, scope, tags and the record's own
    sensitivity (what is derived from a record is as sensitive as the record)."""
    sources = payload_json.provenance(row.provenance or {}).get("sources") or [{}]
    first = sources[0] if isinstance(sources[0], dict) else {}
    try:
        kind = SourceKind(str(first.get("kind")))
    except ValueError:
        kind = SourceKind.observation
    return CaptureRequest(
        source=str(first.get("ref") or actor_id)[:1024],
        source_kind=kind,
        scope=row.scope,
        tags=list(row.tags or []),
        sensitivity=Sensitivity.from_rank(row.sensitivity),
    )


def retry_or_fail(
    session: Session, job: Job, reason: str, *, now: float, max_attempts: int
) -> str | None:
    """One failed attempt: retried later with backoff, or, at `max_attempts`, given up
    (`failed`). Returns "retry", "failed", or None when the item is no longer the job's."""
    held = _hold(session, job)
    if held is None:
        return None
    row, item = held
    if job.attempts >= max_attempts:
        section: LlmSection = {"status": "failed", "reason": reason, "attempts": job.attempts}
        _finish(session, row, job, section, now)
        return "failed"
    queue_repo.reschedule(session, item, now + retry_delay(job.attempts), reason)
    pending: LlmSection = {"status": "pending", "attempts": job.attempts, "last_error": reason}
    row.interpretation = {**(row.interpretation or {}), "llm": pending}
    return "retry"


def skip(session: Session, job: Job, *, now: float) -> None:
    """Nothing to ask: the record is gone, retracted, or has no text."""
    held = _hold(session, job)
    if held is not None:
        _finish(session, held[0], job, {"status": "skipped", "reason": job.skip}, now)


def _hold(session: Session, job: Job) -> tuple[RecordRow, InterpretationQueueRow] | None:
    """Lock the record, then the item (the order deletion takes them in); None when the
    item is gone or another attempt has taken it, or the record is gone."""
    row = record_repo.lock(session, [job.record_id]).get(job.record_id)
    item = queue_repo.lock(session, job.record_id)
    if item is None or item.attempts != job.attempts:
        return None
    if row is None:
        queue_repo.remove(session, job.record_id)
        return None
    return row, item


def _finish(
    session: Session,
    row: RecordRow,
    job: Job,
    section: LlmSection,
    now: float,
    created: list[str] | None = None,
) -> LlmSection:
    """Write the outcome on the record, audit it, and take the item off the queue."""
    row.interpretation = {**(row.interpretation or {}), "llm": section}
    details: dict[str, object] = {
        k: v for k, v in section.items() if k not in ("entities", "facts")
    }
    if section["status"] == "done":
        details["entities"] = len(section["entities"])
        details["facts"] = len(section["facts"])
        details["created"] = created or []  # ids of the entities and facts it created
    audit_repo.append(session, row.id, ACTION, job.actor_id, now, details=details)
    queue_repo.remove(session, row.id)
    session.flush()
    return section
