"""records gains `occurred_at`: an episode's event time, stored when it is written.

Ranking reads every candidate's event time (sittings, and the context of neighbouring
episodes): until now the first timeline event's `t`, extracted from the payload's JSON on
every read and parsed in Python. SQLite's JSON extraction was ~1.4 µs a row, and an
all-scope retrieve reads 500-600 candidate headers (~0.8 ms of its ~15 ms).

The column holds, for an episodic record, what that extraction gives: the first timeline
event's time as epoch seconds, or the record's capture time when the timeline gives none
(`app/records/event_time.occurred_at`); NULL for every other type, and NULL where it is
not known: the headers read the payload's JSON for an episodic row whose column is NULL,
as before, so a row written by the previous release while this one rolls out, or a
payload rewritten (`set_payload`, which clears the column), ranks exactly as it did.

The existing episodes are filled here, in batches: their first event's text is read in
SQL and parsed in Python (the same parser the headers use). This rewrites every episodic
row once: 100,000 episodes took 1.5 s on SQLite and 4.3 s on PostgreSQL (two shared
cores), so about a minute a million; no index covers the column, so on PostgreSQL most
new row versions can stay on their page (HOT updates).

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from app.clock import epoch_of

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

BATCH = 5_000


def upgrade() -> None:
    op.add_column("records", sa.Column("occurred_at", sa.Double(), nullable=True))
    bind = op.get_bind()
    first_event = (  # the text the headers read (a JSON string's value; SQLite: as stored)
        "payload -> 'timeline' -> 0 ->> 't'"
        if bind.dialect.name == "postgresql"
        else "json_extract(payload, '$.timeline[0].t')"
    )
    pick = sa.text(
        f"SELECT id, {first_event}, created_at FROM records "
        "WHERE type = 'episodic' AND occurred_at IS NULL AND id > :after ORDER BY id LIMIT :n"
    )
    fill = sa.text("UPDATE records SET occurred_at = :at WHERE id = :id")
    after = ""
    while rows := bind.execute(pick, {"after": after, "n": BATCH}).all():
        bind.execute(fill, [{"id": rid, "at": _time(text, created)} for rid, text, created in rows])
        after = rows[-1][0]


def _time(first_event: object, created_at: float) -> float:
    """`app.records.event_time.occurred_at` of an episode, from its first event's `t`."""
    at = epoch_of(first_event)
    return created_at if at is None else at


def downgrade() -> None:
    op.drop_column("records", "occurred_at")
