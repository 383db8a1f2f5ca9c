"""Reinforce, penalize, pin and unpin: the salience of one record.

Each salience change is one UPDATE statement computing the new value from the stored row
(no read-modify-write in Python), so concurrent calls never lose an update."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from app import clock
from app.audit import repository as audit_repo
from app.config import PolicySettings
from app.db import Database
from app.errors import NotFound
from app.models import RecordRow
from app.records import repository as record_repo
from app.records.policy import PolicyEngine
from app.records.schemas import MemoryRecordOut
from app.records.service import RecordService
from app.salience import repository as salience_repo
from app.trust import TrustContext


def reinforce_unaudited(session: Session, ids: Sequence[str], now: float) -> None:
    """One reinforcement of each of `ids` at `now`, for a writer that holds the records
    already and writes its own audit entries (consolidation's promotion); a record that
    is gone is left out."""
    salience_repo.reinforce_many(session, ids, now)


def zero_unaudited(session: Session, ids: Sequence[str], now: float) -> None:
    """Salience 0 for records a revision retires (the original zeroes a retracted or
    superseded record's salience); the revision writes its own audit entries."""
    if ids:
        salience_repo.zero(session, ids, now)


def scale_unaudited(session: Session, ids: Sequence[str], factor: float, now: float) -> None:
    """Lower the salience of episodes compression summarised (the original's episodic
    compression); the compressed record's `derived_from` edges say which they were."""
    if ids and factor < 1.0:
        salience_repo.scale(session, ids, factor, now)


ACCESS_ACTOR = "system:access"


def reinforce_on_access(
    db: Database, policy: PolicySettings, ids: Sequence[str], reader: str
) -> None:
    """The original reinforces a record whenever it is accessed. Opt-in here
    (`policy.reinforce_on_access`): the records a read returned in full are reinforced
    after it, in one write transaction of their own, each with an audit entry naming the
    reader (a read alone never writes, so this is off by default)."""
    if not (policy.reinforce_on_access and ids):
        return
    with db.transaction() as session:
        now = clock.now()
        for record_id in dict.fromkeys(ids):
            value = salience_repo.reinforce(session, record_id, now)
            if value is not None:
                details = {"reader": reader, "salience": value}
                audit_repo.append(
                    session, record_id, "reinforce", ACCESS_ACTOR, now, "accessed", details
                )


class SalienceService:
    def __init__(self, session: Session, policy: PolicyEngine) -> None:
        self.session = session
        self.records = RecordService(session, policy)

    def reinforce(
        self, record_id: str, trust: TrustContext, rationale: str | None
    ) -> MemoryRecordOut:
        row = self.records.require_writable(record_id, trust)
        gain = row.reinforcement_gain
        now = clock.now()
        value = salience_repo.reinforce(self.session, record_id, now)
        return self._changed(record_id, "reinforce", trust, now, rationale, value, gain=gain)

    def penalize(
        self, record_id: str, trust: TrustContext, amount: float, rationale: str | None
    ) -> MemoryRecordOut:
        self.records.require_writable(record_id, trust)
        now = clock.now()
        value = salience_repo.penalize(self.session, record_id, amount, now)
        return self._changed(record_id, "penalize", trust, now, rationale, value, amount=amount)

    def set_pinned(
        self, record_id: str, trust: TrustContext, pinned: bool, rationale: str | None
    ) -> MemoryRecordOut:
        self.records.require_writable(record_id, trust)
        now = clock.now()
        if salience_repo.set_pinned(self.session, record_id, pinned, now):
            action = "pin" if pinned else "unpin"
            audit_repo.append(self.session, record_id, action, trust.actor_id, now, rationale)
        return self.records.view(self._fresh(record_id), trust)

    # -- helpers ------------------------------------------------------------------------

    def _changed(
        self,
        record_id: str,
        action: str,
        trust: TrustContext,
        now: float,
        rationale: str | None,
        value: float | None,
        **details: float,
    ) -> MemoryRecordOut:
        if value is None:  # deleted between the read check and the update
            raise NotFound(f"No record {record_id!r}.")
        audit_repo.append(
            self.session,
            record_id,
            action,
            trust.actor_id,
            now,
            rationale,
            details={**details, "salience": value},
        )
        return self.records.view(self._fresh(record_id), trust)

    def _fresh(self, record_id: str) -> RecordRow:
        row = record_repo.reload(self.session, record_id)
        if row is None:
            raise NotFound(f"No record {record_id!r}.")
        return row
