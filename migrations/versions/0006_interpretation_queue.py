"""Interpretation queue: captured records waiting for LLM interpretation (app/interpret),
with the capturer's actor, ceiling rank and scopes at capture time, attempts and the time
of the next attempt.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "interpretation_queue",
        sa.Column(
            "record_id",
            sa.String(36),
            sa.ForeignKey("records.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("actor_id", sa.String(256), nullable=False),
        sa.Column("ceiling", sa.SmallInteger(), nullable=False),
        sa.Column("scopes", JSON, nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.Double(), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
    )
    op.create_index("ix_interpretation_queue_due", "interpretation_queue", ["next_attempt_at"])


def downgrade() -> None:
    op.drop_index("ix_interpretation_queue_due", table_name="interpretation_queue")
    op.drop_table("interpretation_queue")
