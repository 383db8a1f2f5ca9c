"""PostgreSQL: keep the full-text index's pending list short (gin_pending_list_limit 64 kB).

A GIN index with fastupdate (the default) puts new entries in an unsorted pending list
and merges them into the index once the list passes gin_pending_list_limit (4 MB by
default). Every search reads the whole list: on the million-record store of
bench/scale.py the loader left 396 pending pages, and each lexeme looked up in
`search_tsv` cost ~3 ms instead of ~0.2 ms (a retrieve looks up the query's rare
lexemes and, across all scopes, selects its matches through the index). Captures keep
refilling the list, so a live store pays about half of that on average. With 64 kB
(the smallest limit) a search reads at most eight pending pages; batch capture into
that store ran at the same rate with the limit at 64 kB, 256 kB, 4 MB and with
fastupdate off (DESIGN.md §9). The list left by earlier writes is merged here (about
0.15 s for 396 pages).

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

INDEX = "ix_records_search_tsv"


def _postgres_index() -> bool:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return False
    return bind.execute(sa.text(f"SELECT to_regclass('{INDEX}')")).scalar() is not None


def upgrade() -> None:
    if _postgres_index():
        op.execute(f"ALTER INDEX {INDEX} SET (gin_pending_list_limit = 64)")
        op.execute(f"SELECT gin_clean_pending_list('{INDEX}'::regclass)")


def downgrade() -> None:
    if _postgres_index():
        op.execute(f"ALTER INDEX {INDEX} RESET (gin_pending_list_limit)")
