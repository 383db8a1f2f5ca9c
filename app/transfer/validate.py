"""The first pass of an import: every line checked before anything is written.

Besides each line's own schema (app/transfer/lines.py): the header comes first and names
a format this service reads; the end line comes last and its counts match the lines
before it (a truncated file has none); a record id appears once; records are within the
importer's trust and its payload is of the record's type; a record id already in the
store is skipped only when the importer may read that record and the line agrees with
it on type, scope and sensitivity, and is refused otherwise with one answer
(`id_conflict`) whether or not the importer may see the stored record, so the answer
does not tell a hidden record from a visible one; every row that belongs to a record
(edge source, provenance, entity term, vector, audit entry) names a record of the file or
one already in the store the importer may write; an edge's target is a record of the
file or one the importer may read (only `contested_by` may point outside the store, at
an external reference that is not a record id): an edge to anything else (a record
deleted since, or one the importer may not see: the same answer) is skipped, never
written. Audit entries of records that exist
nowhere (the trail of a deleted record) are kept only from an importer who may read
everything: the entry carries no scope or sensitivity a narrower one could be checked
against.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import IO

from pydantic import BaseModel, TypeAdapter, ValidationError
from sqlalchemy.orm import Session

from app.errors import DomainError
from app.records.payloads import Payload
from app.records.references import is_record_id
from app.transfer import repository as repo
from app.transfer.lines import BadLine, first_error, numbered_lines, parse_line
from app.transfer.schemas import (
    FORMAT_VERSION,
    AuditLine,
    EmbeddingLine,
    EndLine,
    EntityTermLine,
    HeaderLine,
    ProvenanceLine,
    RecordLine,
    RelationLine,
)
from app.trust import TrustContext

Reader = Callable[[], AbstractContextManager[Session]]
MAX_REPORTED = 1000
LOOKUP_CHUNK = 500


class ImportRejected(DomainError):
    status, slug, title = 422, "import-rejected", "Import rejected"

    def __init__(self, errors: list[BadLine], total: int) -> None:
        lines = ", ".join(str(e.line) for e in errors[:20])
        more = f" and {total - 20} more" if total > 20 else ""
        super().__init__(
            f"{total} bad line(s): {lines}{more}. Nothing was imported; every bad line is "
            f"listed in errors[] (the first {MAX_REPORTED})."
        )
        self.errors = errors
        self.total = total


PAYLOAD: TypeAdapter[Payload] = TypeAdapter(Payload)
RECORD, ROW = 1, 2  # line classes the second pass writes, in this order


@dataclass
class Checked:
    """What the first pass learnt: the file's header, its counts per kind, and the class
    of each line (one byte a line), so the second pass parses each line once more only."""

    header: HeaderLine | None = None
    counts: Counter[str] = field(default_factory=Counter)
    lines: int = 0
    classes: bytearray = field(default_factory=bytearray)
    # edge targets that are no record the importer may read: those edges are skipped
    unreachable_targets: set[str] = field(default_factory=set)

    def mark(self, number: int, code: int) -> None:
        if len(self.classes) <= number:
            self.classes.extend(bytes(number + 1 - len(self.classes)))
        self.classes[number] = code

    def code(self, number: int) -> int:
        return self.classes[number] if number < len(self.classes) else 0


@dataclass
class _Pass:
    trust: TrustContext
    checked: Checked = field(default_factory=Checked)
    errors: list[BadLine] = field(default_factory=list)
    total_errors: int = 0
    # record id → (line, type, scope, sensitivity rank) of the file's record lines
    heads: dict[str, tuple[int, str, str | None, int]] = field(default_factory=dict)
    # (line, record id, kind) of rows naming a record not seen (yet) in the file
    refs: list[tuple[int, str, str]] = field(default_factory=list)
    # (target, predicate) of edges whose target is not (yet) a record of the file
    targets: list[tuple[str, str]] = field(default_factory=list)
    end: tuple[int, EndLine] | None = None
    last_line: int = 0

    def bad(self, line: int, msg: str, kind: str) -> None:
        self.total_errors += 1
        if len(self.errors) < MAX_REPORTED:
            self.errors.append(BadLine(line, msg, kind))


def check_file(reader: Reader, source: IO[bytes], trust: TrustContext) -> Checked:
    """Raise ImportRejected listing every bad line (with its number), or return what the
    second pass needs. `reader` opens a read transaction (Database.read_transaction)."""
    state = _Pass(trust)
    for number, raw in numbered_lines(source):
        first = state.last_line == 0
        state.last_line = number
        parsed = parse_line(number, raw)
        if isinstance(parsed, BadLine):
            state.bad(parsed.line, parsed.msg, parsed.type)
        elif first != isinstance(parsed, HeaderLine):
            msg = "the first line must be the header" if first else "a header after line 1"
            state.bad(number, msg, "misplaced_header")
        else:
            _check_line(state, number, parsed)
    _check_ends(state)
    with reader() as session:
        _check_taken(state, session)
        _check_refs(state, session)
        _check_targets(state, session)
    if state.total_errors:
        state.errors.sort(key=lambda e: e.line)
        raise ImportRejected(state.errors, state.total_errors)
    state.checked.lines = state.last_line
    return state.checked


def _check_line(state: _Pass, number: int, line: BaseModel) -> None:
    if state.end is not None:
        state.bad(number, "nothing may follow the end line", "after_end")
        return
    if isinstance(line, HeaderLine):
        if line.version > FORMAT_VERSION:
            msg = f"format version {line.version} is newer than this service reads"
            state.bad(number, f"{msg} ({FORMAT_VERSION})", "unsupported_version")
        state.checked.header = line
        return
    if isinstance(line, EndLine):
        state.end = (number, line)
        return
    kind = str(getattr(line, "kind", ""))
    state.checked.counts[kind] += 1
    state.checked.mark(number, RECORD if isinstance(line, RecordLine) else ROW)
    if isinstance(line, RecordLine):
        _check_record(state, number, line)
    elif isinstance(line, RelationLine):
        _ref(state, number, line.source_id, kind)
        if line.target_id not in state.heads:
            state.targets.append((line.target_id, line.predicate))
    elif isinstance(line, ProvenanceLine | EntityTermLine | AuditLine):
        _ref(state, number, line.record_id, kind)
    elif isinstance(line, EmbeddingLine):
        if len(line.vector) != line.dimension:
            msg = f"vector has {len(line.vector)} values, dimension says {line.dimension}"
            state.bad(number, msg, "dimension_mismatch")
        _ref(state, number, line.record_id, kind)


def _check_record(state: _Pass, number: int, line: RecordLine) -> None:
    if line.id in state.heads:
        state.bad(number, f"record {line.id!r} appears twice in the file", "duplicate_id")
        return
    rank = line.sensitivity.rank
    state.heads[line.id] = (number, line.type.value, line.scope, rank)
    _check_payload(state, number, line)
    trust = state.trust
    if trust.can_write(rank, line.scope):
        return
    if rank > trust.ceiling_rank:
        msg = f"sensitivity {line.sensitivity.value!r} is above your ceiling"
        state.bad(number, f"{msg} {trust.ceiling.value!r}", "forbidden")
    else:
        state.bad(number, f"scope {line.scope!r} is outside your scopes", "forbidden")


def _check_payload(state: _Pass, number: int, line: RecordLine) -> None:
    """The payload is one of the record's type, as capture would have written it: a
    malformed one would fail later, in revisions and reads of everyone in its scope."""
    if line.payload.get("kind") != line.type.value:
        msg = f"payload.kind must be {line.type.value!r}, the record's type"
        state.bad(number, msg, "payload_kind")
        return
    try:
        PAYLOAD.validate_python(line.payload)
    except ValidationError as exc:
        state.bad(number, f"payload: {first_error(exc)}", "payload_invalid")


def _ref(state: _Pass, number: int, record_id: str, kind: str) -> None:
    if record_id not in state.heads:
        state.refs.append((number, record_id, kind))


def _check_ends(state: _Pass) -> None:
    if state.last_line == 0:
        state.bad(1, "the file is empty", "missing_header")
        return
    if state.end is None:
        msg = "the file has no end line: it was cut short (nothing after line"
        state.bad(state.last_line + 1, f"{msg} {state.last_line})", "truncated")
        return
    number, end = state.end
    if state.total_errors:  # bad lines make the counts moot: they are reported already
        return
    found = {k: v for k, v in state.checked.counts.items() if v}
    declared = {k: v for k, v in end.counts.items() if v}
    if found != declared:
        msg = f"the end line counts {declared} but the file holds {found}"
        state.bad(number, msg, "count_mismatch")


def _lookup(session: Session, ids: set[str]) -> dict[str, tuple[str, str | None, int]]:
    wanted = sorted(ids)
    found: dict[str, tuple[str, str | None, int]] = {}
    for i in range(0, len(wanted), LOOKUP_CHUNK):
        found |= repo.record_heads(session, wanted[i : i + LOOKUP_CHUNK])
    return found


def _check_taken(state: _Pass, session: Session) -> None:
    """A file record whose id the store holds: skipped when it is the same record as far
    as trust goes and the importer may read it; else one refusal for every case."""
    stored = _lookup(session, set(state.heads))
    for rid, (kind, scope, rank) in stored.items():
        number, *head = state.heads[rid]
        if state.trust.can_read(rank, scope) and tuple(head) == (kind, scope, rank):
            continue
        msg = f"record id {rid!r} is taken in this store by a different record"
        state.bad(number, msg, "id_conflict")


def _check_refs(state: _Pass, session: Session) -> None:
    pending = [(n, rid, kind) for n, rid, kind in state.refs if rid not in state.heads]
    if not pending:
        return
    trust = state.trust
    stored = _lookup(session, {rid for _, rid, _ in pending})
    writable = {rid for rid, (_, scope, rank) in stored.items() if trust.can_write(rank, scope)}
    for number, rid, kind in pending:
        if rid in writable or (kind == "audit" and rid not in stored and trust.reads_everything()):
            continue
        msg = f"{kind} names record {rid!r}, which is neither in the file nor in this store"
        state.bad(number, msg, "dangling_reference")


def _check_targets(state: _Pass, session: Session) -> None:
    """Edge targets: a record the importer may read, or (contested_by only) an external
    reference that is not shaped like a record id."""
    pending = [t for t in state.targets if t[0] not in state.heads]
    ids = {target for target, _ in pending if is_record_id(target)}
    stored = _lookup(session, ids)
    trust = state.trust
    readable = {rid for rid, (_, scope, rank) in stored.items() if trust.can_read(rank, scope)}
    for target, predicate in pending:
        if target not in readable and (predicate != "contested_by" or is_record_id(target)):
            state.checked.unreachable_targets.add(target)
