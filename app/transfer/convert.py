"""Stored rows to export lines, and import lines back to rows: column for column, so a
restored record is the record that was exported."""

from __future__ import annotations

from app.enums import Sensitivity
from app.models import AuditRow, EntityTermRow, ProvenanceRow, RecordRow, RelationRow
from app.records.search_text import searchable_text
from app.transfer.repository import (
    AuditInsert,
    ProvenanceInsert,
    RecordInsert,
    RelationInsert,
    TermInsert,
)
from app.transfer.schemas import (
    AuditLine,
    EntityTermLine,
    ProvenanceLine,
    RecordLine,
    RelationLine,
)

# An export line is JSON out: written as it is built (lines.dump), never read back here.
# An import row is what the repository inserts (its RecordInsert, RelationInsert, ...).


def record_line(row: RecordRow) -> dict[str, object]:
    return {
        "kind": "record",
        "id": row.id,
        "type": row.type,
        "status": row.status,
        "sensitivity": Sensitivity.from_rank(row.sensitivity).value,
        "confidence": row.confidence,
        "scope": row.scope,
        "tags": list(row.tags),
        "created_at": row.created_at,
        "updated_at": row.updated_at,
        "created_by": row.created_by,
        "deletion_policy": row.deletion_policy,
        "salience": {
            "base": row.salience_base,
            "t0": row.salience_t0,
            "swept": row.salience_swept,
            "curve": row.decay_curve,
            "half_life_s": row.half_life_s,
            "min_salience": row.min_salience,
            "max_age_s": row.max_age_s,
            "reinforcement_gain": row.reinforcement_gain,
            "pinned": row.pinned,
        },
        "provenance": row.provenance,
        "interpretation": row.interpretation,
        "payload": row.payload,
        "search_text": row.search_text,
    }


def relation_line(row: RelationRow) -> dict[str, object]:
    return {
        "kind": "relation",
        "id": row.id,
        "source_id": row.source_id,
        "predicate": row.predicate,
        "target_id": row.target_id,
        "weight": row.weight,
        "created_at": row.created_at,
    }


def provenance_line(row: ProvenanceRow) -> dict[str, object]:
    return {
        "kind": "provenance",
        "id": row.id,
        "record_id": row.record_id,
        "source_kind": row.kind,
        "ref": row.ref,
        "hash": row.hash,
        "created_by": row.created_by,
        "timestamp": row.timestamp,
    }


def term_line(row: EntityTermRow) -> dict[str, object]:
    return {"kind": "entity_term", "record_id": row.record_id, "term": row.term, "scope": row.scope}


def audit_line(row: AuditRow) -> dict[str, object]:
    return {
        "kind": "audit",
        "id": row.id,
        "record_id": row.record_id,
        "action": row.action,
        "actor": row.actor,
        "timestamp": row.timestamp,
        "rationale": row.rationale,
        "details": row.details or {},
    }


def embedding_line(record_id: str, model: str, vector: list[float]) -> dict[str, object]:
    return {
        "kind": "embedding",
        "record_id": record_id,
        "model": model,
        "dimension": len(vector),
        "vector": vector,
    }


def record_row(line: RecordLine) -> RecordInsert:
    """A records row; `embedding_status` says whether the embedding worker should pick
    it up (a vector imported with it turns it to done)."""
    sal = line.salience
    text = line.search_text
    if text is None:
        text = searchable_text(line.type.value, line.payload)
    return {
        "id": line.id,
        "type": line.type.value,
        "status": line.status.value,
        "sensitivity": line.sensitivity.rank,
        "confidence": line.confidence,
        "scope": line.scope,
        "tags": list(line.tags),
        "created_at": line.created_at,
        "updated_at": line.updated_at,
        "salience_base": sal.base,
        "salience_t0": sal.t0,
        "salience_swept": sal.swept,
        "decay_curve": sal.curve.value,
        "half_life_s": sal.half_life_s,
        "min_salience": sal.min_salience,
        "max_age_s": sal.max_age_s,
        "reinforcement_gain": sal.reinforcement_gain,
        "pinned": sal.pinned,
        "deletion_policy": line.deletion_policy.value,
        "created_by": line.created_by,
        "provenance": line.provenance,
        "interpretation": line.interpretation,
        "payload": line.payload,
        "search_text": text,
        "embedding_status": "pending" if text.strip() else "skipped",
    }


def relation_row(line: RelationLine) -> RelationInsert:
    return {
        "id": line.id,
        "source_id": line.source_id,
        "predicate": line.predicate,
        "target_id": line.target_id,
        "weight": line.weight,
        "created_at": line.created_at,
    }


def provenance_row(line: ProvenanceLine) -> ProvenanceInsert:
    return {
        "id": line.id,
        "record_id": line.record_id,
        "kind": line.source_kind,
        "ref": line.ref,
        "hash": line.hash,
        "created_by": line.created_by,
        "timestamp": line.timestamp,
    }


def term_row(line: EntityTermLine) -> TermInsert:
    return {"record_id": line.record_id, "term": line.term, "scope": line.scope}


def audit_row(line: AuditLine) -> AuditInsert:
    return {
        "id": line.id,
        "record_id": line.record_id,
        "action": line.action,
        "actor": line.actor,
        "timestamp": line.timestamp,
        "rationale": line.rationale,
        "details": line.details,
    }
