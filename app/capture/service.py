"""CaptureMemory: classify, apply policy, interpret, link entities, write records + edges."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import TypeAdapter, ValidationError
from sqlalchemy.orm import Session

from app import clock
from app.audit import repository as audit_repo
from app.capture import queue_repository as interpret_queue
from app.capture.classifier import (
    Mention,
    as_dict,
    classify,
    episodic_payload,
    fact_of,
    mentions_of,
    summary_of,
    working_payload,
)
from app.capture.replies import QuestionsBefore
from app.capture.schemas import CaptureRequest, CaptureResponse, OutcomeIngest
from app.capture.working import close_thread, closes_thread
from app.db import dialect_of
from app.entities.service import EntityResolver
from app.enums import MemoryType
from app.errors import Conflict, Unprocessable
from app.models import RecordRow, RelationRow, staging
from app.records import repository as record_repo
from app.records.payloads import Payload
from app.records.schemas import MemoryRecordOut, Provenance, ProvenanceSource, RecordCreate
from app.records.service import RecordService
from app.records.views import full_view, relation_out
from app.relations import service as relations
from app.trust import TrustContext

_PAYLOAD = TypeAdapter(Payload)
# A batch sends its staged rows to PostgreSQL in rounds of about this many (an event
# stages three: record, provenance, audit entry). Each round is a statement per table;
# fewer rounds leave more of the server's work to wait for at the end. A batch of 100
# events in process, alternated: rounds of 90 rows 26.0 / 20.9 / 22.8 ms, of 150 rows
# 23.1 / 20.2 / 20.7, one round at the end 22.7 / 22.8 / 24.3.
SEND_AFTER_ROWS = 150


@dataclass
class CaptureResult:
    primary: RecordRow
    created: list[RecordRow] = field(default_factory=list)
    edges: list[RelationRow] = field(default_factory=list)


def validation_problem(exc: ValidationError, where: str) -> Unprocessable:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in (where, *err.get("loc", ())))
    return Unprocessable(f"{loc}: {err.get('msg')}")


class CaptureService:
    def __init__(
        self, session: Session, records: RecordService, *, interpret_llm: bool = False
    ) -> None:
        self.session = session
        self.records = records
        # LLM interpretation at capture (app/interpret): queued here, done off the request.
        self.interpret_llm = interpret_llm
        self._names_locked = False  # a batch took every item's entity-name locks up front
        self.entities = EntityResolver(session)
        self.questions = QuestionsBefore(session)  # an episode is found by what it answers
        # Rows staged and not yet written, in the order they were added (when records
        # defers its writes): written by write_staged, dropped by forget_since.
        self._staged = staging.start(session) if records.defer_writes else []
        self._contradicts: list[RelationRow] = []  # edges settling contradictions wrote

    def capture_response(self, req: CaptureRequest, trust: TrustContext) -> CaptureResponse:
        """Capture and describe what was written (records with their edges)."""
        result = self.capture(req, trust)
        # PostgreSQL inserts the rows while the answer is built; the commit waits for them
        # (one round trip for the capture's three INSERTs instead of one each).
        self.write_staged(wait=False)
        return self.describe(result)

    def write_staged(self, *, wait: bool = True) -> None:
        """Write every staged row (records first), then settle the contradictions of the
        facts among them (app/records/contradictions.py), in the order they came.
        `wait=False`: PostgreSQL inserts the rows while the caller goes on
        (app/write_behind.py); the next statement or the commit waits for them."""
        record_repo.insert_staged(self.session, self._staged, wait=wait)
        self._staged.clear()
        self._contradicts += self.records.settle_staged()
        record_repo.insert_staged(self.session, self._staged, wait=wait)  # what settling added
        self._staged.clear()
        self.session.flush()  # and changed: the records it contested

    def send_staged(self) -> None:
        """Between a batch's items, on PostgreSQL: send the rows staged so far once there
        are SEND_AFTER_ROWS of them, to be inserted while the next items are captured
        (the server's work and the API's overlap). Not while facts wait to be settled:
        settling compares them with the stored facts, which must not include them yet."""
        if len(self._staged) < SEND_AFTER_ROWS or self.records.facts_mark():
            return
        if dialect_of(self.session) == "postgresql":
            record_repo.insert_staged(self.session, self._staged, wait=False)
            self._staged.clear()

    def mark(self) -> tuple[int, int, int]:
        """Where a capture starts, for `forget_since` should it be refused."""
        return len(self._staged), self.entities.mark(), self.records.facts_mark()

    def forget_since(self, mark: tuple[int, int, int]) -> None:
        """Drop what was staged since `mark` (nothing of it was written)."""
        rows, entities, facts = mark
        self.records.forget_facts_since(facts)
        self.questions.forget(self._staged[rows:])
        del self._staged[rows:]
        self.entities.forget_since(entities)

    def describe(self, result: CaptureResult) -> CaptureResponse:
        """The answer of a written capture: its records with their edges."""
        now = clock.now()
        ids = {result.primary.id, *(r.id for r in result.created)}
        edges = result.edges + [e for e in self._contradicts if e.source_id in ids]

        def view(row: RecordRow) -> MemoryRecordOut:
            return full_view(row, now, [e for e in edges if e.source_id == row.id])

        return CaptureResponse(
            primary_record=view(result.primary),
            created_records=[view(r) for r in result.created],
            edges=[relation_out(e) for e in edges],
        )

    def lock_entities(self, requests: Sequence[CaptureRequest]) -> None:
        """Take, in one global order, the entity-name locks of several captures that will
        run in this transaction (a batch), so that no two batches deadlock; then look up
        the entities of all those names in one query."""
        names = [
            n for req in requests for n in _names(req.scope, _mentions(req, fact_of(req.content)))
        ]
        self.entities.lock(names)
        self._names_locked = True
        self.entities.prefetch(names)

    def capture(self, req: CaptureRequest, trust: TrustContext) -> CaptureResult:
        cls = classify(req.source_kind, req.proposed_type)
        summary = summary_of(req.content, req.summary, req.reason_to_remember)
        fact = fact_of(req.content)
        payload = self._payload(cls.memory_type, req, summary, fact)
        mentions = _mentions(req, fact)
        if not self._names_locked:  # (held until the transaction ends; one round trip each)
            self.entities.lock(_names(req.scope, mentions))
        now = clock.now()
        created: list[RecordRow] = []
        entities = self.resolve_entities(mentions, req, trust, created)
        interpretation: dict[str, object] = {
            "classification": {"type": cls.memory_type.value, "reason": cls.reason},
            "summary": summary,
            "entities": [
                {"name": m.name, "record_id": entities[m.name.casefold()]} for m in mentions
            ],
            "reason_to_remember": req.reason_to_remember,
        }
        if fact is not None:
            interpretation["fact"] = {"subject": fact[0], "predicate": fact[1], "object": fact[2]}
        if self.interpret_llm:
            interpretation["llm"] = {"status": "pending"}
        primary = self.records.create(
            self._spec(req, payload, interpretation), trust, source_kind=req.source_kind.value
        )
        if cls.memory_type is MemoryType.episodic:
            self.questions.add_to(primary)
        if self.interpret_llm:
            interpret_queue.enqueue(
                self.session,
                primary.id,
                actor_id=trust.actor_id,
                ceiling=trust.ceiling_rank,
                scopes=trust.scopes,
                now=now,
            )
        result = CaptureResult(primary=primary, created=created)
        if closes_thread(primary):
            self.write_staged()  # the thread's snapshots are looked up in the database
            result.edges += close_thread(self.session, primary, trust, now)
        for mention in mentions:
            result.edges += relations.link(
                self.session, primary.id, "mentions_entity", entities[mention.name.casefold()], now
            )
        if fact is not None:
            fact_row = primary
            if cls.memory_type is not MemoryType.semantic:
                fact_row = self.derive_fact(req, fact, primary, trust, result)
            result.edges += self.link_fact(fact_row, fact, entities, req.scope, trust, now)
        return result

    # -- pieces -------------------------------------------------------------------------

    def _payload(
        self,
        memory_type: MemoryType,
        req: CaptureRequest,
        summary: str,
        fact: tuple[str, str, Any] | None,
    ) -> Any:
        stamp = req.timestamp.isoformat() if req.timestamp else None
        data = as_dict(req.content)
        raw: Mapping[str, object]
        if memory_type is MemoryType.episodic:
            raw = episodic_payload(req.source_kind, req.content, summary, stamp, req.context)
        elif memory_type is MemoryType.working:
            raw = working_payload(req.content, summary, req.source, req.context)
        elif memory_type is MemoryType.semantic:
            if fact is None:
                raise Unprocessable("content: a semantic capture needs subject, predicate, object.")
            subject, predicate, obj = fact
            evidence = [{"kind": "capture", "ref": req.source}]
            raw = {
                "kind": "semantic",
                "subject": subject,
                "predicate": predicate,
                "object": obj,
                "evidence": evidence,
            }
        elif memory_type is MemoryType.entity:
            name = data.get("canonical_name") or data.get("name") or summary
            picked = _pick(data, "primary_type", "types", "aliases", "identifiers", "summary")
            raw = {"kind": "entity", "canonical_name": name, **picked}
        else:
            raw = {**data, "kind": memory_type.value}
        return _validated(raw, "content")

    def _spec(
        self, req: CaptureRequest, payload: Any, interpretation: dict[str, object]
    ) -> RecordCreate:
        source = ProvenanceSource(
            kind=req.source_kind.value, ref=req.source, timestamp=req.timestamp
        )
        return RecordCreate(
            payload=payload,
            sensitivity=req.sensitivity,
            scope=req.scope,
            tags=req.tags,
            provenance=Provenance(sources=[source]),
            interpretation=interpretation,
        )

    def resolve_entities(
        self,
        mentions: list[Mention],
        req: CaptureRequest,
        trust: TrustContext,
        created: list[RecordRow],
    ) -> dict[str, str]:
        """casefolded name → entity record id; unknown names become new entity records
        (also used by LLM interpretation, app/interpret)."""
        resolved: dict[str, str] = {}
        for mention in mentions:
            names = [mention.name, *mention.aliases]
            existing = self.entities.resolve(req.scope, names, trust)
            if existing is not None:
                resolved[mention.name.casefold()] = existing
                continue
            spec = RecordCreate(
                payload=_validated(
                    {
                        "kind": "entity",
                        "canonical_name": mention.name,
                        "types": mention.types,
                        "aliases": mention.aliases,
                    },
                    "content.entities",
                ),
                sensitivity=req.sensitivity,
                scope=req.scope,
                provenance=Provenance(sources=[ProvenanceSource(kind="capture", ref=req.source)]),
                interpretation={"created_from": "entity mention"},
            )
            row = self.records.create(spec, trust, source_kind=req.source_kind.value)
            created.append(row)
            resolved[mention.name.casefold()] = row.id
            self.entities.created(row, names)
        return resolved

    def derive_fact(
        self,
        req: CaptureRequest,
        fact: tuple[str, str, Any],
        primary: RecordRow,
        trust: TrustContext,
        result: CaptureResult,
    ) -> RecordRow:
        """A semantic record of `fact` derived from `primary`, with its edges in `result`."""
        payload = _validated(
            {
                "kind": "semantic",
                "subject": fact[0],
                "predicate": fact[1],
                "object": fact[2],
                "evidence": [{"kind": "record", "ref": primary.id}],
            },
            "content",
        )
        spec = RecordCreate(
            payload=payload,
            sensitivity=req.sensitivity,
            scope=req.scope,
            tags=req.tags,
            provenance=Provenance(
                sources=[ProvenanceSource(kind="record", ref=primary.id, timestamp=req.timestamp)]
            ),
            interpretation={"derived_from": primary.id},
        )
        row = self.records.create(spec, trust, source_kind=req.source_kind.value)
        result.created.append(row)
        result.edges += relations.link(
            self.session, row.id, "derived_from", primary.id, clock.now()
        )
        return row

    def link_fact(
        self,
        fact_row: RecordRow,
        fact: tuple[str, str, Any],
        entities: dict[str, str],
        scope: str | None,
        trust: TrustContext,
        now: float,
    ) -> list[RelationRow]:
        """The fact's subject edge, and its object edge when the object names an entity
        the caller could read."""
        edges = relations.link(
            self.session, fact_row.id, "subject_entity", entities[fact[0].casefold()], now
        )
        if isinstance(fact[2], str):
            obj = self.entities.resolve(scope, [fact[2]], trust)
            if obj is not None:
                edges += relations.link(self.session, fact_row.id, "object_entity", obj, now)
        return edges

    # -- outcomes -------------------------------------------------------------------------

    def record_outcome(self, body: OutcomeIngest, trust: TrustContext) -> MemoryRecordOut:
        """The one mutation episodic records allow: their outcome."""
        row = self.records.require_writable(body.record_id, trust)
        if row.type != MemoryType.episodic.value:
            raise Conflict(f"Record {row.id!r} is {row.type}; outcomes belong to episodic records.")
        previous = row.payload.get("outcome")
        row.payload = {**row.payload, "outcome": body.outcome.value}
        row.updated_at = clock.now()
        source = ProvenanceSource(
            kind="outcome",
            ref=body.source or trust.actor_id,
            created_by=trust.actor_id,
            timestamp=body.timestamp or clock.to_datetime(row.updated_at),
        )
        self.records.add_provenance(row, source)
        audit_repo.append(
            self.session,
            row.id,
            "outcome",
            trust.actor_id,
            row.updated_at,
            rationale=body.rationale,
            details={"previous": previous, "outcome": body.outcome.value, **body.details},
        )
        self.write_staged()  # the audit entry and provenance row, with the record's change
        return self.records.view(row, trust)


def _mentions(req: CaptureRequest, fact: tuple[str, str, Any] | None) -> list[Mention]:
    """Entities a capture names: explicit mentions, and a fact's subject."""
    mentions = mentions_of(req.content, req.context)
    named = {m.name.casefold() for m in mentions}
    if fact is not None and fact[0].casefold() not in named:
        mentions.insert(0, Mention(fact[0]))
    return mentions


def _names(scope: str | None, mentions: list[Mention]) -> list[tuple[str | None, str]]:
    return [(scope, name) for m in mentions for name in (m.name, *m.aliases)]


def _validated(raw: Mapping[str, object], where: str) -> Any:
    """A typed payload built from caller input: invalid input is the caller's 422."""
    try:
        return _PAYLOAD.validate_python(raw)
    except ValidationError as exc:
        raise validation_problem(exc, where) from exc


def _pick(data: Mapping[str, object], *keys: str) -> dict[str, object]:
    return {k: data[k] for k in keys if k in data}
