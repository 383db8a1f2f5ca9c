"""An index on the episodes alone: (scope, created_at, id) WHERE type = 'episodic'.

A query retrieve looks up the episodes captured just before and after each of its best
hits (app/retrieve/neighbour_repository.py): an all-scope retrieve walks, for 20 hits,
three places on each side. Through (scope, created_at, id), which holds every type, each
place walked was read from the table to see whether it is an episode; this index holds
only episodes, so a walk reads the index alone. On SQLite at 2,000 LoCoMo records the
look-up statement fell from 7.6 to 5.2 M instructions (DESIGN.md §9). The latest episode
of a scope, which capture reads, is found the same way. Writing an episode adds one
entry to it; records of other types are not in it.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-29
"""

from __future__ import annotations

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

INDEX = "ix_records_episodes"


def upgrade() -> None:
    op.execute(
        f"CREATE INDEX {INDEX} ON records (scope, created_at, id) WHERE type = 'episodic'"
    )
    if op.get_bind().dialect.name == "sqlite":
        # SQLite's planner weighs a new index by statistics: without them it could keep
        # walking the older index (ANALYZE on a large store reads a sample, analysis_limit).
        op.execute("PRAGMA analysis_limit=1000")
        op.execute(f"ANALYZE {INDEX}")


def downgrade() -> None:
    op.execute(f"DROP INDEX IF EXISTS {INDEX}")
