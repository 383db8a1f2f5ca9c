"""An index on entity terms alone, for retrieval across every scope.

Retrieve looks up which entity names a query spells out (app/entities/repository.py
`matching_terms`). With a scope the (scope, term) index serves; across every scope (a
principal with no scope list, no scopes in the request) nothing did, and the lookup read
every entity term: ~7 ms a retrieve at 70,000 entities. PostgreSQL gets a hash index (a
term may be longer than a btree entry may be), SQLite a btree.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""

from __future__ import annotations

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

INDEX = "ix_entity_terms_term"


def upgrade() -> None:
    using = "USING hash " if op.get_bind().dialect.name == "postgresql" else ""
    op.execute(f"CREATE INDEX {INDEX} ON entity_terms {using}(term)")


def downgrade() -> None:
    op.execute(f"DROP INDEX IF EXISTS {INDEX}")
