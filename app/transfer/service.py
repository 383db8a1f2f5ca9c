"""Export (a stream of NDJSON lines, one read transaction per page of records) and
import (check every line first, then write in batched transactions, idempotently).

Import semantics: a record whose id is already in the store is skipped, never updated;
the rows that belong to a record (provenance, entity terms, vector) are written only with
a record the import creates; edges and audit entries are matched by what they say (edge:
source, predicate, target, created_at; entry: record, action, actor, timestamp), so an
edge or entry already there is skipped and a missing one is added. Integer ids of edges,
provenance rows and audit entries are kept where the store has them free. Nothing is
written unless every line passed (app/transfer/validate.py)."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import IO, Any, TypeVar

from sqlalchemy.orm import Session

from app import clock
from app.db import Database, Tier
from app.embedding import service as embedding
from app.embedding.providers import Embedder
from app.models import RecordRow
from app.records.filters import RecordFilter, RecordQuery
from app.relations import service as relations
from app.transfer import convert
from app.transfer import repository as repo
from app.transfer.lines import dump, numbered_lines, parse_line
from app.transfer.schemas import (
    AuditLine,
    EmbeddingInfo,
    EmbeddingLine,
    EntityTermLine,
    ExportFilters,
    HeaderLine,
    ImportReport,
    KindCounts,
    ProvenanceLine,
    RecordLine,
    RelationLine,
)
from app.transfer.validate import RECORD, ROW, Checked, check_file
from app.trust import TrustContext

L = TypeVar("L")
log = logging.getLogger("membrane.transfer")
PAGE = 500  # records per read transaction of an export
RECORD_BATCH = 500  # records per write transaction of an import
ROW_BATCH = 2000  # other lines per write transaction of an import
FIELDS = {
    "record": "records",
    "relation": "relations",
    "provenance": "provenance",
    "entity_term": "entity_terms",
    "audit": "audit",
    "embedding": "embeddings",
}

# -- export ------------------------------------------------------------------------------


def whole_store(filters: ExportFilters, trust: TrustContext) -> bool:
    """No filter and a caller who reads everything: the trails of deleted records too."""
    narrowed = filters.scopes or filters.types or filters.created_after or filters.created_before
    return not narrowed and trust.reads_everything()


def export_lines(
    db: Database, filters: ExportFilters, trust: TrustContext, position: int | None = None
) -> Iterator[bytes]:
    """The export file, a page of records (with their rows) per chunk, each page read in
    its own read transaction: memory stays one page whatever the store's size. With read
    replicas, each page on one that has replayed past `position` (or the primary)."""
    counts: Counter[str] = Counter()
    with db.read_transaction(position) as session:
        header = _header(session, filters)
    yield dump(header.model_dump(mode="json"))  # no transaction stays open across a yield
    query = RecordQuery(_record_filter(filters), trust.reading(), clock.now())
    after: tuple[float, str] | None = None
    while True:
        with db.read_transaction(position) as session:
            rows = repo.record_page(session, query, after, PAGE)
            lines = _page_lines(session, db, rows, trust, filters.include_embeddings)
        yield _chunk(lines, counts)
        if len(rows) < PAGE:
            break
        after = (rows[-1].created_at, rows[-1].id)
    if whole_store(filters, trust):
        yield from _orphan_audit(db, counts)
    yield dump({"kind": "end", "counts": dict(counts)})


def _header(session: Session, filters: ExportFilters) -> HeaderLine:
    pinned = embedding.pinned(session)
    embeddings = EmbeddingInfo(model=pinned[0], dimension=pinned[1]) if pinned else None
    return HeaderLine(
        exported_at=datetime.now(UTC),
        schema_revision=repo.schema_revision(session),
        filters=filters,
        embeddings=embeddings,
    )


def _record_filter(filters: ExportFilters) -> RecordFilter:
    return RecordFilter(
        types=[t.value for t in filters.types],
        scopes=list(filters.scopes),
        created_after=clock.to_epoch(filters.created_after) if filters.created_after else None,
        created_before=clock.to_epoch(filters.created_before) if filters.created_before else None,
    )


def _page_lines(
    session: Session, db: Database, rows: list[RecordRow], trust: TrustContext, vectors: bool
) -> list[dict[str, object]]:
    if not rows:
        return []
    ids = [r.id for r in rows]
    lines = [convert.record_line(r) for r in rows]
    lines += [convert.provenance_line(p) for p in repo.provenance_of(session, ids)]
    lines += [convert.term_line(t) for t in repo.terms_of(session, ids)]
    # Edges whose other end is a record the caller may not read stay out (DESIGN §5).
    edges = relations.outgoing(session, ids, trust)
    lines += [convert.relation_line(e) for e in edges]
    lines += [convert.audit_line(a) for a in repo.audit_of(session, ids)]
    if vectors:
        found = repo.vectors_of(session, db.tier, ids)
        lines += [convert.embedding_line(rid, model, vec) for rid, model, vec in found]
    return lines


def _chunk(lines: list[dict[str, object]], counts: Counter[str]) -> bytes:
    for line in lines:
        counts[str(line["kind"])] += 1
    return b"".join(dump(line) for line in lines)


def _orphan_audit(db: Database, counts: Counter[str]) -> Iterator[bytes]:
    after = 0
    while True:
        with db.read_transaction() as session:
            entries = repo.orphan_audit_page(session, after, PAGE * 4)
        if not entries:
            return
        yield _chunk([convert.audit_line(a) for a in entries], counts)
        after = entries[-1].id


# -- import ------------------------------------------------------------------------------


def import_file(
    db: Database, source: IO[bytes], trust: TrustContext, embedder: Embedder | None
) -> ImportReport:
    """Check every line (ImportRejected lists the bad ones; nothing is written), then
    write records, then the rows hanging off them, all in one transaction: an import
    lands whole or not at all."""
    checked = check_file(db.read_transaction, source, trust)
    with db.transaction() as session:
        writer = _Writer(session, db.tier, embedder, checked.unreachable_targets)
        writer.write_records(_lines_of(source, checked, RECORD))
        writer.write_rows(_lines_of(source, checked, ROW))
        if writer.created["record"]:
            repo.refresh_statistics(session)  # PostgreSQL
    if writer.created["record"]:
        db.refresh_planner_stats()  # SQLite
    report = writer.report(checked.lines)
    log.info(
        "import by %s: created %s, skipped %s",
        trust.actor_id,
        report.created.model_dump(),
        report.skipped.model_dump(),
    )
    return report


class _Writer:
    """Writes the checked lines in batches (a few multi-row INSERTs each) into one
    session: the caller's transaction commits them together."""

    def __init__(
        self, session: Session, tier: Tier, embedder: Embedder | None, unreachable: set[str]
    ) -> None:
        self.session = session
        self.unreachable = unreachable  # edge targets the import leaves out
        self.tier = tier
        self.embedder = embedder
        self.created: Counter[str] = Counter()
        self.skipped: Counter[str] = Counter()
        self.new_records: set[str] = set()
        self.with_text: set[str] = set()  # created records the embedding worker may pick up
        self.embedded: set[str] = set()
        self.terms: set[tuple[str, str]] = set()

    def report(self, lines: int) -> ImportReport:
        return ImportReport(
            lines=lines,
            created=KindCounts(**{FIELDS[k]: v for k, v in self.created.items()}),
            skipped=KindCounts(**{FIELDS[k]: v for k, v in self.skipped.items()}),
            queued_for_embedding=len(self.with_text - self.embedded),
        )

    def write_records(self, lines: Iterator[RecordLine]) -> None:
        batch: list[RecordLine] = []
        for line in lines:
            batch.append(line)
            if len(batch) >= RECORD_BATCH:
                self._records(batch)
                batch = []
        self._records(batch)

    def _records(self, batch: list[RecordLine]) -> None:
        if not batch:
            return
        session = self.session
        present = repo.existing_records(session, [r.id for r in batch])
        rows = [convert.record_row(r) for r in batch if r.id not in present]
        repo.insert_records(session, rows)
        session.flush()
        self.skipped["record"] += len(batch) - len(rows)
        self.created["record"] += len(rows)
        self.new_records.update(r["id"] for r in rows)
        self.with_text.update(r["id"] for r in rows if r["embedding_status"] == "pending")

    def write_rows(self, lines: Iterator[Any]) -> None:
        batch: list[Any] = []
        for line in lines:
            batch.append(line)
            if len(batch) >= ROW_BATCH:
                self._rows(batch)
                batch = []
        self._rows(batch)

    def _rows(self, batch: list[Any]) -> None:
        if not batch:
            return
        session = self.session
        self._provenance(session, [x for x in batch if isinstance(x, ProvenanceLine)])
        self._terms(session, [x for x in batch if isinstance(x, EntityTermLine)])
        self._relations(session, [x for x in batch if isinstance(x, RelationLine)])
        self._audit(session, [x for x in batch if isinstance(x, AuditLine)])
        self._vectors(session, [x for x in batch if isinstance(x, EmbeddingLine)])
        session.flush()

    def _owned(self, kind: str, lines: list[Any]) -> list[Any]:
        """Rows that belong to a record come only with a record this import created."""
        kept = [x for x in lines if x.record_id in self.new_records]
        self.skipped[kind] += len(lines) - len(kept)
        return kept

    def _provenance(self, session: Session, lines: list[ProvenanceLine]) -> None:
        rows = [convert.provenance_row(x) for x in self._owned("provenance", lines)]
        self._insert_keeping_ids(session, "provenance_sources", rows)
        self.created["provenance"] += len(rows)

    def _terms(self, session: Session, lines: list[EntityTermLine]) -> None:
        owned = self._owned("entity_term", lines)
        fresh = [x for x in owned if (x.record_id, x.term) not in self.terms]
        self.terms.update((x.record_id, x.term) for x in fresh)
        repo.insert_terms(session, [convert.term_row(x) for x in fresh])
        self.created["entity_term"] += len(fresh)
        self.skipped["entity_term"] += len(owned) - len(fresh)

    def _relations(self, session: Session, all_lines: list[RelationLine]) -> None:
        lines = [x for x in all_lines if x.target_id not in self.unreachable]
        self.skipped["relation"] += len(all_lines) - len(lines)
        known = repo.relation_keys(session, [x.source_id for x in lines])
        rows = [
            convert.relation_row(x)
            for x in _unseen(
                lines, known, lambda x: (x.source_id, x.predicate, x.target_id, x.created_at)
            )
        ]
        self._insert_keeping_ids(session, "relations", rows)
        self.created["relation"] += len(rows)
        self.skipped["relation"] += len(lines) - len(rows)

    def _audit(self, session: Session, lines: list[AuditLine]) -> None:
        known = repo.audit_keys(session, [x.record_id for x in lines])
        rows = [
            convert.audit_row(x)
            for x in _unseen(lines, known, lambda x: (x.record_id, x.action, x.actor, x.timestamp))
        ]
        self._insert_keeping_ids(session, "audit_log", rows)
        self.created["audit"] += len(rows)
        self.skipped["audit"] += len(lines) - len(rows)

    def _vectors(self, session: Session, lines: list[EmbeddingLine]) -> None:
        """Vectors of the target's own model are stored; the others are left out and
        their records stay queued for the embedding worker."""
        owned = self._owned("embedding", lines)
        model = self.embedder
        usable = [
            x
            for x in owned
            if model is not None and x.model == model.name and x.dimension == model.dimension
        ]
        self.skipped["embedding"] += len(owned) - len(usable)
        if model is None or not usable:
            return
        items = [(x.record_id, x.vector) for x in usable]
        embedding.store_ready_vectors(session, self.tier, model.name, items)
        self.embedded.update(x.record_id for x in usable)
        self.created["embedding"] += len(usable)

    @staticmethod
    def _insert_keeping_ids(session: Session, table: str, rows: Sequence[repo.IdRowInsert]) -> None:
        taken = repo.taken_ids(session, table, [r["id"] for r in rows if r["id"] is not None])
        for row in rows:
            if row["id"] in taken:
                row["id"] = None
        repo.insert_rows(session, table, rows)


def _lines_of(source: IO[bytes], checked: Checked, code: int) -> Iterator[Any]:
    """The checked file's lines of one class again (RECORD or ROW), parsed."""
    source.seek(0)
    for number, raw in numbered_lines(source):
        if checked.code(number) == code:
            yield parse_line(number, raw)


def _unseen(lines: Sequence[L], known: set[Any], key: Callable[[L], Any]) -> list[L]:
    """The lines whose key is neither stored (`known`) nor earlier in `lines`; `known`
    learns their keys."""
    fresh = []
    for line in lines:
        if key(line) not in known:
            known.add(key(line))
            fresh.append(line)
    return fresh
