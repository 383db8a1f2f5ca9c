"""The domain metrics snapshot (GET /v1/metrics), folded from a few SQL aggregates, and
the Prometheus exposition (GET /metrics)."""

from __future__ import annotations

import hmac
from collections import defaultdict

from sqlalchemy.orm import Session

from app.clock import to_datetime
from app.db import Tier
from app.enums import MemoryType
from app.metrics import repository as metrics_repo
from app.metrics.registry import gauge_lines, render_process_metrics, sample_lines
from app.metrics.repository import HISTOGRAM_BUCKETS, RecordGroup
from app.metrics.schemas import HistogramBucket, MetricsSnapshot
from app.replicas import ReadRouter
from app.security import bearer_token
from app.trust import TrustContext

DAY_S = 86400.0
USEFULNESS_WINDOW_S = 30 * DAY_S
REVISED = frozenset({"superseded", "retracted", "contested"})
# The original's revision actions (revise, fork, merge), under this service's names.
REVISION_ACTIONS = ("supersede", "retract", "contest", "fork", "merge")
SEED_BUCKETS = 5  # the original's histogram: 0.0-0.2, 0.2-0.4, ..., 0.8-1.0


def _ratio(num: float, den: float) -> float | None:
    return num / den if den > 0 else None


def snapshot(session: Session, trust: TrustContext, now: float) -> MetricsSnapshot:
    """Counts the records the caller may read in full (redacted ones are left out)."""
    vis = trust.reading()
    groups = metrics_repo.record_groups(session, vis, now=now, recent_since=now - DAY_S)
    audit = metrics_repo.audit_tallies(
        session, vis, REVISION_ACTIONS, since=now - USEFULNESS_WINDOW_S
    )
    entries, useful = audit.entries, audit.reinforcements_since
    usage = metrics_repo.usage_totals(session, vis)
    ok, failed = usage.competence_successes, usage.competence_failures
    return MetricsSnapshot(
        **_fold(groups),
        audit_entries=entries,
        total_audit_entries=entries,
        retrieval_usefulness=_ratio(audit.reinforcements, entries),
        feedback_usefulness_30d=_ratio(useful, useful + audit.penalties_since),
        revision_rate=_ratio(audit.revisions, entries),
        competence_success_rate=_ratio(ok, ok + failed),
        plan_reuse_frequency=usage.plan_executions_avg,
        computed_at=to_datetime(now),
    )


def _fold(groups: list[RecordGroup]) -> dict[str, object]:
    total = sum(g.count for g in groups)
    by_type: dict[str, int] = {t.value: 0 for t in MemoryType}
    histogram = [0] * HISTOGRAM_BUCKETS
    sums: dict[str, float] = defaultdict(float)
    for g in groups:
        by_type[g.type] = by_type.get(g.type, 0) + g.count
        histogram[g.bucket] += g.count
        sums["salience"] += g.salience_sum
        sums["confidence"] += g.confidence_sum
        sums["recent"] += g.created_recently
        sums["active"] += g.count if g.status == "active" else 0
        sums["pinned"] += g.count if g.pinned else 0
        sums["revised"] += g.count if g.status in REVISED else 0
        sums["positive"] += g.positive
    width = 1.0 / HISTOGRAM_BUCKETS
    return {
        "total": total,
        "total_records": total,
        "by_type": by_type,
        "records_by_type": by_type,
        "avg_salience": _ratio(sums["salience"], total),
        "avg_confidence": _ratio(sums["confidence"], total),
        "salience_histogram": [
            HistogramBucket(lower=round(i * width, 10), upper=round((i + 1) * width, 10), count=c)
            for i, c in enumerate(histogram)
        ],
        "salience_distribution": _seed_distribution(histogram),
        "active": int(sums["active"]),
        "active_records": int(sums["positive"]),
        "pinned": int(sums["pinned"]),
        "pinned_records": int(sums["pinned"]),
        "memory_growth_rate": _ratio(sums["recent"], total) or 0.0,
        "records_per_hour_24h": sums["recent"] / 24.0,
        "revised_record_share": _ratio(sums["revised"], total),
    }


def _seed_distribution(histogram: list[int]) -> dict[str, int]:
    """The ten buckets folded into the original's five, keyed as there ("0.0-0.2")."""
    per = HISTOGRAM_BUCKETS // SEED_BUCKETS
    step = 1.0 / SEED_BUCKETS
    return {
        f"{i * step:.1f}-{(i + 1) * step:.1f}": sum(histogram[i * per : (i + 1) * per])
        for i in range(SEED_BUCKETS)
    }


def prometheus_text(
    session: Session, tier: Tier, embedding_queue_depth: int, router: ReadRouter | None = None
) -> str:
    """Process metrics plus gauges read from the store: records by type, the embedding
    queue (as /readyz reports it) and the deployment tier; with read replicas, their lag,
    health and the reads each target served."""
    by_type = metrics_repo.counts_by_type(session)
    lines = render_process_metrics()
    lines += gauge_lines(
        "membrane_records",
        "Stored records by type.",
        ("type",),
        [((t.value,), float(by_type.get(t.value, 0))) for t in MemoryType],
    )
    lines += gauge_lines(
        "membrane_embedding_queue_depth",
        "Records waiting for the active embedding provider (as in /readyz).",
        (),
        [((), float(max(embedding_queue_depth, 0)))],
    )
    lines += gauge_lines(
        "membrane_tier", "Deployment tier the database offers.", (), [((), float(tier))]
    )
    if router is not None:
        lines += replica_lines(router)
    return "\n".join(lines) + "\n"


def replica_lines(router: ReadRouter) -> list[str]:
    replicas = router.replicas
    lines = gauge_lines(
        "membrane_replica_lag_seconds",
        "Replay lag of each read replica at its last check (-1: unknown).",
        ("replica",),
        [((r.name,), r.lag_s if r.lag_s is not None else -1.0) for r in replicas],
    )
    lines += gauge_lines(
        "membrane_replica_healthy",
        "1 when the read replica answered its last check as a standby, else 0.",
        ("replica",),
        [((r.name,), 1.0 if r.healthy else 0.0) for r in replicas],
    )
    reads = [(("primary",), float(router.primary_reads))]
    reads += [((r.name,), float(r.reads)) for r in replicas]
    return lines + sample_lines(
        "membrane_reads_total",
        "Read-only requests of this process by the database that served them.",
        "counter",
        ("target",),
        reads,
    )


def scrape_allowed(token: str, authorization: str | None) -> bool:
    """No token configured: anyone may scrape; else the bearer token must match it."""
    if not token:
        return True
    offered = bearer_token(authorization) or ""
    return hmac.compare_digest(offered.encode(), token.encode())
