"""Embedding leases: a record's batch is held by the worker that claimed it until its
lease runs out, so several `python -m app.worker` replicas embed different batches
instead of all taking the oldest one.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "embedding_leases",
        sa.Column(
            "record_id",
            sa.String(36),
            sa.ForeignKey("records.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("until", sa.Double(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("embedding_leases")
