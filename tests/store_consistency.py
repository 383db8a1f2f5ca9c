"""The store's consistency rules, checked straight on the database: what a crash or an
outage must never leave behind (a record without its tags, provenance, audit entry or
search index row; an edge without its inverse; a capture without its entities or
derived fact; half a revision; a compressed episode linked to some of its sources)."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from sqlalchemy import select, text

from app.db import Database
from app.models import AuditRow, ProvenanceRow, RecordRow, RelationRow, TagRow
from app.records import payload_json
from app.relations.repository import INVERSE

COMPRESSED_TAG = "consolidation:compressed"

Edge = tuple[str, str, str]  # (source_id, predicate, target_id)


@dataclass
class Snapshot:
    """Everything the consistency rules look at, read in one transaction."""

    records: dict[str, RecordRow]
    tags: dict[str, set[str]]
    provenance: Counter[str]
    edges: set[Edge]
    audit: dict[str, list[AuditRow]]
    fts_rows: int | None  # SQLite's FTS5 index (kept by triggers); None on PostgreSQL

    @classmethod
    def load(cls, db: Database) -> Snapshot:
        with db.read_transaction() as s:
            tags: dict[str, set[str]] = defaultdict(set)
            for tag in s.scalars(select(TagRow)):
                tags[tag.record_id].add(tag.tag)
            audit: dict[str, list[AuditRow]] = defaultdict(list)
            for entry in s.scalars(select(AuditRow).order_by(AuditRow.id)):
                audit[entry.record_id].append(entry)
            fts = None
            if db.dialect == "sqlite":
                fts = int(s.scalar(text("SELECT count(*) FROM records_fts")) or 0)
            return cls(
                records={r.id: r for r in s.scalars(select(RecordRow))},
                tags=tags,
                provenance=Counter(s.scalars(select(ProvenanceRow.record_id))),
                edges={
                    (r.source_id, r.predicate, r.target_id) for r in s.scalars(select(RelationRow))
                },
                audit=audit,
                fts_rows=fts,
            )

    def __post_init__(self) -> None:
        self._out: dict[tuple[str, str], list[str]] = defaultdict(list)
        self._in: dict[tuple[str, str], list[str]] = defaultdict(list)
        for source, predicate, target in self.edges:
            self._out[(source, predicate)].append(target)
            self._in[(target, predicate)].append(source)

    def targets(self, source: str, predicate: str) -> list[str]:
        return self._out.get((source, predicate), [])

    def sources(self, predicate: str, target: str) -> list[str]:
        return self._in.get((target, predicate), [])

    def actions(self, record_id: str) -> list[str]:
        return [a.action for a in self.audit.get(record_id, [])]

    def tagged(self, tag: str, record_type: str) -> list[RecordRow]:
        return [r for r in self.records.values() if r.type == record_type and tag in r.tags]


def store_problems(snap: Snapshot) -> list[str]:
    """Every way the store can be half-written, as readable problems (empty: whole)."""
    return [
        *_rows_problems(snap),
        *_edge_problems(snap),
        *_capture_problems(snap),
        *_revision_problems(snap),
        *_compression_problems(snap),
    ]


def _rows_problems(snap: Snapshot) -> list[str]:
    """Each record has its tags, provenance rows, search index entry and one `create`
    audit entry; each `create` entry has its record (nothing is deleted here)."""
    out = []
    for rid, row in snap.records.items():
        if snap.tags.get(rid, set()) != set(row.tags):
            out.append(f"{rid}: tag rows {snap.tags.get(rid)} != tags {row.tags}")
        if snap.provenance[rid] != len(payload_json.provenance(row.provenance).get("sources", [])):
            out.append(f"{rid}: {snap.provenance[rid]} provenance rows for {row.provenance}")
        if snap.actions(rid).count("create") != 1:
            out.append(f"{rid}: audit {snap.actions(rid)}")
    for rid, entries in snap.audit.items():
        if rid not in snap.records and any(e.action == "create" for e in entries):
            out.append(f"{rid}: a create audit entry without its record")
    if snap.fts_rows is not None and snap.fts_rows != len(snap.records):
        out.append(f"{snap.fts_rows} search index rows for {len(snap.records)} records")
    return out


def _edge_problems(snap: Snapshot) -> list[str]:
    """Every paired edge joins two existing records and has its inverse."""
    out = []
    for source, predicate, target in snap.edges:
        if predicate not in INVERSE:
            continue
        if source not in snap.records or target not in snap.records:
            out.append(f"edge {source} {predicate} {target} to a missing record")
        if (target, INVERSE[predicate], source) not in snap.edges:
            out.append(f"edge {source} {predicate} {target} without its inverse")
    return out


def _capture_problems(snap: Snapshot) -> list[str]:
    """A capture's primary record comes with its entities, their edges and its derived
    fact; an entity or fact created by a capture comes with the capture."""
    out = []
    for rid, row in snap.records.items():
        interp = row.interpretation
        mentions = interp.get("entities")
        for mention in mentions if isinstance(mentions, list) else []:
            entity = mention.get("record_id")
            if entity not in snap.records or (rid, "mentions_entity", entity) not in snap.edges:
                out.append(f"capture {rid}: entity {mention} missing or not linked")
        fact_of = interp.get("derived_from")
        if fact_of is not None and (rid, "derived_from", fact_of) not in snap.edges:
            out.append(f"derived fact {rid} without its capture {fact_of}")
        if interp.get("created_from") == "entity mention" and not snap.targets(rid, "mentioned_in"):
            out.append(f"entity {rid} created by a capture that is not there")
        if "fact" in interp and row.type != "semantic":
            derived = [snap.records.get(d) for d in snap.sources("derived_from", rid)]
            if not any(d is not None and d.type == "semantic" for d in derived):
                out.append(f"capture {rid}: its derived fact is missing")
    return out


def _revision_problems(snap: Snapshot) -> list[str]:
    """A superseded record has exactly one successor that supersedes it, both audited, or
    was overturned by a fact that contradicts it; a successor's target is superseded."""
    out = []
    for rid, row in snap.records.items():
        successors = snap.targets(rid, "superseded_by")
        if row.status == "superseded" and not successors and _overturned(snap, rid, row):
            continue
        if row.status == "superseded":
            if len(successors) != 1 or "supersede" not in snap.actions(rid):
                out.append(f"superseded {rid}: successors {successors}, {snap.actions(rid)}")
                continue
            new = snap.records.get(successors[0])
            if new is None or _supersedes(new) != rid:
                out.append(f"superseded {rid}: its successor {successors[0]} is not whole")
            elif "supersede" not in snap.actions(new.id):
                out.append(f"successor {new.id} without its supersede audit entry")
        elif successors:
            out.append(f"{rid} is {row.status} but has a successor {successors}")
        old = _supersedes(row)
        if old is not None and getattr(snap.records.get(old), "status", None) != "superseded":
            out.append(f"successor {rid}: {old} is not superseded")
    return out


def _overturned(snap: Snapshot, rid: str, row: RecordRow) -> bool:
    """Superseded by a contradicting fact (docs/memory-that-stays-true.md): its revision
    block names the winner, a stored record it has a `contradicted_by` edge to, and its
    audit trail a supersede."""
    winner = payload_json.semantic(row.payload).get("revision", {}).get("superseded_by")
    return (
        winner in snap.records
        and winner in snap.targets(rid, "contradicted_by")
        and "supersede" in snap.actions(rid)
    )


def _supersedes(row: RecordRow) -> str | None:
    return payload_json.semantic(row.payload).get("revision", {}).get("supersedes")


def _compression_problems(snap: Snapshot) -> list[str]:
    """A compressed record is linked to every episode of its timeline; an episode is a
    source of at most one compressed record."""
    out = []
    sources: Counter[str] = Counter()
    for row in snap.tagged(COMPRESSED_TAG, "episodic"):
        timeline = payload_json.episodic(row.payload).get("timeline", [])
        members = [str(e["data"]["record_id"]) for e in timeline]
        sources.update(members)
        for member in members:
            if (row.id, "derived_from", member) not in snap.edges:
                out.append(f"compressed {row.id}: no edge to its episode {member}")
    out += [f"episode {m} compressed {n} times" for m, n in sources.items() if n > 1]
    return out
