"""Aggregate queries behind the metrics snapshot and the Prometheus gauges. Every number
comes from SQL aggregates; no record is loaded."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from sqlalchemy import Double, Integer, Select, bindparam, case, cast, func, select
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from app.db import column_rows, dialect_of
from app.models import AuditRow, RecordRow
from app.models.clauses import current_salience_sql, visibility_params, visible_param
from app.trust import HIGHEST_RANK, Visibility

HISTOGRAM_BUCKETS = 10


@dataclass(frozen=True)
class RecordGroup:
    """Counts and sums of the records sharing (type, status, pinned, salience bucket)."""

    type: str
    status: str
    pinned: bool
    bucket: int
    count: int
    salience_sum: float
    confidence_sum: float
    created_recently: int
    positive: int  # with current salience > 0


def _bucket(dialect: str, salience: ColumnElement[float]) -> ColumnElement[int]:
    scaled = salience * HISTOGRAM_BUCKETS
    # PostgreSQL's CAST rounds; SQLite's truncates (and salience is never negative).
    index = cast(func.floor(scaled), Integer) if dialect != "sqlite" else cast(scaled, Integer)
    top = HISTOGRAM_BUCKETS - 1
    return func.min(index, top) if dialect == "sqlite" else func.least(index, top)


def record_groups(
    session: Session, vis: Visibility, *, now: float, recent_since: float
) -> list[RecordGroup]:
    """One scan of the visible records, grouped into at most 6 × 4 × 2 × 10 rows."""
    stmt = _groups_statement(dialect_of(session), vis.scopes is not None)
    params = {**visibility_params(vis), "now": now, "recent_since": recent_since}
    return [
        RecordGroup(
            type=t,
            status=st,
            pinned=bool(p),
            bucket=int(b),
            count=int(n),
            salience_sum=float(s or 0.0),
            confidence_sum=float(c or 0.0),
            created_recently=int(r or 0),
            positive=int(a or 0),
        )
        for t, st, p, b, n, s, c, r, a in column_rows(session, stmt, params)
    ]


@cache
def _groups_statement(dialect: str, scoped: bool) -> Select[Any]:
    """Built once per store and caller kind (scoped or not): the values are parameters."""
    # The inner query computes salience once per row; OFFSET 0 keeps PostgreSQL from
    # inlining it (which would evaluate it again per use and mis-estimate the groups).
    now = bindparam("now", type_=Double)
    rows = (
        select(
            RecordRow.type,
            RecordRow.status,
            RecordRow.pinned,
            RecordRow.confidence,
            RecordRow.created_at,
            current_salience_sql(dialect, now).label("salience"),
        )
        .where(visible_param(RecordRow, scoped))
        .offset(0)
        .subquery()
    )
    bucket = _bucket(dialect, rows.c.salience).label("bucket")
    recent = case((rows.c.created_at >= bindparam("recent_since", type_=Double), 1), else_=0)
    positive = case((rows.c.salience > 0.0, 1), else_=0)
    return select(
        rows.c.type,
        rows.c.status,
        rows.c.pinned,
        bucket,
        func.count(),
        func.sum(rows.c.salience),
        func.sum(rows.c.confidence),
        func.sum(recent),
        func.sum(positive),
    ).group_by(rows.c.type, rows.c.status, rows.c.pinned, bucket)


@dataclass(frozen=True)
class AuditTallies:
    entries: int  # every readable entry
    reinforcements: int  # ever
    revisions: int  # ever: entries whose action is one of `revision_actions`
    reinforcements_since: int
    penalties_since: int


def audit_tallies(
    session: Session, vis: Visibility, revision_actions: Sequence[str], since: float
) -> AuditTallies:
    """The audit counts /v1/metrics reports, in one pass over the entries about records
    `vis` may read. A caller who may read everything also counts the entries of records
    deleted since (their trail outlives them)."""
    reads_all = vis.scopes is None and vis.max_rank >= HIGHEST_RANK
    stmt = _tallies_statement(reads_all, vis.scopes is not None)
    params = {**visibility_params(vis), "since": since, "revisions": list(revision_actions)}
    entries, reinforced, revised, reinforced_since, penalized_since = column_rows(
        session, stmt, params
    ).one()
    return AuditTallies(
        int(entries), int(reinforced), int(revised), int(reinforced_since), int(penalized_since)
    )


@cache
def _tallies_statement(reads_all: bool, scoped: bool) -> Select[int, int, int, int, int]:
    """Over the audit rows about records the caller may read (`reads_all`: every row,
    deleted records' trails included); built once, the values are parameters."""
    action = AuditRow.action
    recent = AuditRow.timestamp >= bindparam("since", type_=Double)
    stmt = select(
        func.count(),
        func.count().filter(action == "reinforce"),
        func.count().filter(action.in_(bindparam("revisions", expanding=True))),
        func.count().filter(action == "reinforce", recent),
        func.count().filter(action == "penalize", recent),
    ).select_from(AuditRow)
    if reads_all:
        return stmt
    return stmt.join(RecordRow, RecordRow.id == AuditRow.record_id).where(
        visible_param(RecordRow, scoped)
    )


@dataclass(frozen=True)
class UsageTotals:
    competence_successes: float
    competence_failures: float
    plan_executions_avg: float | None


def usage_totals(session: Session, vis: Visibility) -> UsageTotals:
    """Competence performance and plan execution counts, in one pass over those types."""
    stmt = _usage_statement(vis.scopes is not None)
    ok, failed, plan_avg = column_rows(session, stmt, visibility_params(vis)).one()
    return UsageTotals(
        competence_successes=float(ok or 0.0),
        competence_failures=float(failed or 0.0),
        plan_executions_avg=None if plan_avg is None else float(plan_avg),
    )


@cache
def _usage_statement(scoped: bool) -> Select[Any]:
    """Three scalar look-ups, each over the records of one type by the type index. (One
    scan filtered on both types made SQLite's planner, whose statistics say a type holds
    half the store, read the whole table: 0.6 ms instead of 0.01 at 2,000 records, where
    these types are usually a small share.)"""

    def total(aggregate: Any, memory_type: str, *path: str) -> Any:
        value = RecordRow.payload[path].as_float()
        return (
            select(aggregate(value))
            .where(visible_param(RecordRow, scoped), RecordRow.type == memory_type)
            .scalar_subquery()
        )

    return select(
        total(func.sum, "competence", "performance", "success_count"),
        total(func.sum, "competence", "performance", "failure_count"),
        total(func.avg, "plan_graph", "metrics", "execution_count"),
    )


def counts_by_type(session: Session) -> dict[str, int]:
    stmt = select(RecordRow.type, func.count()).group_by(RecordRow.type)
    return {t: int(n) for t, n in column_rows(session, stmt)}
