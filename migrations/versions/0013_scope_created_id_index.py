"""The records' (scope, created_at) index gains id: (scope, created_at, id).

A retrieve looks up the episodes captured just before and after each of its best hits
(app/retrieve/neighbour_repository.py): the nearest in (created_at, id) order within the
hit's scope. With id outside the index, PostgreSQL read every episode of the scope on one
side of the hit and sorted them for each look-up (120 look-ups a retrieve: 6 ms at 200
records a scope, growing with the scope); with it, each look-up walks the index from the
hit and stops at the first row. The wider index serves every use of the old one (scope
listings newest first, the latest episode of a scope, scope sizes), which is dropped.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03
"""

from __future__ import annotations

from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_records_scope_created_id", "records", ["scope", "created_at", "id"])
    op.drop_index("ix_records_scope_created", table_name="records")


def downgrade() -> None:
    op.create_index("ix_records_scope_created", "records", ["scope", "created_at"])
    op.drop_index("ix_records_scope_created_id", table_name="records")
