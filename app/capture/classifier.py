"""Classifier and payload builder: raw capture → a typed payload (pure functions)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import cast

from app.enums import MemoryType, SourceKind
from app.records.payload_json import EpisodicJson, TimelineJson, ToolCallJson, WorkingJson

_EPISODIC_SOURCES = {
    SourceKind.event,
    SourceKind.tool_output,
    SourceKind.observation,
    SourceKind.agent_turn,
    SourceKind.episode,
}


@dataclass
class Classification:
    memory_type: MemoryType
    reason: str


@dataclass
class Mention:
    name: str
    types: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)


def classify(source_kind: SourceKind, proposed: MemoryType | None) -> Classification:
    if proposed is not None:
        return Classification(proposed, "proposed by the caller")
    if source_kind is SourceKind.working_state:
        return Classification(MemoryType.working, "working_state sources are working memory")
    if source_kind in _EPISODIC_SOURCES:
        return Classification(MemoryType.episodic, f"{source_kind.value} is raw experience")
    raise ValueError(f"unclassifiable source kind {source_kind!r}")  # pragma: no cover


def as_dict(content: object) -> dict[str, object]:
    if isinstance(content, dict):
        return content
    if content is None:
        return {}
    return {"value": content}


def fact_of(content: object) -> tuple[str, str, object] | None:
    """(subject, predicate, object) when the content carries a fact."""
    data = as_dict(content)
    subject, predicate = data.get("subject"), data.get("predicate")
    if not (isinstance(subject, str) and isinstance(predicate, str)):
        return None
    if subject.strip() and predicate.strip() and data.get("object") not in (None, ""):
        return subject.strip(), predicate.strip(), data["object"]
    return None


# Content fields that name who said or wrote what is captured (a transcript turn's
# speaker, a message's author): that party is an entity the record mentions.
SPEAKER_KEYS = ("speaker", "author")


def mentions_of(content: object, context: Mapping[str, object]) -> list[Mention]:
    """Entity mentions named explicitly in content/context `entities` (strings or objects),
    and the content's speaker or author."""
    found: dict[str, Mention] = {}
    data = as_dict(content)
    raw = _listed(data.get("entities")) + _listed(context.get("entities"))
    raw += [data[key] for key in SPEAKER_KEYS if isinstance(data.get(key), str)]
    for item in raw:
        mention: Mention | None = None
        if isinstance(item, str) and item.strip():
            mention = Mention(item.strip()[:1024])
        elif isinstance(item, dict) and isinstance(item.get("name"), str) and item["name"].strip():
            mention = Mention(
                item["name"].strip()[:1024],
                [str(t)[:1024] for t in item.get("types") or []],
                [str(a)[:1024] for a in item.get("aliases") or []],
            )
        if mention is not None:
            found.setdefault(mention.name.casefold(), mention)
    return list(found.values())


def _listed(value: object) -> list[object]:
    """What `list()` makes of a JSON value: a list's items (a string's characters, an
    object's keys); nothing for a missing or empty one."""
    return list(cast(Iterable[object], value or []))


def summary_of(content: object, summary: str | None, reason: str | None) -> str:
    if summary:
        return summary
    if isinstance(content, str) and content.strip():
        return content  # plain-text content is its own summary: what search and vectors read
    data = as_dict(content)
    for key in ("summary", "text", "message", "description"):
        if isinstance(data.get(key), str) and data[key]:
            return str(data[key])
    fact = fact_of(content)
    if fact is not None:
        return f"{fact[0]} {fact[1]} {fact[2]}"
    return reason or ""


def episodic_payload(
    source_kind: SourceKind,
    content: object,
    summary: str,
    timestamp: str | None,
    context: dict[str, object],
) -> EpisodicJson:
    """The episodic payload of a capture (to be validated as EpisodicPayload)."""
    data = as_dict(content)
    if source_kind is SourceKind.episode:
        keys = ("timeline", "tool_graph", "tool_graph_ref", "outcome", "artifacts")
        episode = {k: data[k] for k in keys if k in data}
        episode["environment"] = data.get("environment") or context
        episode["summary"] = summary
        return cast(EpisodicJson, {"kind": "episodic", **episode})
    payload: EpisodicJson = {
        "kind": "episodic",
        "summary": summary,
        "timeline": [timeline_entry(source_kind, data, summary, timestamp)],
        "environment": context,
    }
    if source_kind is SourceKind.tool_output:
        payload["tool_graph"] = [tool_node(data, timestamp)]
    outcome = data.get("outcome")
    if isinstance(outcome, str) and outcome in ("success", "failure", "partial", "unknown"):
        payload["outcome"] = outcome
    return payload


def timeline_entry(
    source_kind: SourceKind, data: dict[str, object], summary: str, timestamp: str | None
) -> TimelineJson:
    """One timeline event: its kind is the content's `event_kind` (or `event_type`), else
    the source kind; the content's `ref` is kept as the original's reference."""
    kind = data.get("event_kind") or data.get("event_type") or source_kind.value
    entry: TimelineJson = {
        "t": timestamp,
        "event_kind": str(kind)[:1024],
        "summary": summary,
        "data": data,
    }
    ref = data.get("ref")
    if isinstance(ref, str) and ref:
        entry["ref"] = ref
    return entry


def tool_node(data: dict[str, object], timestamp: str | None) -> ToolCallJson:
    """The tool-graph node of one tool output (the original's ToolNode + status)."""
    depends, args, status = data.get("depends_on"), data.get("args"), data.get("status")
    return {
        "id": str(data.get("id") or data.get("call_id") or "call-1")[:1024],
        "tool": str(data.get("tool") or data.get("tool_name") or "tool")[:1024],
        "args": args if isinstance(args, dict) else {},
        "result": data.get("result", data.get("output")),
        "timestamp": timestamp,
        "status": str(status) if status in ("ok", "error") else "ok",
        "depends_on": [str(d)[:1024] for d in depends] if isinstance(depends, list) else [],
    }


def working_payload(
    content: object, summary: str, source: str, context: Mapping[str, object]
) -> WorkingJson:
    """The working payload of a capture (to be validated as WorkingPayload)."""
    data = as_dict(content)
    known = (
        "state",
        "state_data",
        "constraints",
        "active_constraints",
        "next_actions",
        "open_questions",
    )
    payload = cast(WorkingJson, {k: data[k] for k in known if k in data})
    if "state" not in payload and "state_data" not in payload:
        payload["state_data"] = {k: v for k, v in data.items() if k not in (*known, "thread_id")}
    thread = data.get("thread_id") or context.get("thread_id") or source
    working = {
        "kind": "working",
        "thread_id": str(thread)[:1024],
        "context_summary": data.get("context_summary") or summary,
        **payload,
    }
    return cast(WorkingJson, working)
