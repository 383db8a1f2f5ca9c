"""Record ids that one answer names besides its own records: the revision block of a
semantic payload (`supersedes`, `superseded_by`) and the details of audit entries
(`superseded_by`, `merged_into`, `contesting_ref`, the episodes a fact came from, ...).

DESIGN §5: no answer carries the id of a record the caller may not read. Edges are
filtered by their other end in SQL; these ids live inside JSON, so they are checked here,
with one look-up for all the ids of an answer, and only when an answer names any. A hidden
id is left out (null in place of a single id, dropped from a list); an audit entry that
named one also loses its rationale, which was written about the hidden record too.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator, Mapping
from typing import Any

from sqlalchemy.orm import Session

from app.json_walk import strings
from app.models import AuditRow, RecordRow
from app.records import reference_repository
from app.trust import TrustContext

REVISION_REFS = ("supersedes", "superseded_by")
_RECORD_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def is_record_id(value: object) -> bool:
    return isinstance(value, str) and _RECORD_ID.fullmatch(value) is not None


def revision_refs(payload: Mapping[str, Any] | None) -> set[str]:
    revision = (payload or {}).get("revision")
    if not isinstance(revision, dict):
        return set()
    named = (revision.get(k) for k in REVISION_REFS)
    return {v for v in named if isinstance(v, str) and is_record_id(v)}


def detail_refs(details: Any) -> Iterator[str]:
    """Every record id inside an audit entry's details, at any depth."""
    return (value for value in strings(details) if is_record_id(value))


def unseen(session: Session, ids: Collection[str], trust: TrustContext) -> frozenset[str]:
    """The ids among `ids` the caller may not read (missing ones included)."""
    if not ids or trust.reads_everything():
        return frozenset()
    return frozenset(set(ids) - reference_repository.readable_ids(session, ids, trust.reading()))


def named_refs(rows: Iterable[RecordRow], entries: Iterable[AuditRow] = ()) -> set[str]:
    """Other records' ids named by the revision blocks of `rows` and the details of
    `entries`."""
    named = {ref for row in rows for ref in revision_refs(row.payload)}
    named |= {ref for e in entries for ref in detail_refs(e.details) if ref != e.record_id}
    return named


def unseen_in_rows(
    session: Session, rows: Iterable[RecordRow], trust: TrustContext
) -> frozenset[str]:
    """Hidden ids named by the revision blocks of `rows` (rows the caller reads)."""
    return unseen(session, named_refs(rows), trust)


def without_refs(payload: dict[str, object], hidden: Collection[str]) -> dict[str, object]:
    """`payload` with the hidden ids of its revision block set to null."""
    revision = payload.get("revision")
    if not hidden or not isinstance(revision, dict):
        return payload
    if not any(revision.get(k) in hidden for k in REVISION_REFS):
        return payload
    cleared = {k: (None if k in REVISION_REFS and v in hidden else v) for k, v in revision.items()}
    return {**payload, "revision": cleared}


def scrub(details: Any, hidden: Collection[str]) -> Any:
    """`details` with hidden ids nulled (as values) or dropped (from lists)."""
    if isinstance(details, str):
        return None if details in hidden else details
    if isinstance(details, dict):
        return {k: scrub(v, hidden) for k, v in details.items()}
    if isinstance(details, list):
        return [scrub(v, hidden) for v in details if not (isinstance(v, str) and v in hidden)]
    return details


def names_any(details: Any, hidden: Collection[str]) -> bool:
    return bool(hidden) and any(ref in hidden for ref in detail_refs(details))
