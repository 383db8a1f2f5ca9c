"""Membrane.

OpenBLAS (numpy's) runs one thread here unless the environment says otherwise: the
service's matrix products are one query vector against a scope's vectors, memory-bound
and short, and OpenBLAS's extra threads then spin idle after each one. On two cores that
spin burned about 30 ms of CPU per all-scopes retrieve (bench/latency.py: 56 -> 26 ms),
taken from the requests beside it. Set before numpy is first imported.
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
