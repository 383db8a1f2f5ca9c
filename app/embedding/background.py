"""Start/stop of the embedding provider and its queue worker. Filled in by its issue."""

from __future__ import annotations

from app.deps import AppState


def start(state: AppState) -> None:
    """Check/pin the embedding model and start the worker (no-op until implemented)."""


def stop(state: AppState) -> None:
    """Stop the embedding worker (no-op until implemented)."""
