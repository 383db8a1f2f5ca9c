"""Whether SQLite's planner statistics (`sqlite_stat1`, written by ANALYZE) still describe
the records table. SQLite has no autoanalyze: statistics taken at start-up on an empty or
small store describe it until the next decay sweep (an hour by default), and a store
filled meanwhile ran its retrieves on plans made for a few rows (a one-scope query
retrieve at 2,000 records: ~10 ms instead of ~7.8 in process)."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from app.db import dialect_of

# Statistics are taken again once the records table holds more than GROWTH times the rows
# they were taken over (and at least MIN_ROWS): a handful of ANALYZE runs over a store's
# life, each cheap (bounded by `analysis_limit`, Database.refresh_planner_stats).
GROWTH = 2
MIN_ROWS = 500

_HIGHEST = text("SELECT coalesce(max(rowid), 0) FROM records")
_DESCRIBED = text("SELECT stat FROM sqlite_stat1 WHERE tbl = 'records' AND idx IS NOT NULL LIMIT 1")


def planner_stats_stale(session: Session) -> bool:
    """SQLite: whether the records table has outgrown its statistics (or has none); always
    False on PostgreSQL, whose autovacuum analyzes on its own."""
    if dialect_of(session) != "sqlite":
        return False
    highest = int(session.execute(_HIGHEST).scalar_one())  # rows ever written: an upper bound
    try:
        stat = session.execute(_DESCRIBED).scalar()
    except OperationalError:  # no sqlite_stat1 yet: never analyzed
        stat = None
    described = int(str(stat).split()[0]) if stat else 0
    return highest >= MIN_ROWS and highest > GROWTH * described
