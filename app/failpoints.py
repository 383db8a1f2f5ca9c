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
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger("membrane.failpoints")

COMPRESSION_UNCOMMITTED = "consolidation.compression_uncommitted"
COMPRESSION_COMMITTED = "consolidation.compression_committed"
# Inside the transaction of a batch of the semantic stage / of the competence and plan
# graph stages, every row of the batch written, not yet committed.
SEMANTIC_BATCH_UNCOMMITTED = "consolidation.semantic_batch_uncommitted"
FOLD_BATCH_UNCOMMITTED = "consolidation.fold_batch_uncommitted"

_POINTS = frozenset(
    {
        COMPRESSION_UNCOMMITTED,
        COMPRESSION_COMMITTED,
        SEMANTIC_BATCH_UNCOMMITTED,
        FOLD_BATCH_UNCOMMITTED,
    }
)


def _parsed(value: str) -> tuple[str, str, int]:
    """(point, marker file, nth) of a MEMBRANE_FAILPOINT value; ("", "", 0) when unset.
    A value that names no point, no file or no positive nth stops the process at start
    (a test then reads why in its log) instead of arming nothing."""
    if not value:
        return "", "", 0
    name, _, where = value.partition(":")
    marker, nth = where, "1"
    head, _, tail = where.rpartition(":")
    if head and tail.isdigit():
        marker, nth = head, tail
    if name not in _POINTS or not marker or int(nth) < 1:
        raise ValueError(f"MEMBRANE_FAILPOINT={value!r}: expected <point>:<file>[:<nth>]")
    log.warning("fail point %s armed: this process will hold still there (tests only)", name)
    return name, marker, int(nth)


_ARMED, _MARKER, _NTH = _parsed(os.environ.get("MEMBRANE_FAILPOINT", ""))
_reached = itertools.count(1)
_counting = threading.Lock()


def reach(name: str, before: Callable[[], object] | None = None) -> None:
    """Block here for good when `name` is armed and this is its nth arrival: first
    `before` (a caller inside a transaction passes its flush, so that the rows its commit
    would send are written), then the marker file says so."""
    if name != _ARMED:
        return
    with _counting:
        if next(_reached) != _NTH:
            return
    if before is not None:
        before()
    Path(_MARKER).write_text(name, encoding="utf-8")
    while True:  # until the test kills the process
        time.sleep(3600)
