"""Vectors are stored and compared at unit length, so cosine similarity is a dot product."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def unit_vector(vec: Sequence[float]) -> np.ndarray:
    arr = np.asarray(vec, dtype=np.float32)
    norm = float(np.linalg.norm(arr))
    return arr / norm if norm > 0 else arr
