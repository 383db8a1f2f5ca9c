"""Fail points: named places inside long write paths where a fault test can hold the
service still, so that the SIGKILL it sends lands at a known moment instead of a random
one (a random moment made the test depend on how fast the machine ran the work).

Armed only by `MEMBRANE_FAILPOINT=<name>:<file>[:<nth>]` in the environment of the
process at start, which tests/test_faults.py and tests/test_consolidation_kill.py set for
a process they are about to kill. Reaching the armed point the nth time (the first by
default) writes `<file>` (its name inside) and then blocks that thread for good, holding
whatever transaction it has open. Unarmed, `reach` compares two strings."""

from __future__ import annotations

import itertools
import os
import threading
import time
from pathlib import Path

COMPRESSION_UNCOMMITTED = "consolidation.compression_uncommitted"
COMPRESSION_COMMITTED = "consolidation.compression_committed"
# Inside the transaction of a batch of the semantic stage / of the competence and plan
# graph stages, every row of the batch written, not yet committed.
SEMANTIC_BATCH_UNCOMMITTED = "consolidation.semantic_batch_uncommitted"
FOLD_BATCH_UNCOMMITTED = "consolidation.fold_batch_uncommitted"

_ARMED, _, _WHERE = os.environ.get("MEMBRANE_FAILPOINT", "").partition(":")
_MARKER, _, _NTH = _WHERE.partition(":")
_reached = itertools.count(1)
_counting = threading.Lock()


def armed(name: str) -> bool:
    """Whether `name` is the armed point (a caller may prepare its moment first)."""
    return name == _ARMED


def reach(name: str) -> None:
    """Block here for good, after saying so in the marker file, when `name` is armed and
    this is its nth arrival."""
    if name != _ARMED:
        return
    with _counting:
        if next(_reached) != int(_NTH or 1):
            return
    Path(_MARKER).write_text(name, encoding="utf-8")
    while True:  # until the test kills the process
        time.sleep(3600)
