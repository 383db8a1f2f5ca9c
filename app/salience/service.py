"""Reinforce, penalize, pin, unpin and delete: single-record lifecycle operations.

Each salience change is one UPDATE statement computing the new value from the stored row
(no read-modify-write in Python), so concurrent calls never lose an update."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app import clock
from app.errors import Conflict, NotFound
from app.models import RecordRow
from app.records.policy import PolicyEngine
from app.records.service import RecordService
from app.audit import repository as audit_repo
from app.sweep import repository as lifecycle_repo
from app.records import repository as record_repo
from app.salience.repository import salience_of
from app.revise.schemas import RecordDeleted
from app.records.schemas import MemoryRecordOut
from app.security import TrustContext


class LifecycleService:
    def __init__(self, session: Session, policy: PolicyEngine) -> None:
        self.session = session
        self.records = RecordService(session, policy)

    def reinforce(
        self, record_id: str, trust: TrustContext, rationale: str | None
    ) -> MemoryRecordOut:
        row = self.records.require_writable(record_id, trust)
        gain = row.reinforcement_gain
        now = clock.now()
        value = lifecycle_repo.reinforce(self.session, record_id, now)
        return self._changed(record_id, "reinforce", trust, now, rationale, value, gain=gain)

    def penalize(
        self, record_id: str, trust: TrustContext, amount: float, rationale: str | None
    ) -> MemoryRecordOut:
        self.records.require_writable(record_id, trust)
        now = clock.now()
        value = lifecycle_repo.penalize(self.session, record_id, amount, now)
        return self._changed(record_id, "penalize", trust, now, rationale, value, amount=amount)

    def set_pinned(
        self, record_id: str, trust: TrustContext, pinned: bool, rationale: str | None
    ) -> MemoryRecordOut:
        self.records.require_writable(record_id, trust)
        now = clock.now()
        if lifecycle_repo.set_pinned(self.session, record_id, pinned, now):
            action = "pin" if pinned else "unpin"
            audit_repo.append(self.session, record_id, action, trust.actor_id, now, rationale)
        return self.records.view(self._fresh(record_id))

    def delete(self, record_id: str, trust: TrustContext, rationale: str | None) -> RecordDeleted:
        """Explicit deletion: `never` records refuse (409); the audit trail survives the
        row and ends with a `delete` entry carrying a snapshot of the record."""
        self.records.require_writable(record_id, trust)
        row = record_repo.lock(self.session, [record_id]).get(record_id)
        if row is None:
            raise NotFound(f"No record {record_id!r}.")
        if row.deletion_policy == "never":
            raise Conflict(f"Record {record_id!r} has deletion policy 'never'.")
        now = clock.now()
        audit_repo.append(
            self.session,
            record_id,
            "delete",
            trust.actor_id,
            now,
            rationale,
            details=_tombstone(row, now),
        )
        record_repo.delete_record(self.session, record_id)
        return RecordDeleted(id=record_id, deleted_at=clock.to_datetime(now))

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
        return self.records.view(self._fresh(record_id))

    def _fresh(self, record_id: str) -> RecordRow:
        row = lifecycle_repo.reload(self.session, record_id)
        if row is None:
            raise NotFound(f"No record {record_id!r}.")
        return row


def _tombstone(row: RecordRow, now: float) -> dict[str, Any]:
    return {
        "type": row.type,
        "scope": row.scope,
        "status": row.status,
        "sensitivity": row.sensitivity,
        "deletion_policy": row.deletion_policy,
        "created_at": row.created_at,
        "created_by": row.created_by,
        "salience": salience_of(row, now),
    }
