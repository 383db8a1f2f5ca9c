"""Competence extraction (consolidation stage 4): a tool sequence that worked at least
twice becomes a competence record, a learned "how to".

An episode's tool signature is the ordered list of its tool graph nodes' `tool` names
(list order; blank names are skipped). Episodes are grouped by (scope, sensitivity,
signature): never across scopes, and never across sensitivities, since a `low` skill
whose counts moved with a `high` episode would tell `low` readers about that episode.

A group with at least MIN_SUCCESSES successful episodes becomes a competence record:
skill name "a → b → c", a recipe step per tool (its args_schema inferred from the
arguments of the first successful episode), the required tools, a few triggers from the
episodes' summaries, and performance counts. Failed episodes of the signature count as
failures. Episodes of a signature that already has a record in their scope at their
sensitivity (found by the tag `consolidation:competence:<fingerprint>`) update its counts
in place and reinforce it. Other outcomes (partial, unknown, none yet) are not counted
and stay waiting: an outcome recorded later is counted then.

Recipe and triggers are written when the record is created; later episodes only move
its counts (they follow the same tool order, by definition of the group).

An episode is folded in once: the audit entry `consolidate:competence` is written in the
transaction that folds it. A signature seen once so far leaves its episode unmarked, so
that a second occurrence in a later run still forms the group. So that unmarked
singletons cannot hold up the stage, each run reads only the tool names (in SQL, never
arguments or results) of the newest SCAN_FACTOR × limit waiting episodes that have a tool graph, and
folds at most `limit` of them: a pattern that repeats within that window is
found; a singleton older than the window waits until the window reaches it again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from app import clock
from app.consolidation import promotion
from app.consolidation import repository as consolidation_repo
from app.consolidation.promotion import COUNTED_OUTCOMES, Pattern, PatternKey, Tally
from app.consolidation.repository import ToolSequence
from app.db import Database
from app.models import RecordRow
from app.records import payload_json as stored
from app.records.payload_json import StoredJson
from app.records.payloads import CompetencePayload, Performance, RecipeStep, Trigger
from app.records.policy import PolicyEngine
from app.trust import TrustContext

STAGE = "competence"
TAG = "consolidation:competence"
CREATED_BY = "consolidation/competence"
MIN_SUCCESSES = 2
MAX_EPISODES_PER_RUN = 100_000  # episodes folded per run (the default; runs pass the setting)
SCAN_FACTOR = 2  # waiting episodes looked at per run, newest first: twice what may fold
FOLD_CHUNK = 500  # episodes per transaction
MAX_TRIGGERS = 5
ACTION_CHARS = 1000
TRIGGER_CHARS = 500
NAME_CHARS = 1024
ARROW = " → "

Signature = tuple[str, ...]
JSON_TYPES: tuple[tuple[type, str], ...] = (
    (bool, "boolean"),  # before int: a bool is an int in Python
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
)


def tool_name(value: Any) -> str | None:
    name = value.strip() if isinstance(value, str) else ""
    return name or None


def signature_of(tools: Iterable[Any]) -> Signature:
    return tuple(name for name in map(tool_name, tools) if name)


def steps_of(payload: StoredJson) -> list[tuple[str, dict[str, object]]]:
    """(tool, args) of each node with a tool name, in list order."""
    steps = []
    for node in stored.episodic(payload).get("tool_graph") or []:
        name = tool_name(node.get("tool")) if isinstance(node, dict) else None
        if name is not None:
            args = node.get("args")
            steps.append((name, args if isinstance(args, dict) else {}))
    return steps


def fingerprint_of(signature: Signature) -> str:
    raw = json.dumps([STAGE, list(signature)], ensure_ascii=False)
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


def episode_fingerprint(payload: StoredJson) -> str | None:
    signature = tuple(name for name, _ in steps_of(payload))
    return fingerprint_of(signature) if signature else None


def skill_name(signature: Signature) -> str:
    name = ARROW.join(signature)
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…"


def json_type(value: Any) -> str:
    for python_type, name in JSON_TYPES:
        if isinstance(value, python_type):
            return name
    return "null"


def args_schema(args: Mapping[str, object]) -> dict[str, object]:
    """A JSON Schema of one call's arguments: their names and JSON types (one example
    shows which arguments were given, not which are required)."""
    properties = {key: {"type": json_type(value)} for key, value in args.items()}
    return {"type": "object", "properties": properties}


def recipe_of(payload: StoredJson) -> list[RecipeStep]:
    return [
        RecipeStep(
            step=index,
            action=_action(tool, list(args)),
            tool=tool,
            args_schema=args_schema(args),
        )
        for index, (tool, args) in enumerate(steps_of(payload), start=1)
    ]


def _action(tool: str, arg_names: list[str]) -> str:
    """The step in words, short enough for any payload limit however many arguments."""
    text = f"call {tool}" + (f" with {', '.join(arg_names)}" if arg_names else "")
    return text if len(text) <= ACTION_CHARS else text[: ACTION_CHARS - 1] + "…"


def triggers_of(successes: Sequence[RecordRow], name: str) -> list[Trigger]:
    """The first few distinct summaries of the successful episodes (the situations the
    skill served), or the skill's name when none has a summary."""
    signals: list[str] = []
    for row in successes:
        summary = str(row.payload.get("summary") or "").strip()[:TRIGGER_CHARS]
        if summary and summary not in signals:
            signals.append(summary)
    return [Trigger(signal=s) for s in signals[:MAX_TRIGGERS]] or [Trigger(signal=name)]


def performance(tally: Tally, base: Performance | None = None) -> Performance:
    base = base or Performance()
    successes = base.success_count + tally.successes
    failures = base.failure_count + tally.failures
    last = tally.last_at
    if base.last_used_at is not None:
        last = max(last, clock.to_epoch(base.last_used_at))
    return Performance(
        success_count=successes,
        failure_count=failures,
        success_rate=successes / (successes + failures) if successes + failures else 0.0,
        avg_latency_ms=base.avg_latency_ms,
        last_used_at=clock.to_datetime(last),
    )


def _is_success(row: RecordRow) -> bool:
    return row.payload.get("outcome") == "success"


def can_create(rows: list[RecordRow]) -> bool:
    return sum(1 for row in rows if _is_success(row)) >= MIN_SUCCESSES


def new_payload(rows: list[RecordRow]) -> CompetencePayload:
    successes = [row for row in rows if _is_success(row)]
    signature = tuple(name for name, _ in steps_of(successes[0].payload))
    name = skill_name(signature)
    return CompetencePayload(
        skill_name=name,
        triggers=triggers_of(successes, name),
        recipe=recipe_of(successes[0].payload),
        required_tools=list(dict.fromkeys(signature)),
        performance=performance(Tally.of(rows)),
        version=1,
    )


def merged(payload: StoredJson, rows: list[RecordRow]) -> dict[str, object]:
    base = Performance.model_validate(payload.get("performance") or {})
    updated = performance(Tally.of(rows), base)
    return {**payload, "performance": updated.model_dump(mode="json")}


PATTERN = Pattern(
    stage=STAGE,
    record_type="competence",
    tag=TAG,
    created_by=CREATED_BY,
    fingerprint=episode_fingerprint,
    can_create=can_create,
    new_payload=new_payload,
    merged=merged,
)


def run_competence_stage(
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
        _ready_groups(db, scan=SCAN_FACTOR * limit),
        now=now,
        budget=limit,
        chunk=FOLD_CHUNK,
    )
    return {
        "competence_created": counts.created,
        "competence_reinforced": counts.reinforced,
        "competence_episodes": counts.episodes,
        "competence_skipped": counts.skipped,
    }


def group_sequences(sequences: Iterable[ToolSequence]) -> dict[PatternKey, list[ToolSequence]]:
    groups: dict[PatternKey, list[ToolSequence]] = {}
    for seq in sequences:
        signature = signature_of(seq.tools)
        if signature:
            key = (seq.scope, seq.sensitivity, fingerprint_of(signature))
            groups.setdefault(key, []).append(seq)
    return groups


def _ready_groups(db: Database, *, scan: int) -> list[tuple[PatternKey, list[str]]]:
    """Groups that fold now: a signature with a record already, or with enough
    successes to make one. Oldest group first; in a group, successes first, so that the
    first chunk can create the record."""
    with db.read_transaction() as session:
        sequences = consolidation_repo.tool_sequences(
            session, stage=STAGE, outcomes=COUNTED_OUTCOMES, limit=scan
        )
        groups = group_sequences(sequences)
        tags = [PATTERN.fingerprint_tag(fingerprint) for _, _, fingerprint in groups]
        known = consolidation_repo.pattern_keys(session, record_type="competence", tags=tags)
    ready = []
    for (scope, rank, fingerprint), members in groups.items():
        successes = sum(1 for m in members if m.outcome == "success")
        if (PATTERN.fingerprint_tag(fingerprint), scope, rank) in known or (
            successes >= MIN_SUCCESSES
        ):
            members.sort(key=lambda m: (m.outcome != "success", m.created_at, m.id))
            ready.append(((scope, rank, fingerprint), members))
    ready.sort(key=lambda group: min(m.created_at for m in group[1]))
    return [(key, [m.id for m in members]) for key, members in ready]
