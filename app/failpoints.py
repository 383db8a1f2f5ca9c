"""Fail points: named places inside long write paths where a fault test can hold the
service still, so that the SIGKILL it sends lands at a known moment instead of a random
one (a random moment made the test depend on how fast the machine ran the work).

Armed only by `MEMBRANE_FAILPOINT=<name>:<file>` in the environment of the process at
start, which tests/test_faults.py sets for a service it is about to kill. Reaching the
armed point writes `<file>` (its name inside) and then blocks that thread for good,
holding whatever transaction it has open. Unarmed, `reach` compares two strings."""

from __future__ import annotations

import os
import time
from pathlib import Path

COMPRESSION_UNCOMMITTED = "consolidation.compression_uncommitted"
COMPRESSION_COMMITTED = "consolidation.compression_committed"

_ARMED, _, _MARKER = os.environ.get("MEMBRANE_FAILPOINT", "").partition(":")


def reach(name: str) -> None:
    """Block here for good, after saying so in the marker file, when `name` is armed."""
    if name != _ARMED:
        return
    Path(_MARKER).write_text(name, encoding="utf-8")
    while True:  # until the test kills the process
        time.sleep(3600)
