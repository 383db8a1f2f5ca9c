"""Revision: supersede, fork, retract, contest, merge (DESIGN §5 'Revision').

Each operation runs inside the caller's single transaction: targets are read-checked
(404/403 as for reads), then locked (SELECT … FOR UPDATE on PostgreSQL; SQLite already
holds the write lock), and statuses change before new records are inserted, so a failure
at any later step rolls everything back and leaves no trace."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session

from app import clock
from app.audit import repository as audit_repo
from app.enums import MemoryType, Sensitivity
from app.errors import Conflict, NotFound, Unprocessable
from app.models import RecordRow
from app.records import payload_json
from app.records import repository as record_repo
from app.records.payloads import Revision, SemanticPayload
from app.records.policy import PolicyEngine
from app.records.schemas import MemoryRecordOut, RecordCreate
from app.records.service import RecordService
from app.relations import service as relations
from app.revise.schemas import (
    ContestRequest,
    ContestResult,
    ForkRequest,
    ForkResult,
    MergeRequest,
    MergeResult,
    RetractRequest,
    RetractResult,
    SupersedeRequest,
    SupersedeResult,
)
from app.salience.service import zero_unaudited
from app.trust import TrustContext

FINAL_STATUSES = ("retracted", "superseded")


class RevisionService:
    def __init__(self, session: Session, policy: PolicyEngine) -> None:
        self.session = session
        self.records = RecordService(session, policy)

    # -- operations ---------------------------------------------------------------------

    def supersede(
        self, record_id: str, req: SupersedeRequest, trust: TrustContext
    ) -> SupersedeResult:
        old = self._lock_targets([record_id], trust)[0]
        spec = self._new_spec(req.new_record, [old], "new_record")
        spec = _with_revision(spec, old)
        now = clock.now()
        previous = self._retire([old], "superseded", now)
        new = self.records.create(spec, trust)
        relations.link(self.session, new.id, "supersedes", old.id, now)
        _set_revision(self.session, old, now, status="retracted", superseded_by=new.id)
        self._audit(
            old.id, "supersede", trust, now, req.rationale, superseded_by=new.id, **previous[0]
        )
        self._audit(new.id, "supersede", trust, now, req.rationale, supersedes=old.id)
        old_out, new_out = self._views([old.id, new.id], trust)
        return SupersedeResult(old_record=old_out, new_record=new_out)

    def fork(self, record_id: str, req: ForkRequest, trust: TrustContext) -> ForkResult:
        source = self._lock_targets([record_id], trust)[0]
        spec = self._new_spec(req.forked_record, [source], "forked_record")
        now = clock.now()
        forked = self.records.create(spec, trust)
        relations.link(self.session, forked.id, "derived_from", source.id, now)
        self._audit(source.id, "fork", trust, now, req.rationale, forked_record=forked.id)
        self._audit(forked.id, "fork", trust, now, req.rationale, forked_from=source.id)
        source_out, forked_out = self._views([source.id, forked.id], trust)
        return ForkResult(source_record=source_out, forked_record=forked_out)

    def retract(self, record_id: str, req: RetractRequest, trust: TrustContext) -> RetractResult:
        row = self._lock_targets([record_id], trust)[0]
        now = clock.now()
        previous = self._retire([row], "retracted", now)
        _set_revision(self.session, row, now, status="retracted")
        self._audit(row.id, "retract", trust, now, req.rationale, **previous[0])
        return RetractResult(record=self._views([row.id], trust)[0])

    def contest(self, record_id: str, req: ContestRequest, trust: TrustContext) -> ContestResult:
        """`contesting_ref` shaped like a record id must name a record the caller can read;
        anything else is kept as an external reference (an edge with no inverse)."""
        target = self._lock_targets([record_id], trust)[0]
        ref, is_record = _normalize_ref(req.contesting_ref)
        now = clock.now()
        if is_record:
            if ref == target.id:
                raise Unprocessable("contesting_ref: a record cannot contest itself.")
            self.records.require_readable(ref, trust)
            relations.link(self.session, target.id, "contested_by", ref, now)
            self._audit(ref, "contest", trust, now, req.rationale, contests=target.id)
        else:
            relations.link_one_way(self.session, target.id, "contested_by", ref, now)
        record_repo.set_status(self.session, [target.id], "contested", now)
        _set_revision(self.session, target, now, status="contested")
        self._audit(
            target.id,
            "contest",
            trust,
            now,
            req.rationale,
            contesting_ref=ref,
            contesting_is_record=is_record,
        )
        return ContestResult(
            record=self._views([target.id], trust)[0],
            contesting_ref=ref,
            contesting_is_record=is_record,
        )

    def merge(self, req: MergeRequest, trust: TrustContext) -> MergeResult:
        sources = self._lock_targets(req.ids, trust)
        spec = self._new_spec(req.merged_record, sources, "merged_record")
        now = clock.now()
        ids = [s.id for s in sources]
        previous = self._retire(sources, "superseded", now)
        merged = self.records.create(spec, trust)
        for source, before in zip(sources, previous, strict=True):
            relations.link(self.session, merged.id, "derived_from", source.id, now)
            relations.link(self.session, merged.id, "supersedes", source.id, now)
            _set_revision(self.session, source, now, status="retracted")
            self._audit(
                source.id, "merge", trust, now, req.rationale, merged_into=merged.id, **before
            )
        self._audit(merged.id, "merge", trust, now, req.rationale, merged_from=ids)
        merged_out, *source_outs = self._views([merged.id, *ids], trust)
        return MergeResult(merged_record=merged_out, source_records=source_outs)

    # -- helpers ------------------------------------------------------------------------

    def _lock_targets(self, ids: Sequence[str], trust: TrustContext) -> list[RecordRow]:
        for record_id in ids:
            self.records.require_writable(record_id, trust)
        locked = record_repo.lock(self.session, ids)
        rows = []
        for record_id in ids:
            row = locked.get(record_id)
            if row is None:  # deleted between the read check and the lock
                raise NotFound(f"No record {record_id!r}.")
            if row.type == MemoryType.episodic.value:
                raise Conflict(f"Record {record_id!r} is episodic; episodic records are immutable.")
            if row.status in FINAL_STATUSES:
                raise Conflict(f"Record {record_id!r} is {row.status}; revise its successor.")
            rows.append(row)
        return rows

    def _retire(self, rows: Sequence[RecordRow], status: str, now: float) -> list[dict[str, Any]]:
        """Retract or supersede `rows`: the status changes and, as in the original, their
        salience becomes 0. What they were is returned for their audit entries."""
        before = [
            {"previous_status": r.status, "previous_salience": r.salience_at(now)} for r in rows
        ]
        ids = [r.id for r in rows]
        record_repo.set_status(self.session, ids, status, now)
        zero_unaudited(self.session, ids, now)
        return before

    def _new_spec(self, spec: RecordCreate, targets: list[RecordRow], field: str) -> RecordCreate:
        """Check the new record against its targets and inherit scope and sensitivity
        when the request leaves them out."""
        wanted = targets[0].type
        if any(t.type != wanted for t in targets) or spec.memory_type.value != wanted:
            raise Unprocessable(f"{field}.type: must be {wanted!r}, the type of the target(s).")
        payload = spec.payload
        if isinstance(payload, SemanticPayload) and not (
            payload.evidence or spec.provenance.sources
        ):
            raise Unprocessable(
                f"{field}: a semantic record needs payload.evidence or provenance.sources."
            )
        updates: dict[str, object] = {}
        scopes = {t.scope for t in targets}
        if "scope" not in spec.model_fields_set and len(scopes) == 1:
            updates["scope"] = scopes.pop()
        if "sensitivity" not in spec.model_fields_set:
            updates["sensitivity"] = Sensitivity.from_rank(max(t.sensitivity for t in targets))
        return spec.model_copy(update=updates)

    def _audit(
        self,
        record_id: str,
        action: str,
        trust: TrustContext,
        now: float,
        rationale: str,
        **details: Any,
    ) -> None:
        audit_repo.append(
            self.session, record_id, action, trust.actor_id, now, rationale, details=details
        )

    def _views(self, ids: Sequence[str], trust: TrustContext) -> list[MemoryRecordOut]:
        self.session.flush()  # pending relations must be visible to the view's query
        out = []
        for record_id in ids:
            row = record_repo.reload(self.session, record_id)
            if row is None:
                raise NotFound(f"No record {record_id!r}.")
            out.append(self.records.view(row, trust))
        return out


def _set_revision(session: Session, row: RecordRow, now: float, **changes: str) -> None:
    """A semantic record's `revision` block follows its status (the original's statuses:
    active, contested, retracted — a superseded fact reads `retracted`, as there)."""
    if row.type != MemoryType.semantic.value:
        return
    revision = {**payload_json.semantic(row.payload).get("revision", {}), **changes}
    record_repo.set_payload(session, row.id, {**row.payload, "revision": revision}, now)


def _with_revision(spec: RecordCreate, old: RecordRow) -> RecordCreate:
    """A superseding semantic record carries revision {version: old + 1, supersedes}."""
    if not isinstance(spec.payload, SemanticPayload):
        return spec
    version = int(payload_json.semantic(old.payload).get("revision", {}).get("version", 1)) + 1
    revision = Revision(version=version, supersedes=old.id)
    payload = spec.payload.model_copy(update={"revision": revision})
    return spec.model_copy(update={"payload": payload})


def _normalize_ref(ref: str) -> tuple[str, bool]:
    try:
        return str(uuid.UUID(ref)), True
    except ValueError:
        return ref, False
