"""An index on semantic facts' (scope, subject, predicate), for contradictions.

When capture, LLM interpretation or consolidation creates a fact, the active facts of
its scope with the same subject and predicate are looked up
(app/records/fact_repository.active_facts); without an index that read every semantic
record of the scope. PostgreSQL indexes the md5 of subject and predicate (a subject can be
longer than a btree entry may be); SQLite the JSON paths themselves. Both are partial
(semantic records only), as 0005's index is.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02
"""

from __future__ import annotations

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

INDEX = "ix_records_fact_key"
SEMANTIC = "WHERE type = 'semantic'"


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            f"CREATE INDEX {INDEX} ON records (scope, md5(payload ->> 'subject'), "
            f"md5(payload ->> 'predicate')) {SEMANTIC}"
        )
    else:
        op.execute(
            f"CREATE INDEX {INDEX} ON records (scope, json_extract(payload, '$.subject'), "
            f"json_extract(payload, '$.predicate')) {SEMANTIC}"
        )


def downgrade() -> None:
    op.execute(f"DROP INDEX IF EXISTS {INDEX}")
