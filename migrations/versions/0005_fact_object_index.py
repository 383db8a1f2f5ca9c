"""An index on semantic facts' object text, for consolidation's duplicate check.

Every fact a consolidation stage promotes is first looked up by (subject, predicate,
object) in its scope and sensitivity (app/consolidation/repository.same_fact). Without an
index that lookup read every semantic record of the scope: 40–50 ms a fact at 50,000
records. The object is the most selective part of a fact (an event kind is the subject
of thousands of structural facts). PostgreSQL gets a hash index (an object can be longer
than a btree entry may be); SQLite indexes the same expression the query uses. Both are
partial (semantic records only); the query spells `type = 'semantic'` as a literal so both
planners can prove the index applies.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from __future__ import annotations

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

INDEX = "ix_records_fact_object"
# Partial: only facts are indexed (no write cost on other records), and the index's own
# statistics then describe facts alone — with the whole table's, SQLite's planner saw one
# NULL object per episode and preferred a scope or type scan.
SEMANTIC = "WHERE type = 'semantic'"


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            f"CREATE INDEX {INDEX} ON records USING hash ((payload ->> 'object')) {SEMANTIC}"
        )
    else:
        op.execute(f"CREATE INDEX {INDEX} ON records (json_extract(payload, '$.object')) {SEMANTIC}")


def downgrade() -> None:
    op.execute(f"DROP INDEX IF EXISTS {INDEX}")
