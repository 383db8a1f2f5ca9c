"""The first pass of an import: every line checked before anything is written.

Besides each line's own schema (app/transfer/lines.py): the header comes first and names
a format this service reads; the end line comes last and its counts match the lines
before it (a truncated file has none); a record id appears once; records are within the
importer's trust; every row that belongs to a record (edge source, provenance, entity
term, vector, audit entry) names a record of the file or one already in the store the
importer may read. Audit entries of records that exist nowhere (the trail of a deleted
record) are kept only from an importer who may read everything: the entry carries no
scope or sensitivity a narrower one could be checked against.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import IO

from pydantic import BaseModel
from sqlalchemy.orm import Session

from app.errors import DomainError
from app.transfer import repository as repo
from app.transfer.lines import BadLine, numbered_lines, parse_line
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
from app.trust import HIGHEST_RANK, TrustContext

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


RECORD, ROW = 1, 2  # line classes the second pass writes, in this order


@dataclass
class Checked:
    """What the first pass learnt: the file's header, its counts per kind, and the class
    of each line (one byte a line), so the second pass parses each line once more only."""

    header: HeaderLine | None = None
    counts: Counter[str] = field(default_factory=Counter)
    lines: int = 0
    classes: bytearray = field(default_factory=bytearray)

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
    record_ids: set[str] = field(default_factory=set)
    # (line, record id, kind) of rows naming a record not seen (yet) in the file
    refs: list[tuple[int, str, str]] = field(default_factory=list)
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
    _check_refs(state, reader)
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
    elif isinstance(line, ProvenanceLine | EntityTermLine | AuditLine):
        _ref(state, number, line.record_id, kind)
    elif isinstance(line, EmbeddingLine):
        if len(line.vector) != line.dimension:
            msg = f"vector has {len(line.vector)} values, dimension says {line.dimension}"
            state.bad(number, msg, "dimension_mismatch")
        _ref(state, number, line.record_id, kind)


def _check_record(state: _Pass, number: int, line: RecordLine) -> None:
    if line.id in state.record_ids:
        state.bad(number, f"record {line.id!r} appears twice in the file", "duplicate_id")
        return
    state.record_ids.add(line.id)
    trust = state.trust
    if line.sensitivity.rank > trust.ceiling_rank:
        msg = f"sensitivity {line.sensitivity.value!r} is above your ceiling"
        state.bad(number, f"{msg} {trust.ceiling.value!r}", "forbidden")
    elif not trust.scope_allowed(line.scope) or (line.scope is None and trust.scopes):
        state.bad(number, f"scope {line.scope!r} is outside your scopes", "forbidden")


def _ref(state: _Pass, number: int, record_id: str, kind: str) -> None:
    if record_id not in state.record_ids:
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


def _check_refs(state: _Pass, reader: Reader) -> None:
    pending = [(n, rid, kind) for n, rid, kind in state.refs if rid not in state.record_ids]
    if not pending:
        return
    unrestricted = state.trust.ceiling_rank == HIGHEST_RANK and state.trust.scopes is None
    wanted = sorted({rid for _, rid, _ in pending})
    found: set[str] = set()
    with reader() as session:
        for i in range(0, len(wanted), LOOKUP_CHUNK):
            chunk = wanted[i : i + LOOKUP_CHUNK]
            found |= repo.existing_records(session, chunk, state.trust.reading())
    for number, rid, kind in pending:
        if rid in found or (kind == "audit" and unrestricted):
            continue
        msg = f"{kind} names record {rid!r}, which is neither in the file nor in this store"
        state.bad(number, msg, "dangling_reference")
