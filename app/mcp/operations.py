"""The MCP tools, one per REST operation: name, REST method and path, what the model reads.

Annotations are MCP hints: read-only tools change nothing; a destructive one changes the
standing of existing records (supersede, retract, contest, merge, penalize); the others
only add (capture, ingest, fork) or raise salience (reinforce).
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp.types import ToolAnnotations


@dataclass(frozen=True)
class Operation:
    name: str
    title: str
    method: str
    path: str  # REST path template, e.g. /v1/records/{record_id}/fork
    description: str
    read_only: bool = False
    destructive: bool = False
    idempotency_key: bool = False  # REST takes an Idempotency-Key header

    @property
    def path_params(self) -> tuple[str, ...]:
        return tuple(part[1:-1] for part in self.path.split("/") if part.startswith("{"))

    @property
    def annotations(self) -> ToolAnnotations:
        return ToolAnnotations(
            title=self.title,
            read_only_hint=self.read_only,
            destructive_hint=None if self.read_only else self.destructive,
            idempotent_hint=True if self.read_only else None,
            open_world_hint=False,
        )


def _write(name: str, title: str, path: str, description: str, **kw: bool) -> Operation:
    return Operation(name, title, "POST", path, description, idempotency_key=True, **kw)


_RECORD = "/v1/records/{record_id}"
_NEW = (
    " The new record must have the target's type; a semantic one needs evidence "
    "(`payload.evidence` or `provenance.sources`). Scope and sensitivity default to the "
    "target's."
)

OPERATIONS: tuple[Operation, ...] = (
    _write(
        "capture_memory",
        "Capture a memory",
        "/v1/capture",
        "Store raw experience in long-term memory: Membrane types it (episodic, working, "
        "entity, semantic, ...), links the entities it names and derives a fact from a "
        "subject/predicate/object. Answers the primary record, the records created with "
        "it and the edges between them.",
    ),
    _write(
        "capture_batch",
        "Capture many memories",
        "/v1/capture/batch",
        "Capture up to 1,000 items in one call, each exactly as capture_memory takes it. "
        "Answers one result per item, in order: status 201 with its records, or the "
        "problem that item alone would have met (nothing of a refused item is written; "
        "the others are).",
    ),
    _write(
        "ingest_event",
        "Record an event",
        "/v1/ingest/events",
        "Record something that happened (an event with a kind and a summary) as episodic memory.",
    ),
    _write(
        "ingest_tool_output",
        "Record a tool call",
        "/v1/ingest/tool-outputs",
        "Record a tool call, its arguments and its result (status ok, error or unknown) "
        "as episodic memory.",
    ),
    _write(
        "ingest_observation",
        "Record an observation",
        "/v1/ingest/observations",
        "Record an observation; with subject, predicate and object it also becomes a "
        "semantic fact linked to the subject's entity.",
    ),
    _write(
        "ingest_working_state",
        "Save working state",
        "/v1/ingest/working-states",
        "Save the current state of a task (thread_id, state, next actions, open "
        "questions, constraints) as working memory. A state `done` closes the thread.",
    ),
    _write(
        "ingest_episode",
        "Record an episode",
        "/v1/ingest/episodes",
        "Record a whole episode: summary, timeline of events, tool graph (calls and "
        "their dependencies), environment and outcome. Consolidation later learns facts, "
        "skills and plans from successful episodes.",
    ),
    _write(
        "ingest_outcome",
        "Record an outcome",
        "/v1/ingest/outcomes",
        "Record the outcome (success, failure, partial) of an episodic record you "
        "captured earlier; audited.",
    ),
    Operation(
        "retrieve",
        "Retrieve memories",
        "POST",
        "/v1/retrieve",
        "Search memory: records ranked by relevance to `query` (full text + vectors) "
        "blended with salience, filtered by your trust. Records one level above your "
        "sensitivity ceiling appear redacted (metadata only). For skills and plans the "
        "answer also names the selector's pick. Without a query, records come by "
        "salience.",
        read_only=True,
    ),
    Operation(
        "retrieve_graph",
        "Retrieve a memory graph",
        "POST",
        "/v1/retrieve/graph",
        "Like retrieve, then walk the relations of the ranked roots (up to max_hops) and "
        "answer the roots, the neighbouring records and the edges between them.",
        read_only=True,
    ),
    Operation(
        "get_record",
        "Read a record",
        "GET",
        _RECORD,
        "Read one record by id, with its relations and audit trail. Also readable as the "
        "resource membrane://records/{record_id}.",
        read_only=True,
    ),
    Operation(
        "reinforce_record",
        "Reinforce a record",
        "POST",
        _RECORD + "/reinforce",
        "Say a record proved useful: adds its reinforcement gain to its salience and "
        "restarts its decay, so it ranks higher.",
    ),
    Operation(
        "penalize_record",
        "Penalize a record",
        "POST",
        _RECORD + "/penalize",
        "Say a record misled you: lowers its salience by `amount` (floored at its "
        "minimum) and restarts its decay.",
        destructive=True,
    ),
    _write(
        "supersede_record",
        "Supersede a record",
        _RECORD + "/supersede",
        "Replace a record with a corrected version: the new record is created and the "
        "old one becomes superseded (kept for audit, out of retrieval)." + _NEW,
        destructive=True,
    ),
    _write(
        "fork_record",
        "Fork a record",
        _RECORD + "/fork",
        "Create a variant derived from a record (for another situation); the source "
        "stays active." + _NEW,
    ),
    _write(
        "retract_record",
        "Retract a record",
        _RECORD + "/retract",
        "Retract a record that is wrong: it is kept for audit but leaves retrieval.",
        destructive=True,
    ),
    _write(
        "contest_record",
        "Contest a record",
        _RECORD + "/contest",
        "Mark a record as contested by another record (its id) or an external reference "
        "(URL, ticket); it stays retrievable, flagged contested.",
        destructive=True,
    ),
    _write(
        "merge_records",
        "Merge records",
        "/v1/records/merge",
        "Merge 2-100 records of one type (not episodic) into a new record; the sources "
        "become superseded by it.",
        destructive=True,
    ),
    _write(
        "forget_records",
        "Forget records",
        "/v1/forget",
        "Forget, in one call, everything remembered in a scope (optionally only some types, "
        "tags, a time window or what is about one entity): the records are deleted with "
        "their edges and vectors. `erase` also strips their content from the audit log; "
        "`dry_run` only counts. Use it when a user asks to be forgotten.",
        destructive=True,
    ),
)
