"""The decay + prune sweep (DESIGN §5): set-based SQL, one short transaction per slice.

Decay itself needs no writes: reads compute current salience from (s0, t0) and the clock,
so sweeping every minute or once a day gives the same answer. The sweep (1) prunes what
has faded away, leaving an audit tombstone per pruned record, and (2) refreshes the
informative `salience_swept` column where it drifted by more than SWEEP_TOLERANCE, which
keeps the writes of an hourly sweep to the records that actually changed. A sweep is
recorded once, as a job run, never as per-record audit entries.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from app import clock
from app.db import Database
from app.sweep import repository as sweep_repo

SWEEP_ACTOR = "system:decay"
# salience_swept stays within this distance of the true value as of the last sweep.
SWEEP_TOLERANCE = 1e-3


@dataclass
class SweepResult:
    swept: int = 0  # rows whose salience_swept was refreshed
    pruned: int = 0
    batches: int = 0

    def counts(self) -> dict[str, int]:
        return asdict(self)


def run_sweep(
    db: Database,
    *,
    now: float | None = None,
    batch_size: int = 20_000,
    tolerance: float = SWEEP_TOLERANCE,
) -> SweepResult:
    """Sweep the whole table as of one instant `now`."""
    now = clock.now() if now is None else now
    with db.transaction() as session:
        parts = sweep_repo.slices(session, batch_size)
    result = SweepResult()
    for part in parts:
        with db.transaction() as session:
            result.pruned += sweep_repo.prune_slice(session, part, now, SWEEP_ACTOR)
            result.swept += sweep_repo.sweep_slice(session, part, now, tolerance)
        result.batches += 1
    db.refresh_planner_stats()
    return result
