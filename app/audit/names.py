"""The original Membrane's audit actions and this service's, side by side (pure).

The original names seven actions: create, revise, fork, merge, delete, reinforce, decay.
This service records finer ones (a supersede, a retract and a contest are all the
original's `revise`; a prune is a `delete` by the decay job; a penalty lowers salience as
decay does). Stored entries keep this service's names (filters, exports and the metrics
read them); `policy.seed_audit_action_names` shows the original's names in audit views.
Actions the original has no word for (consolidation and interpretation marks) keep
theirs."""

from __future__ import annotations

SEED_ACTIONS = ("create", "revise", "fork", "merge", "delete", "reinforce", "decay")

SEED_NAME = {
    "create": "create",
    "outcome": "revise",
    "supersede": "revise",
    "retract": "revise",
    "contest": "revise",
    "pin": "revise",
    "unpin": "revise",
    "fork": "fork",
    "merge": "merge",
    "delete": "delete",
    "prune": "delete",
    "reinforce": "reinforce",
    "penalize": "decay",
}


def seed_name(action: str) -> str:
    """The original's name for `action` (itself where the original has none)."""
    return SEED_NAME.get(action, action)
