"""Capture's side of the interpretation queue (table `interpretation_queue`): a captured
record queued for LLM interpretation with the capturer's trust at capture time. The
worker's side (claim, reschedule, remove) is `app/interpret/repository.py`; interpret
builds on capture, so the producer's statement lives here and capture imports nothing
of interpret."""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy.orm import Session

from app.models import InterpretationQueueRow, staging


def enqueue(
    session: Session,
    record_id: str,
    *,
    actor_id: str,
    ceiling: int,
    scopes: Collection[str] | None,
    now: float,
) -> None:
    staging.add(
        session,
        InterpretationQueueRow(
            record_id=record_id,
            actor_id=actor_id,
            ceiling=ceiling,
            scopes=sorted(scopes) if scopes is not None else None,
            attempts=0,
            next_attempt_at=now,
            status="pending",
            created_at=now,
        ),
    )
