"""Creating, reading and deleting records. Services never commit: the caller's unit of
work does."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from sqlalchemy.orm import Session

from app import clock
from app.audit import repository as audit_repo
from app.entities import service as entities
from app.enums import MemoryType, Sensitivity
from app.errors import Conflict, DomainError, Forbidden, NotFound, Unprocessable
from app.models import AuditRow, ProvenanceRow, RecordRow, RelationRow, staging
from app.records import payload_json
from app.records import repository as record_repo
from app.records.contradictions import Contradictions, NewFact
from app.records.event_time import occurred_at
from app.records.filters import RecordFilter, RecordQuery
from app.records.ids import new_record_id
from app.records.payloads import payload_dict
from app.records.policy import PolicyEngine, ResolvedPolicy
from app.records.references import named_refs, unseen, unseen_in_rows
from app.records.schemas import (
    AuditPage,
    MemoryRecordOut,
    ProvenanceSource,
    RecordCreate,
    RecordDeleted,
    RecordPage,
    RelationsOut,
)
from app.records.search_text import searchable_text
from app.records.views import audit_out, full_view, list_views, relation_out
from app.relations import service as relations
from app.trust import HIGHEST_RANK, TrustContext, check_write_target


class InvalidCursor(DomainError):
    status, slug, title = 400, "invalid-cursor", "Invalid cursor"


def encode_cursor(row: RecordRow) -> str:
    raw = json.dumps([row.created_at, row.id]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[float, str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        created, rid = json.loads(base64.urlsafe_b64decode(padded.encode()))
        return float(created), str(rid)
    except (ValueError, TypeError) as exc:
        raise InvalidCursor("The cursor is not one this service issued.") from exc


MAX_EMBEDDED_SOURCES = 100


class RecordService:
    def __init__(
        self,
        session: Session,
        policy: PolicyEngine,
        *,
        defer_writes: bool = False,
        settles_facts: bool = False,
    ) -> None:
        self.session = session
        self.policy = policy
        # Capture stages every row of a request (of a whole batch) and writes them at the
        # end with record_repo.insert_staged: a few multi-row INSERTs instead of
        # three flushes per record. Other callers write each record as it is created.
        self.defer_writes = defer_writes
        # Capture, LLM interpretation and consolidation settle contradictions between the
        # facts they create and the stored ones (app/records/contradictions.py); typed
        # creation, revisions and import leave that to the caller. Staged facts wait
        # for `settle_staged`.
        self.contradictions = Contradictions(session, policy) if settles_facts else None
        self._new_facts: list[NewFact] = []

    # -- writes ---------------------------------------------------------------------------

    def create(
        self, spec: RecordCreate, trust: TrustContext, *, source_kind: str | None = None
    ) -> RecordRow:
        """Insert one record with its tags, provenance, relations, terms and audit entry."""
        memory_type = spec.memory_type
        pol = self.policy.resolve(
            memory_type,
            spec.lifecycle,
            sensitivity=spec.sensitivity,
            confidence=spec.confidence,
            salience=spec.salience,
            source_kind=source_kind,
        )
        check_write_target(trust, spec.scope, pol.sensitivity)
        self._check_relation_targets(spec, trust)
        now = clock.now()
        row = _new_row(spec, pol, trust.actor_id, now)
        record_repo.add_record(
            self.session, row, _provenance_rows(spec), insert_at_once=not self.defer_writes
        )
        for rel in spec.relations:
            relations.link(self.session, row.id, rel.predicate, rel.target_id, now, rel.weight)
        if memory_type is MemoryType.entity:
            entity = payload_json.entity(row.payload)
            names = [entity["canonical_name"], *entity.get("aliases", [])]
            entities.add_names(self.session, row, names)
        audit_repo.append(
            self.session,
            row.id,
            "create",
            trust.actor_id,
            now,
            details={"type": memory_type.value, "source_kind": source_kind},
        )
        if not self.defer_writes:
            self.session.flush()
        if self.contradictions is not None and memory_type is MemoryType.semantic:
            self._new_facts.append((row, trust))
            if not self.defer_writes:
                self.settle_staged()
        return row

    def settle_staged(self) -> list[RelationRow]:
        """Settle the contradictions of the facts created since the last call (now
        written); the `contradicts` edges written."""
        facts, self._new_facts = self._new_facts, []
        if self.contradictions is None or not facts:
            return []
        return self.contradictions.settle(facts)

    def facts_mark(self) -> int:
        return len(self._new_facts)

    def forget_facts_since(self, mark: int) -> None:
        """Facts staged since `mark` were dropped, never written: nothing to settle."""
        del self._new_facts[mark:]

    def _check_relation_targets(self, spec: RecordCreate, trust: TrustContext) -> None:
        ids = [r.target_id for r in spec.relations]
        found = record_repo.get_many_loaded(self.session, ids)
        for i, rel in enumerate(spec.relations):
            target = found.get(rel.target_id)
            if target is None or not trust.can_read(target.sensitivity, target.scope):
                raise Unprocessable(f"relations[{i}].target_id: no record {rel.target_id!r}.")

    # -- reads ----------------------------------------------------------------------------

    def require_readable(self, record_id: str, trust: TrustContext) -> RecordRow:
        """A record by id: 404 when missing, out of scope or two or more levels above the
        ceiling (as if it did not exist), 403 one level above (the redacted level)."""
        return _readable(record_repo.get(self.session, record_id), record_id, trust)

    def require_writable(self, record_id: str, trust: TrustContext) -> RecordRow:
        """A record a mutation may touch: readable, and inside the caller's write reach
        (scope and ceiling), as for creating it."""
        row = self.require_readable(record_id, trust)
        check_write_target(trust, row.scope, Sensitivity.from_rank(row.sensitivity))
        return row

    def add_provenance(self, row: RecordRow, source: ProvenanceSource) -> None:
        """Append one source to a record's provenance: always its indexed row; in the
        record's own JSON (returned with every read) only the first MAX_EMBEDDED_SOURCES,
        then a count of the rest, so a fact seen in 50,000 episodes stays small."""
        record_repo.add_provenance(self.session, row.id, _provenance_row(source))
        provenance = dict(row.provenance or {})
        stored = payload_json.provenance(provenance)
        sources: list[object] = list(stored.get("sources", []))
        if len(sources) < MAX_EMBEDDED_SOURCES:
            sources.append(source.model_dump(mode="json", exclude_none=True))
            provenance["sources"] = sources
        else:
            provenance["sources_not_shown"] = int(stored.get("sources_not_shown", 0)) + 1
        row.provenance = provenance

    def read(self, record_id: str, trust: TrustContext) -> MemoryRecordOut:
        """A record in full with its edges and trail (read in one statement)."""
        found = record_repo.get_for_reading(self.session, record_id, trust.reading())
        row = _readable(found[0] if found else None, record_id, trust)
        _, rels, history = found or (row, [], [])
        hidden = unseen(self.session, named_refs([row], history), trust)
        seed_names = self.policy.seed_audit_names
        return full_view(row, clock.now(), rels, history, hidden, seed_names=seed_names)

    def view(self, row: RecordRow, trust: TrustContext) -> MemoryRecordOut:
        rels = relations.outgoing(self.session, [row.id], trust)
        hidden = unseen_in_rows(self.session, [row], trust)
        return full_view(row, clock.now(), rels, hidden=hidden)

    def list_page(
        self, flt: RecordFilter, trust: TrustContext, *, limit: int, cursor: str | None
    ) -> RecordPage:
        now = clock.now()
        after = decode_cursor(cursor) if cursor else None
        query = RecordQuery(flt, trust.listing(), now)
        found = record_repo.page(self.session, query, trust.reading(), limit=limit + 1, after=after)
        more = len(found) > limit
        rows = [row for row, _ in found[:limit]]
        readable = [r for r in rows if not trust.redacts(r.sensitivity)]
        rels = [
            e for row, edges in found[:limit] if not trust.redacts(row.sensitivity) for e in edges
        ]
        hidden = unseen_in_rows(self.session, readable, trust)
        items = list_views(rows, rels, trust, now, hidden)
        return RecordPage(items=items, next_cursor=encode_cursor(rows[-1]) if more else None)

    def audit(self, record_id: str, trust: TrustContext) -> AuditPage:
        entries = self._audit_rows(record_id, trust)
        hidden = unseen(self.session, named_refs([], entries), trust)
        seed_names = self.policy.seed_audit_names
        return AuditPage(items=[audit_out(e, hidden, seed_names=seed_names) for e in entries])

    def _audit_rows(self, record_id: str, trust: TrustContext) -> list[AuditRow]:
        """History of a record; a deleted record's history stays readable under the trust
        rules of the record as it was (its tombstone keeps scope and sensitivity)."""
        if record_repo.get(self.session, record_id) is not None:
            self.require_readable(record_id, trust)
            return audit_repo.for_record(self.session, record_id)
        tomb = audit_repo.tombstone(self.session, record_id)
        if tomb is None:
            raise NotFound(f"No record {record_id!r}.")
        was = payload_json.tombstone(tomb.details)
        was_rank = int(was.get("sensitivity", HIGHEST_RANK))
        if not trust.may_list(was_rank, was.get("scope")):
            raise NotFound(f"No record {record_id!r}.")
        if trust.redacts(was_rank):
            raise Forbidden(f"Record {record_id!r} was above your ceiling.")
        return audit_repo.for_record(self.session, record_id)

    def relations(self, record_id: str, trust: TrustContext) -> RelationsOut:
        self.require_readable(record_id, trust)
        return RelationsOut(
            outgoing=[
                relation_out(e) for e in relations.outgoing(self.session, [record_id], trust)
            ],
            incoming=[
                relation_out(e) for e in relations.incoming(self.session, [record_id], trust)
            ],
        )

    # -- deletion -------------------------------------------------------------------------

    def delete(self, record_id: str, trust: TrustContext, rationale: str | None) -> RecordDeleted:
        """Explicit deletion: `never` records refuse (409); the audit trail survives the
        row and ends with a `delete` entry carrying a snapshot of the record."""
        self.require_writable(record_id, trust)
        row = record_repo.lock(self.session, [record_id], deleting=True).get(record_id)
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
        record_repo.remove_record(self.session, record_id)
        return RecordDeleted(id=record_id, deleted_at=clock.to_datetime(now))


def _readable(row: RecordRow | None, record_id: str, trust: TrustContext) -> RecordRow:
    """`row` when the caller may read it in full: 404 when missing, out of scope or two or
    more levels above the ceiling (as if it did not exist), 403 one level above (the
    redacted level)."""
    if row is None or not trust.may_list(row.sensitivity, row.scope):
        raise NotFound(f"No record {record_id!r}.")
    if trust.redacts(row.sensitivity):
        level = Sensitivity.from_rank(row.sensitivity).value
        raise Forbidden(f"Record {record_id!r} is {level!r}, above your ceiling.")
    return row


def _tombstone(row: RecordRow, now: float) -> dict[str, object]:
    """What the `delete` audit entry keeps of the record (its trail stays trust-checked
    by this scope and sensitivity)."""
    return {
        "type": row.type,
        "scope": row.scope,
        "status": row.status,
        "sensitivity": row.sensitivity,
        "deletion_policy": row.deletion_policy,
        "created_at": row.created_at,
        "created_by": row.created_by,
        "salience": row.salience_at(now),
    }


def _new_row(spec: RecordCreate, pol: ResolvedPolicy, actor_id: str, now: float) -> RecordRow:
    """The records row of a new record: policy applied, decay clock started, queued for
    embedding."""
    payload = payload_dict(spec.payload)
    provenance = spec.provenance.model_dump(mode="json", exclude_none=True)
    provenance.setdefault("created_by", actor_id)  # None was dropped above
    return staging.new_row(
        RecordRow,
        id=new_record_id(),
        type=spec.memory_type.value,
        status="active",
        sensitivity=pol.sensitivity.rank,
        confidence=pol.confidence,
        scope=spec.scope,
        tags=list(spec.tags),
        created_at=now,
        updated_at=now,
        salience_base=pol.salience,
        salience_t0=now,
        salience_swept=pol.salience,
        decay_curve=pol.curve,
        half_life_s=pol.half_life_s,
        min_salience=pol.min_salience,
        max_age_s=pol.max_age_s,
        reinforcement_gain=pol.reinforcement_gain,
        pinned=pol.pinned,
        deletion_policy=pol.deletion_policy.value,
        created_by=actor_id,
        provenance=provenance,
        interpretation=spec.interpretation,
        payload=payload,
        search_text=searchable_text(spec.memory_type.value, payload),
        embedding_status="pending",
        occurred_at=occurred_at(spec.memory_type.value, payload, now),
    )


def _provenance_rows(spec: RecordCreate) -> list[ProvenanceRow]:
    return [_provenance_row(s) for s in spec.provenance.sources]


def _provenance_row(s: ProvenanceSource) -> ProvenanceRow:
    return staging.new_row(
        ProvenanceRow,
        kind=s.kind,
        ref=s.ref,
        hash=s.hash,
        created_by=s.created_by,
        timestamp=clock.to_epoch(s.timestamp) if s.timestamp else None,
    )


@contextmanager
def staged_writes(
    session: Session, policy: PolicyEngine, *, settles_facts: bool = False
) -> Iterator[RecordService]:
    """A RecordService whose records, and every other row added inside the block, are
    written together when it ends: a few multi-row INSERTs (`insert_staged`) instead of an
    ORM flush per record (~4 ms each), then the new facts' contradictions settled in the
    order they came (with `settles_facts`)."""
    service = RecordService(session, policy, defer_writes=True, settles_facts=settles_facts)
    with staging.gathering(session) as staged:
        yield service
    write_gathered(service, staged)


def write_gathered(service: RecordService, rows: Sequence[object]) -> None:
    """Rows gathered for `service` (`staging`) as one INSERT per table, then the facts it
    created since the last write settled in the order they came."""
    record_repo.insert_staged(service.session, rows)
    service.settle_staged()
    service.session.flush()  # what settling wrote: edges and audit entries
