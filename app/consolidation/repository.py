"""SQL of consolidation: which episodes still wait for a stage, duplicate facts, and the
records a competence or plan graph pattern already has."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from sqlalchemy import (
    JSON,
    Exists,
    Select,
    String,
    bindparam,
    case,
    cast,
    func,
    literal,
    literal_column,
    select,
    text,
    type_coerce,
)
from sqlalchemy.dialects.postgresql import JSONPATH
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from app.db import column_rows, dialect_of
from app.enums import LIVE_STATUSES
from app.models import AuditRow, RecordRow, RelationRow, TagRow

COMPRESSED_TAG = "consolidation:compressed"  # the tag of episodic compression's records


@dataclass(frozen=True)
class EpisodeKey:
    """What compression groups an episode by, without its payload."""

    id: str
    scope: str | None
    environment: Any
    created_at: float


def uncompressed_episodes(
    session: Session, *, before: float, compressed_tag: str, limit: int
) -> list[EpisodeKey]:
    """Active episodic records created before `before` that are neither compressed
    records themselves nor already sources of one (a `derives` edge to a record tagged
    `compressed_tag`), oldest first within a scope."""
    compressed_ids = select(TagRow.record_id).where(TagRow.tag == compressed_tag)
    already = (
        select(RelationRow.id)
        .join(TagRow, TagRow.record_id == RelationRow.target_id)
        .where(
            RelationRow.source_id == RecordRow.id,
            RelationRow.predicate == "derives",
            TagRow.tag == compressed_tag,
        )
        .exists()
    )
    stmt = (
        select(
            RecordRow.id, RecordRow.scope, RecordRow.payload["environment"], RecordRow.created_at
        )
        .where(
            RecordRow.type == "episodic",
            RecordRow.status == "active",
            RecordRow.created_at < before,
            RecordRow.id.not_in(compressed_ids),
            ~already,
        )
        .order_by(RecordRow.scope, RecordRow.created_at, RecordRow.id)
        .limit(limit)
    )
    return [EpisodeKey(*row) for row in session.execute(stmt)]


def stage_action(stage: str) -> str:
    """The audit action that marks an episode as processed by `stage`."""
    return f"consolidate:{stage}"


def _processed(stage: str) -> Exists:
    """An audit entry `consolidate:<stage>` on the record (for a few given records)."""
    return (
        select(AuditRow.id)
        .where(AuditRow.record_id == RecordRow.id, AuditRow.action == stage_action(stage))
        .exists()
    )


def _not_processed(dialect: str, stage: str) -> ColumnElement[bool]:
    """No `consolidate:<stage>` entry, for a scan over every episode. SQLite answers
    NOT IN with one pass over the marked ids (kept in an ephemeral index, probed per
    record): at 50,000 episodes 130 ms, where a correlated NOT EXISTS takes 270.
    PostgreSQL turns NOT EXISTS into an anti-join on ix_audit_record; its NOT IN would be
    a hashed subplan that falls back to a per-row scan once the marked ids outgrow
    work_mem. (An index on (action, record_id) saves another 30 to 50 ms per scan, too
    little to weigh on every audit write.)"""
    if dialect == "postgresql":
        return ~_processed(stage)
    marked = select(AuditRow.record_id).where(AuditRow.action == stage_action(stage))
    return RecordRow.id.not_in(marked)


def _tool_count(dialect: str) -> ColumnElement[Any]:
    """How many nodes `payload.tool_graph` has (0 when it is missing or not a list)."""
    if dialect == "postgresql":
        graph = RecordRow.payload["tool_graph"]
        return case((func.jsonb_typeof(graph) == "array", func.jsonb_array_length(graph)), else_=0)
    return func.coalesce(func.json_array_length(RecordRow.payload, "$.tool_graph"), 0)


def _tool_names(dialect: str) -> ColumnElement[Any]:
    """The `tool` of each tool graph node, in list order, as a JSON array."""
    if dialect == "postgresql":
        path = cast(literal("$.tool_graph[*].tool"), JSONPATH)
        return type_coerce(func.jsonb_path_query_array(RecordRow.payload, path), JSON)
    nodes = func.json_each(RecordRow.payload, "$.tool_graph").table_valued("value")
    names = select(func.json_group_array(func.json_extract(nodes.c.value, "$.tool")))
    return type_coerce(names.scalar_subquery(), JSON)


def _pending(
    session: Session, stage: str, outcomes: Sequence[str], min_tools: int
) -> list[ColumnElement[bool]]:
    """Active episodes with one of `outcomes` and at least `min_tools` tool graph nodes
    that `stage` has not processed. The marker test comes before the JSON ones: SQLite
    tests in this order, so it parses only the waiting episodes' payloads."""
    dialect = dialect_of(session)
    clauses = [
        RecordRow.type == "episodic",
        RecordRow.status == "active",
        _not_processed(dialect, stage),
        # a compressed record restates its sources, which the stage reads themselves
        RecordRow.id.not_in(select(TagRow.record_id).where(TagRow.tag == COMPRESSED_TAG)),
        RecordRow.payload["outcome"].as_string().in_(list(outcomes)),
    ]
    if min_tools > 0:
        clauses.append(_tool_count(dialect) >= min_tools)
    return clauses


def pending_episodes(
    session: Session, *, stage: str, outcomes: Sequence[str], limit: int, min_tools: int = 0
) -> list[str]:
    """Ids of the episodes `stage` still waits for (see `_pending`), oldest first."""
    stmt = (
        select(RecordRow.id)
        .where(*_pending(session, stage, outcomes, min_tools))
        .order_by(RecordRow.created_at, RecordRow.id)
        .limit(limit)
    )
    return list(session.scalars(stmt))


@dataclass(frozen=True)
class ToolSequence:
    """An episode reduced to what grouping by tool signature needs."""

    id: str
    scope: str | None
    sensitivity: int
    outcome: str
    created_at: float
    tools: list[Any]  # the nodes' `tool` values, as stored


def tool_sequences(
    session: Session, *, stage: str, outcomes: Sequence[str], limit: int
) -> list[ToolSequence]:
    """Pending episodes with a tool graph (see `_pending`), newest first, with the tool
    names extracted in SQL: the arguments and results are never loaded."""
    stmt = (
        select(
            RecordRow.id,
            RecordRow.scope,
            RecordRow.sensitivity,
            RecordRow.payload["outcome"].as_string(),
            RecordRow.created_at,
            _tool_names(dialect_of(session)),
        )
        .where(*_pending(session, stage, outcomes, 1))
        .order_by(RecordRow.created_at.desc(), RecordRow.id.desc())
        .limit(limit)
    )
    return [ToolSequence(*row) for row in session.execute(stmt)]


def unprocessed_among(session: Session, ids: Sequence[str], stage: str) -> list[RecordRow]:
    """Those of `ids` that are still active episodes not processed by `stage`, oldest
    first (read again inside the transaction that folds them)."""
    stmt = (
        select(RecordRow)
        .where(
            RecordRow.id.in_(list(ids)),
            RecordRow.type == "episodic",
            RecordRow.status == "active",
            ~_processed(stage),
        )
        .order_by(RecordRow.created_at, RecordRow.id)
    )
    return list(session.scalars(stmt))


def pattern_record(
    session: Session, *, record_type: str, tag: str, scope: str | None, sensitivity: int
) -> str | None:
    """The oldest live record of `record_type` carrying `tag` in `scope` at exactly
    `sensitivity`. A pattern's tag names a handful of records: they are all read and the
    oldest picked here. With ORDER BY … LIMIT in the statement, SQLite's planner walked
    the scope's records in creation order (its index delivers that order) probing each
    for the tag: 6 ms a look-up at 50,000 episodes, 0.15 through the tag index."""
    stmt = (
        select(RecordRow.created_at, RecordRow.id)
        .join(TagRow, TagRow.record_id == RecordRow.id)
        .where(
            TagRow.tag == tag,
            RecordRow.type == record_type,
            RecordRow.status.in_(LIVE_STATUSES),
            RecordRow.scope.is_(None) if scope is None else RecordRow.scope == scope,
            RecordRow.sensitivity == sensitivity,
        )
    )
    found = min(session.execute(stmt).tuples(), default=None)
    return None if found is None else found[1]


def pattern_keys(
    session: Session, *, record_type: str, tags: Sequence[str], chunk: int = 500
) -> set[tuple[str, str | None, int]]:
    """(tag, scope, sensitivity) of the live records of `record_type` carrying one of
    `tags`."""
    wanted = sorted(set(tags))
    found: set[tuple[str, str | None, int]] = set()
    for i in range(0, len(wanted), chunk):
        stmt = (
            select(TagRow.tag, RecordRow.scope, RecordRow.sensitivity)
            .join(RecordRow, RecordRow.id == TagRow.record_id)
            .where(
                TagRow.tag.in_(wanted[i : i + chunk]),
                RecordRow.type == record_type,
                RecordRow.status.in_(LIVE_STATUSES),
            )
        )
        found.update((tag, scope, rank) for tag, scope, rank in session.execute(stmt))
    return found


def fact_object(dialect: str) -> ColumnElement[Any]:
    """A fact's object as text, spelled exactly as migration 0005's index
    (ix_records_fact_object) is built, literal path included, so both stores use it."""
    if dialect == "postgresql":
        return RecordRow.payload.op("->>")(literal_column("'object'"))
    return func.json_extract(RecordRow.payload, literal_column("'$.object'"))


def same_facts(
    session: Session,
    scope: str | None,
    sensitivity: int,
    triples: Sequence[tuple[str, str, str]],
) -> dict[tuple[str, str, str], str]:
    """For each of `triples` stored already: the oldest active semantic record with that
    subject, predicate and (text) object in `scope` at exactly `sensitivity`. One
    statement for an episode's facts (by the object index), not one per fact."""
    if not triples:
        return {}
    stmt = _same_facts_statement(dialect_of(session), scope is None)
    params = {
        "objects": sorted({obj for _, _, obj in triples}),
        "statuses": list(LIVE_STATUSES),
        "scope": scope,
        "sensitivity": sensitivity,
    }
    wanted = set(triples)
    found: dict[tuple[str, str, str], str] = {}
    for rid, subject, predicate, obj in column_rows(session, stmt, params):
        triple = (subject, predicate, obj)
        if triple in wanted and triple not in found:  # rows come oldest first
            found[triple] = rid
    return found


@cache
def _same_facts_statement(dialect: str, unscoped: bool) -> Select[Any]:
    """Built once per shape: consolidation looks up every fact it observes."""
    payload = RecordRow.payload
    obj = fact_object(dialect)
    # SQLite: `scope || ''` keeps its planner on the object index. Without statistics on
    # the facts a run is creating, it took migration 0012's index on (scope, subject,
    # predicate) and read every fact of the scope for each episode (3,366 facts: ~2 ms a
    # look-up, a quarter of a 50,000-episode run), where an object names a few facts.
    scope = RecordRow.scope.concat(literal_column("''")) if dialect == "sqlite" else RecordRow.scope
    return (
        select(
            RecordRow.id,
            payload["subject"].as_string(),
            payload["predicate"].as_string(),
            obj,
        )
        .where(
            obj.in_(bindparam("objects", expanding=True, type_=String())),
            # a literal, not a parameter: it is the partial index's predicate (0005)
            RecordRow.type == literal_column("'semantic'"),
            RecordRow.status.in_(bindparam("statuses", expanding=True)),
            scope.is_(None) if unscoped else scope == bindparam("scope"),
            RecordRow.sensitivity == bindparam("sensitivity"),
        )
        .order_by(RecordRow.created_at, RecordRow.id)
    )


def stored_fact_count(session: Session) -> int:
    """How many semantic records the store holds (the partial type index, counted)."""
    stmt = select(func.count()).select_from(RecordRow).where(RecordRow.type == "semantic")
    return int(session.scalar(stmt) or 0)


def refresh_record_statistics(session: Session) -> None:
    """PostgreSQL: the planner's statistics of `records` taken again now (ANALYZE samples
    a bounded number of rows, ~0.1-0.3 s at a million records); nothing on SQLite, whose
    look-ups do not lean on them (`_same_facts_statement`)."""
    if dialect_of(session) == "postgresql":
        # SKIP_LOCKED: a vacuum or an index build holding the table is not waited for
        session.execute(text("ANALYZE (SKIP_LOCKED) records"))
