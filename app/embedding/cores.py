"""How many cores this process may use: its CPU affinity, capped by its container's CPU
limit (cgroup v2 `cpu.max`). os.cpu_count() counts the machine's cores, so a pod limited
to 2 CPUs on a 64-core node would start 64 embedding lanes and be throttled."""

from __future__ import annotations

import math
import os
from pathlib import Path

CGROUP_CPU_MAX = Path("/sys/fs/cgroup/cpu.max")


def cpu_limit(cpu_max: str) -> float | None:
    """The CPUs a cgroup v2 `cpu.max` line grants ("200000 100000" → 2.0); None for no
    limit ("max 100000") or a line that is not one (pure)."""
    fields = cpu_max.split()
    if len(fields) != 2 or fields[0] == "max":
        return None
    try:
        quota, period = int(fields[0]), int(fields[1])
    except ValueError:
        return None
    return quota / period if quota > 0 and period > 0 else None


def available_cores() -> int:
    """The cores this process may run on, at least 1."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    try:
        limit = cpu_limit(CGROUP_CPU_MAX.read_text())
    except OSError:  # no cgroup v2 (macOS, cgroup v1): the affinity alone
        limit = None
    if limit is not None:
        cores = min(cores or 1, math.ceil(limit))
    return max(1, cores or 1)
