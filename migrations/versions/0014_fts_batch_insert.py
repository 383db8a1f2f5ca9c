"""SQLite full text: a batch's records enter the index in one statement.

The trigger that indexes each new record (records_fts_ai) runs its FTS5 insert as a
nested statement, and FTS5 writes its pending terms to disk at every statement boundary
inside a transaction: a multi-row INSERT of 100 records wrote 100 one-record segments
(6-7 ms, 85 % of the INSERT) for the index to merge later. A batch now marks itself in
`fts_deferred` (the row holds the records' highest rowid before the batch; it exists only
inside the writing transaction, so no other connection ever sees it), the trigger stands
aside while the mark is there, and the batch indexes its records with one INSERT ... SELECT
(one segment; app/records/repository.py `insert_staged`). Every other write of a record
is indexed by the trigger as before. PostgreSQL needs nothing: search_tsv is a column.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-04
"""

from __future__ import annotations

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

_COLUMNS = "search_text, scope_key"
_NEW_VALUES = "new.search_text, 'x' || replace(replace(hex(coalesce(new.scope, '')), 'E', 'G'), 'D', 'H')"


def _insert_trigger(when: str) -> None:
    op.execute("DROP TRIGGER IF EXISTS records_fts_ai")
    op.execute(
        f"CREATE TRIGGER records_fts_ai AFTER INSERT ON records {when}BEGIN "
        f"INSERT INTO records_fts(rowid, {_COLUMNS}) VALUES (new.rowid, {_NEW_VALUES}); END"
    )


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    op.execute("CREATE TABLE fts_deferred (after_rowid INTEGER NOT NULL)")
    _insert_trigger("WHEN NOT EXISTS (SELECT 1 FROM fts_deferred) ")


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    _insert_trigger("")
    op.execute("DROP TABLE IF EXISTS fts_deferred")
