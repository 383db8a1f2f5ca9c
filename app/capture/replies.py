"""An episode is also found by the question it answers.

In a conversation or a work session, a reply's meaning lives partly in the question
before it: "Super good, rich and creamy!" answers "How was the coconut ice cream you
made?", and "Counter-Strike, mostly" answers "What do you play?". Capture therefore
adds the questions of the episode just before a new one (the last live episodic record
of its scope, if it lies in the same sitting) to the new episode's search text, as
document expansion: full-text search then finds the reply by the question's words, and
its vector of the whole text leans toward them. The reply's payload is unchanged.

Only the previous record's own words are borrowed (never what it borrowed itself), only
from a record no more sensitive than the new one (so no word reaches a reader through a
record that reader could not otherwise see), and only forward in time. The new episode's
interpretation names the record it borrowed from (`questions_from`), so deleting a
question can find the replies that carry its words. Measured on LoCoMo dev (DESIGN.md
§8)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.capture import episodes_repository
from app.enums import MemoryType
from app.models import RecordRow
from app.records.event_time import first_event_time
from app.records.payload_json import StoredJson
from app.records.search_text import MAX_SEARCH_CHARS, own_texts, questions_asked
from app.retrieve.sittings import SITTING_WINDOW_S


@dataclass(frozen=True)
class _Episode:
    """What the next episode needs of the one before it."""

    id: str
    payload: StoredJson
    sensitivity: int
    created_at: float


class QuestionsBefore:
    """Per capture request (a batch captures many episodes of one scope in order, and
    writes them only at its end): the episodes it captured so far, by scope, so each
    finds the one before it whether it is stored or staged."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.captured: dict[str, list[RecordRow]] = {}
        # The stored latest episode of each scope looked up beforehand (`prefetch`), None
        # where the scope held none; other scopes are looked up one at a time.
        self.stored: dict[str, _Episode | None] = {}

    def prefetch(self, scopes: list[str]) -> None:
        """Look up the latest stored episode of each of `scopes` at once (a batch, before
        it writes any of its own: each later finds its scope's previous episode among
        the staged ones)."""
        found = episodes_repository.latest_episodes(self.session, scopes)
        for scope in scopes:
            stored = found.get(scope)
            self.stored[scope] = _stored(stored) if stored is not None else None

    def add_to(self, episode: RecordRow) -> None:
        """Add the questions the episode before `episode` asked to its search text (and
        name that episode in its interpretation, `questions_from`), then remember
        `episode` as the last of its scope. Unscoped episodes are left alone: records of
        every agent share the unscoped space, so the one before is seldom the one asked."""
        if episode.scope is None:
            return
        previous = self._before(episode.scope, episode.id)
        if previous is not None and _answers(_episode(episode), previous):
            asked = questions_asked(*own_texts(MemoryType.episodic.value, previous.payload))
            if asked:
                episode.search_text = f"{episode.search_text} {asked}"[:MAX_SEARCH_CHARS]
                episode.interpretation = {**episode.interpretation, "questions_from": previous.id}
        self.captured.setdefault(episode.scope, []).append(episode)

    def forget(self, rows: list[object]) -> None:
        """Rows of a refused batch item were dropped: they precede nothing."""
        dropped = {id(row) for row in rows}
        for episodes in self.captured.values():
            episodes[:] = [e for e in episodes if id(e) not in dropped]

    def _before(self, scope: str, episode_id: str) -> _Episode | None:
        staged = self.captured.get(scope)
        if staged:
            return _episode(staged[-1])
        if scope in self.stored:
            return self.stored[scope]
        stored = episodes_repository.latest_episode(self.session, scope, other_than=episode_id)
        return _stored(stored) if stored is not None else None


def _stored(found: episodes_repository.Episode) -> _Episode:
    record_id, payload, sensitivity, created_at = found
    return _Episode(record_id, payload or {}, sensitivity, created_at)


def _episode(row: RecordRow) -> _Episode:
    return _Episode(row.id, row.payload or {}, row.sensitivity, row.created_at)


def _answers(episode: _Episode, previous: _Episode) -> bool:
    """Whether `episode` may answer `previous`: an episode of the same sitting that
    happened at the same time or after it (within SITTING_WINDOW_S), and is at least as
    sensitive."""
    if previous.sensitivity > episode.sensitivity:
        return False
    return 0 <= _event_time(episode) - _event_time(previous) <= SITTING_WINDOW_S


def _event_time(episode: _Episode) -> float:
    """When the episode happened, as ranking reads it (`records.event_time`: the first
    timeline event's time, or the capture time when the capture gave none)."""
    return first_event_time(episode.payload, episode.created_at)
