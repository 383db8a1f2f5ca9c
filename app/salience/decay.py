"""The decay formula, as the salience domain publishes it. The math itself lives in
`app/decay_math.py` (no domain), so the tables can use it without importing a domain."""

from __future__ import annotations

from app.decay_math import LN2 as LN2
from app.decay_math import LN_SMALLEST as LN_SMALLEST
from app.decay_math import PRUNE_THRESHOLD as PRUNE_THRESHOLD
from app.decay_math import current_salience as current_salience
from app.decay_math import decay_factor_log as decay_factor_log
from app.decay_math import decayed as decayed
from app.decay_math import penalized as penalized
from app.decay_math import reinforced as reinforced
