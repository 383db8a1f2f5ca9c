"""Lifecycle: leave free space in the records heap on PostgreSQL (fillfactor 70).

The records table is update-heavy (decay sweep refreshing salience_swept, reinforce,
penalize, pin). None of those columns is indexed, so PostgreSQL can apply them as HOT
updates (no index maintenance) when the row's page has room for the new version. With
the default fillfactor 100 freshly loaded pages are full and every such update also
writes all seven index entries: a sweep over 1M freshly loaded records took ~77 s
instead of ~37 s. The setting applies to pages written from now on; an existing large
table can be rewritten with `VACUUM FULL records` (or pg_repack) in a quiet hour.
SQLite has no equivalent; nothing changes there.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

RECORDS_FILLFACTOR = 70


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"ALTER TABLE records SET (fillfactor = {RECORDS_FILLFACTOR})")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE records RESET (fillfactor)")
