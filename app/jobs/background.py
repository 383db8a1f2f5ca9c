"""Start/stop of the scheduler (decay+prune, consolidation). Filled in by its issue."""

from __future__ import annotations

from app.deps import AppState


def start(state: AppState) -> None:
    """Start background jobs for this process (no-op until implemented)."""


def stop(state: AppState) -> None:
    """Stop background jobs (no-op until implemented)."""
