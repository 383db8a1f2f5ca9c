"""An episode is also found by the question it answers.

In a conversation or a work session, a reply's meaning lives partly in the question
before it: "Super good, rich and creamy!" answers "How was the coconut ice cream you
made?", and "Counter-Strike, mostly" answers "What do you play?". Capture therefore
adds the questions of the episode just before a new one (the last live episodic record
of its scope, if it lies in the same sitting) to the new episode's search text, as
document expansion: full-text search then finds the reply by the question's words, and
its vector of the whole text leans toward them. The reply's payload is unchanged.

Only the previous record's own words are borrowed (never what it borrowed itself), and
only from a record no more sensitive than the new one, so no word reaches a reader
through a record that reader could not otherwise see. Measured on LoCoMo dev (DESIGN.md
§8)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from app import clock
from app.enums import MemoryType
from app.models import RecordRow
from app.records import repository as record_repo
from app.records.search_text import MAX_SEARCH_CHARS, passage_text, questions_asked
from app.retrieve.sittings import SITTING_WINDOW_S


@dataclass(frozen=True)
class _Episode:
    """What the next episode needs of the one before it."""

    payload: dict[str, Any]
    sensitivity: int
    created_at: float


class QuestionsBefore:
    """Per capture request (a batch captures many episodes of one scope in order, and
    writes them only at its end): the episodes it captured so far, by scope, so each
    finds the one before it whether it is stored or staged."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.captured: dict[str | None, list[RecordRow]] = {}

    def add_to(self, episode: RecordRow) -> None:
        """Add the questions the episode before `episode` asked to its search text, then
        remember `episode` as the last of its scope."""
        previous = self._before(episode.scope)
        if previous is not None and _answers(_episode(episode), previous):
            asked = questions_asked(passage_text(MemoryType.episodic.value, previous.payload))
            if asked:
                episode.search_text = f"{episode.search_text} {asked}"[:MAX_SEARCH_CHARS]
        self.captured.setdefault(episode.scope, []).append(episode)

    def forget(self, rows: list[object]) -> None:
        """Rows of a refused batch item were dropped: they precede nothing."""
        dropped = {id(row) for row in rows}
        for episodes in self.captured.values():
            episodes[:] = [e for e in episodes if id(e) not in dropped]

    def _before(self, scope: str | None) -> _Episode | None:
        staged = self.captured.get(scope)
        if staged:
            return _episode(staged[-1])
        stored = record_repo.latest_episode(self.session, scope)
        return _Episode(stored[0] or {}, stored[1], stored[2]) if stored is not None else None


def _episode(row: RecordRow) -> _Episode:
    return _Episode(row.payload or {}, row.sensitivity, row.created_at)


def _answers(episode: _Episode, previous: _Episode) -> bool:
    """Whether `episode` may answer `previous`: an episode of the same sitting (event
    times within SITTING_WINDOW_S) that is at least as sensitive."""
    if previous.sensitivity > episode.sensitivity:
        return False
    return abs(_event_time(episode) - _event_time(previous)) <= SITTING_WINDOW_S


def _event_time(episode: _Episode) -> float:
    """The first timeline event's time, or the capture time when the capture gave none."""
    timeline = episode.payload.get("timeline") or [{}]
    occurred = clock.epoch_of(timeline[0].get("t"))
    return episode.created_at if occurred is None else occurred
