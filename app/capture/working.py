"""What happens to working memory once a task is done.

The original Membrane: working memory "may be freely edited and discarded when the task
ends". Here a working-state snapshot with `state: done` closes its thread: the thread's
earlier active snapshots (same `thread_id` and scope, no more sensitive than it) become
`superseded` by the done snapshot — a `supersedes` edge, an audit entry each, and out of
retrieve's default statuses — so an agent resuming work never picks up a finished task's
stale plan. The done snapshot stays as the thread's final state and decays with the
working half-life (one day) like any working record; its history stays readable by id.
More sensitive snapshots are left alone: the done snapshot's audit entry and edges name
what it retired, and a reader of the done snapshot must not learn of records above it
(nor may a writer retire what it cannot see: the done snapshot is within its ceiling).
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.audit import repository as audit_repo
from app.capture import working_repository as working_repo
from app.enums import TaskState
from app.models import RecordRow, RelationRow
from app.records import repository as record_repo
from app.relations import service as relations
from app.trust import TrustContext, Visibility

RATIONALE = "task done: the thread's final state supersedes its earlier snapshots"


def closes_thread(row: RecordRow) -> bool:
    return row.type == "working" and (row.payload or {}).get("state") == TaskState.done.value


def close_thread(
    session: Session, done: RecordRow, trust: TrustContext, now: float
) -> list[RelationRow]:
    """Supersede the thread's earlier snapshots by `done`; returns the new edges."""
    thread = str((done.payload or {}).get("thread_id") or "")
    no_higher = Visibility(max_rank=done.sensitivity, scopes=None)  # the scope is done's own
    earlier = working_repo.open_snapshots(session, done.scope, thread, no_higher, exclude=done.id)
    if not earlier:
        return []
    record_repo.set_status(session, earlier, "superseded", now)
    edges: list[RelationRow] = []
    for old in earlier:
        edges += relations.link(session, done.id, "supersedes", old, now)
        audit_repo.append(
            session,
            old,
            "supersede",
            trust.actor_id,
            now,
            rationale=RATIONALE,
            details={"superseded_by": done.id},
        )
    audit_repo.append(
        session,
        done.id,
        "supersede",
        trust.actor_id,
        now,
        rationale=RATIONALE,
        details={"supersedes": earlier},
    )
    return edges
