"""Plan graph extraction (consolidation stage 5): a tool graph of MIN_NODES or more nodes
becomes a reusable plan.

Each tool node becomes a plan node (its id, `op` = the tool, `params` = the arguments);
each `depends_on` entry becomes a `control` edge from the node depended on to the
dependent node (an entry naming no node of the graph is dropped: it cannot be an edge
of the plan). The intent is the episode's summary.

Which episodes count: every active episode with outcome `success` or `failure` is one
execution of its plan (a failed run says how often the plan fails: the metrics keep
both counts and the failure rate, which the retrieval selector weighs). Other outcomes
(partial, unknown, none yet) are ignored and stay waiting: an outcome recorded later is
counted then. A plan is created on its first counted execution, whichever the outcome.

The same plan again — same scope, same sensitivity and the same structure — reuses the
record: its execution, success and failure counts go up and it is reinforced. The
structure is the list of ops in node order plus the edges between node positions, so
node ids and arguments (which differ between runs of one plan) do not split a plan; its
fingerprint is the plan's `plan_id` and the tag `consolidation:plan_graph:<fingerprint>`.
Plans never merge across scopes or sensitivities (a `low` plan's counts must not move
with a `high` episode).

An episode is folded in once: the audit entry `consolidate:plan_graph` is written in the
transaction that folds it. One transaction per plan (and at most FOLD_CHUNK episodes);
at most `limit` episodes per run (scheduler.consolidation_max_episodes); the rest
wait for the next run.
"""

from __future__ import annotations

import hashlib
import json

from app import clock
from app.consolidation import promotion
from app.consolidation.promotion import COUNTED_OUTCOMES, Pattern, PatternKey, Tally
from app.db import Database
from app.models import RecordRow
from app.records import payload_json as stored
from app.records import repository as record_repo
from app.records.payload_json import StoredJson
from app.records.payloads import PlanEdge, PlanGraphPayload, PlanMetrics, PlanNode
from app.records.policy import PolicyEngine
from app.trust import TrustContext

STAGE = "plan_graph"
TAG = "consolidation:plan_graph"
CREATED_BY = "consolidation/plan-graph"
MIN_NODES = 3
MAX_EPISODES_PER_RUN = 100_000  # the default; runs pass the setting
LOAD_BATCH = 500  # episodes read at once to group them
FOLD_CHUNK = 500  # episodes per transaction
INTENT_CHARS = 1000
ARROW = " → "

Structure = tuple[list[PlanNode], list[PlanEdge]]


def plan_of(payload: StoredJson) -> Structure:
    """Plan nodes and control edges of an episode's tool graph."""
    tool_graph = stored.episodic(payload).get("tool_graph") or []
    graph = [node for node in tool_graph if isinstance(node, dict)]
    nodes = [
        PlanNode(
            id=str(node.get("id") or f"n{index}"),
            op=str(node.get("tool") or "").strip() or "unknown",
            params=node.get("args") if isinstance(node.get("args"), dict) else {},
        )
        for index, node in enumerate(graph, start=1)
    ]
    ids = {node.id for node in nodes}
    edges: list[PlanEdge] = []
    seen: set[tuple[str, str]] = set()
    for raw, node in zip(graph, nodes, strict=True):
        for dep in raw.get("depends_on") or []:
            pair = (str(dep), node.id)
            if pair[0] in ids and pair[0] != node.id and pair not in seen:
                seen.add(pair)
                edges.append(
                    PlanEdge.model_validate({"from": pair[0], "to": node.id, "kind": "control"})
                )
    return nodes, edges


def structure_fingerprint(nodes: list[PlanNode], edges: list[PlanEdge]) -> str:
    """Ops in node order and edges between node positions (first node with an id):
    independent of node ids and arguments."""
    position: dict[str, int] = {}
    for index, node in enumerate(nodes):
        position.setdefault(node.id, index)
    shape = sorted((position[e.from_], position[e.to]) for e in edges)
    raw = json.dumps([STAGE, [n.op for n in nodes], shape], ensure_ascii=False)
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


def episode_fingerprint(payload: StoredJson) -> str | None:
    nodes, edges = plan_of(payload)
    return structure_fingerprint(nodes, edges) if len(nodes) >= MIN_NODES else None


def metrics(tally: Tally, base: PlanMetrics | None = None) -> PlanMetrics:
    base = base or PlanMetrics()
    successes = base.success_count + tally.successes
    failures = base.failure_count + tally.failures
    executions = base.execution_count + tally.successes + tally.failures
    last = tally.last_at
    if base.last_executed_at is not None:
        last = max(last, clock.to_epoch(base.last_executed_at))
    return PlanMetrics(
        execution_count=executions,
        success_count=successes,
        failure_count=failures,
        failure_rate=failures / executions if executions else 0.0,
        avg_latency_ms=base.avg_latency_ms,
        last_executed_at=clock.to_datetime(last),
    )


def new_payload(rows: list[RecordRow]) -> PlanGraphPayload:
    first = rows[0].payload
    nodes, edges = plan_of(first)
    intent = str(first.get("summary") or "").strip()[:INTENT_CHARS]
    return PlanGraphPayload(
        plan_id=structure_fingerprint(nodes, edges),
        version=1,
        intent=intent or ARROW.join(n.op for n in nodes)[:INTENT_CHARS],
        nodes=nodes,
        edges=edges,
        metrics=metrics(Tally.of(rows)),
    )


def merged(payload: StoredJson, rows: list[RecordRow]) -> dict[str, object]:
    base = PlanMetrics.model_validate(payload.get("metrics") or {})
    return {**payload, "metrics": metrics(Tally.of(rows), base).model_dump(mode="json")}


PATTERN = Pattern(
    stage=STAGE,
    record_type="plan_graph",
    tag=TAG,
    created_by=CREATED_BY,
    fingerprint=episode_fingerprint,
    can_create=lambda rows: True,  # one counted execution is a plan
    new_payload=new_payload,
    merged=merged,
)


def run_plan_graph_stage(
    db: Database,
    policy: PolicyEngine,
    trust: TrustContext,
    *,
    now: float,
    limit: int = MAX_EPISODES_PER_RUN,
) -> dict[str, int]:
    counts = promotion.fold_groups(
        db,
        policy,
        trust,
        PATTERN,
        _groups(db, limit),
        now=now,
        budget=limit,
        chunk=FOLD_CHUNK,
    )
    return {
        "plan_graphs_created": counts.created,
        "plan_graphs_reinforced": counts.reinforced,
        "plan_graph_episodes": counts.episodes,
        "plan_graph_skipped": counts.skipped,
    }


def _groups(db: Database, limit: int) -> list[tuple[PatternKey, list[str]]]:
    """The waiting episodes (with enough nodes, in SQL) grouped by plan, oldest first;
    read LOAD_BATCH at a time, since grouping needs the whole tool graph."""
    ids = promotion.pending_ids(
        db,
        stage=STAGE,
        outcomes=COUNTED_OUTCOMES,
        limit=limit,
        min_tools=MIN_NODES,
    )
    groups: dict[PatternKey, list[str]] = {}
    for start in range(0, len(ids), LOAD_BATCH):
        with db.read_transaction() as session:
            rows = record_repo.get_many(session, ids[start : start + LOAD_BATCH])
            for row in sorted(rows.values(), key=lambda r: (r.created_at, r.id)):
                key = PATTERN.key_of(row)
                if key is not None:
                    groups.setdefault(key, []).append(row.id)
    return list(groups.items())
