"""Facts that contradict (docs/memory-that-stays-true.md).

When capture, LLM interpretation or consolidation creates a semantic fact, the active
facts of the same scope with the same subject and predicate and another object are its
rivals, unless the predicate is multi-valued (`PolicyEngine.single_valued`). The newer
fact by event time (`app/records/event_time.py`; a tie goes to the one written later)
stays active:
- the new fact is newer: each rival is superseded (or contested, by policy);
- a rival is newer: the new fact is stored as superseded, whatever the policy.
The winner `contradicts` the loser (an edge and its inverse), both get an audit entry
naming the other, the loser's revision block names the winner, and its validity window,
when it has one, closes at the winner's event time.

Only rivals the writer may write are looked at (`TrustContext.can_write`, and the read
rule in SQL): a fact above the writer's ceiling is neither touched nor lets the new fact
lose, so nothing the writer may not see changes what happens to its fact.

On PostgreSQL each (scope, subject, predicate) is locked until the transaction ends
before its rivals are read; SQLite runs one writer at a time. Of concurrent
contradicting writes the second therefore sees the first: one fact stays active."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence

from sqlalchemy.orm import Session

from app import clock
from app.audit import repository as audit_repo
from app.enums import MemoryType
from app.models import RecordRow, RelationRow
from app.records import fact_repository as fact_repo
from app.records import payload_json
from app.records import repository as record_repo
from app.records.event_time import fact_time
from app.records.fact_repository import FactKey
from app.records.payload_json import RevisionJson
from app.records.policy import PolicyEngine
from app.relations import service as relations
from app.trust import TrustContext

NewFact = tuple[RecordRow, TrustContext]
RATIONALE = "contradicted by a newer fact of the same subject and predicate"


class Contradictions:
    def __init__(self, session: Session, policy: PolicyEngine) -> None:
        self.session = session
        self.policy = policy

    def settle(self, facts: Sequence[NewFact]) -> list[RelationRow]:
        """Settle new facts (already written) in the order they were created: each
        against the stored facts, its predecessors in `facts` included, its successors
        not (they had not arrived yet). Returns the `contradicts` edges written."""
        todo = [(row, trust, key) for row, trust in facts if (key := self.key_of(row))]
        if not todo:
            return []
        fact_repo.lock_keys(self.session, [key for _, _, key in todo])
        ids = [row.id for row, _, _ in todo]
        edges: list[RelationRow] = []
        for i, (row, trust, key) in enumerate(todo):
            if row.status != "active":  # lost to an earlier fact of this batch
                continue
            found = fact_repo.active_facts(self.session, key, trust.reading(), ids[i:])
            rivals = [
                r
                for r in found
                if trust.can_write(r.sensitivity, r.scope)
                and not same_object(r.payload.get("object"), row.payload.get("object"))
            ]
            if rivals:
                edges += self._overturn(row, rivals, trust)
        return edges

    def key_of(self, row: RecordRow) -> FactKey | None:
        """The fact's (scope, subject, predicate), or None when contradictions do not
        apply (not an active fact, or a multi-valued predicate)."""
        if row.type != MemoryType.semantic.value or row.status != "active":
            return None
        subject, predicate = row.payload.get("subject"), row.payload.get("predicate")
        if not isinstance(subject, str) or not isinstance(predicate, str):
            return None
        if not self.policy.single_valued(predicate):
            return None
        return (row.scope, subject, predicate)

    def _overturn(
        self, new: RecordRow, rivals: list[RecordRow], trust: TrustContext
    ) -> list[RelationRow]:
        now = clock.now()
        latest = max(rivals, key=lambda r: (_time(r), r.created_at, r.id))
        if _time(latest) > _time(new):
            outcome = [(latest, new, "superseded")]  # an older fact never overturns
        else:
            supersedes = self.policy.contradiction_policy == "supersede"
            status = "superseded" if supersedes else "contested"
            outcome = [(new, rival, status) for rival in rivals]
        edges: list[RelationRow] = []
        for winner, loser, status in outcome:
            self._lose(winner, loser, status, now, trust)
            edges += relations.link(self.session, winner.id, "contradicts", loser.id, now)
        return edges

    def _lose(
        self, winner: RecordRow, loser: RecordRow, status: str, now: float, trust: TrustContext
    ) -> None:
        payload = dict(loser.payload)
        revision = RevisionJson(**payload_json.semantic(loser.payload).get("revision", {}))
        details: dict[str, object] = {"contradicted_by": winner.id, "rule": "contradiction"}
        fields: dict[str, object] = {"status": status, "updated_at": now}
        if status == "superseded":
            # As a revision's supersede (the original's rule): the old fact reads
            # `retracted` and loses its salience; the audit entry keeps what it had.
            revision["superseded_by"] = winner.id
            revision["status"] = "retracted"
            details |= {
                "previous_status": loser.status,
                "previous_salience": loser.salience_at(now),
            }
            fields |= {"salience_base": 0.0, "salience_t0": now}
        else:
            revision["status"] = "contested"
        payload["revision"] = revision
        validity = closed_window(payload.get("validity"), _time(winner))
        if validity is not None:
            payload["validity"] = validity
        record_repo.set_fields(self.session, loser, payload=payload, **fields)
        action = "supersede" if status == "superseded" else "contest"
        audit_repo.append(self.session, loser.id, action, trust.actor_id, now, RATIONALE, details)
        audit_repo.append(
            self.session,
            winner.id,
            "contradict",
            trust.actor_id,
            now,
            RATIONALE,
            {"contradicts": loser.id, "status": status},
        )


def _time(row: RecordRow) -> float:
    return fact_time(row.payload, row.provenance or {}, row.created_at)


def same_object(a: object, b: object) -> bool:
    """Whether two objects say the same: text compared without case or extra spaces,
    anything else as canonical JSON (so the number 6379 and the text "6379" agree)."""
    return _canonical(a) == _canonical(b)


def _canonical(value: object) -> str:
    if isinstance(value, str):
        return " ".join(unicodedata.normalize("NFKC", value).casefold().split())
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def closed_window(validity: object, at: float) -> dict[str, object] | None:
    """`validity` with its window closed at `at`, or None when it has no window or the
    window already ended by then."""
    if not isinstance(validity, Mapping) or not (validity.get("start") or validity.get("end")):
        return None
    start, end = clock.epoch_of(validity.get("start")), clock.epoch_of(validity.get("end"))
    if (end is not None and end <= at) or (start is not None and start > at):
        return None
    return {**validity, "end": clock.to_datetime(at).isoformat()}
