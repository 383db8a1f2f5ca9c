"""LLM interpretation at capture: the queue worker.

Off by default; on with MEMBRANE_LLM__CAPTURE_INTERPRETATION=true and MEMBRANE_LLM__BASE_URL
set (the same OpenAI-compatible chat endpoint consolidation uses). The capture request
never waits on the model: a remote call must never hold a write transaction (on SQLite a
write turn is process-wide). Capture stores the record with the rule-based
interpretation, sets `interpretation.llm = {"status": "pending"}` and queues the record
(table `interpretation_queue`) with the capturer's actor, ceiling rank and scopes;
batch capture and the /v1/ingest endpoints queue the same way.

This worker runs where the embedding worker runs — a thread of the API process in
`in_process` mode, else of `python -m app.worker` — under the same start/stop lifecycle.
Per item: a short transaction claims it (one attempt; on PostgreSQL `FOR UPDATE SKIP
LOCKED`, so several worker processes share the queue) and snapshots the record; the
model is asked with no transaction open (`llm.capture_timeout_s` per call, the client's
own retries on 429/5xx/timeouts); the answer is parsed defensively (app/interpret/parse.py)
and what it adds is written in one transaction (app/interpret/service.py): new
`mentions_entity` edges (entities it names, resolved only among those the capturer could
read, created when unknown), its facts as semantic records derived from the record, the
record's `interpretation.llm` (status done, what was added) and an audit entry
`interpret:llm`. A record deleted meanwhile takes its item with it; a retracted one, or
one without text, is `skipped`. A failed call, an unusable answer or a failed write
changes nothing but the item: it is retried after 30 s, 60 s, … (at most an hour), and
after `llm.max_attempts` attempts it is given up: `interpretation.llm.status = failed`
with the reason, and an audit entry. One call at a time per worker.
"""

from __future__ import annotations

import logging
import threading

from app import clock
from app.config import LLMSettings, Settings
from app.db import Database
from app.interpret import repository as queue_repo
from app.interpret import service
from app.interpret.parse import parse_answer
from app.llm.client import MAX_BACKOFF_S, ChatClient, LLMError
from app.records.policy import PolicyEngine

log = logging.getLogger("membrane.interpret")
POLL_S = 0.5  # idle wait between looks at the queue
MAX_BACKOFF_STEPS = 6  # POLL_S · 2^6 at most after repeated worker failures
DRAIN_LIMIT = 10_000


def enabled(cfg: LLMSettings) -> bool:
    return cfg.capture_interpretation and bool(cfg.capture_base_url or cfg.base_url)


def chat_client(cfg: LLMSettings) -> ChatClient:
    """The chat client of capture interpretation: `capture_timeout_s` per call."""
    return ChatClient.from_settings(cfg.model_copy(update={"timeout_s": cfg.capture_timeout_s}))


def lease_s(cfg: LLMSettings) -> float:
    """How long a claimed item is held: longer than any one call with its retries (each
    attempt is bounded by about three timeouts: connect, headers, body)."""
    return 60.0 + (cfg.max_retries + 1) * (3 * cfg.capture_timeout_s + MAX_BACKOFF_S)


def interpret_next(
    db: Database,
    policy: PolicyEngine,
    cfg: LLMSettings,
    chat: ChatClient,
    *,
    now: float | None = None,
) -> bool:
    """Interpret the item due longest; False when none is due. `now`: the time to run at
    (tests); otherwise the clock."""
    with db.read_transaction() as session:  # idle looks never take SQLite's write turn
        if not queue_repo.any_due(session, _at(now)):
            return False
    with db.transaction() as session:
        job = service.claim(session, _at(now), lease_s(cfg))
    if job is None:
        return False
    if job.skip is not None:
        with db.transaction() as session:
            service.skip(session, job, now=_at(now))
        return True
    try:
        answer = chat.complete(job.messages, max_tokens=cfg.max_output_tokens)
    except LLMError as exc:
        log.warning("LLM interpretation of %s failed (%s): %s", job.record_id, exc.reason, exc)
        _retry_or_fail(db, cfg, job, exc.reason, now)
        return True
    reading = parse_answer(answer.text, max_chars=cfg.max_answer_chars)
    if reading.error is not None:
        log.warning("LLM interpretation of %s unusable: %s", job.record_id, reading.error)
        _retry_or_fail(db, cfg, job, reading.error, now)
        return True
    try:
        with db.transaction() as session:
            service.apply(session, policy, job, reading, model=cfg.model, now=_at(now))
    except Exception as exc:  # nothing of it was written; the item is tried again
        log.exception("LLM interpretation of %s could not be stored", job.record_id)
        _retry_or_fail(db, cfg, job, f"store_error: {type(exc).__name__}", now)
    return True


def drain(
    db: Database,
    policy: PolicyEngine,
    cfg: LLMSettings,
    chat: ChatClient,
    *,
    now: float | None = None,
    limit: int = DRAIN_LIMIT,
) -> int:
    """Interpret every item due (at `now`), one after the other; returns how many."""
    done = 0
    while done < limit and interpret_next(db, policy, cfg, chat, now=now):
        done += 1
    return done


def _retry_or_fail(
    db: Database, cfg: LLMSettings, job: service.Job, reason: str, now: float | None
) -> None:
    with db.transaction() as session:
        outcome = service.retry_or_fail(
            session, job, reason, now=_at(now), max_attempts=cfg.max_attempts
        )
    if outcome == "failed":
        log.warning("LLM interpretation of %s given up: %s", job.record_id, reason)


def _at(now: float | None) -> float:
    return clock.now() if now is None else now


class InterpretationWorker:
    """A daemon thread draining the queue; looks every POLL_S when it is empty."""

    def __init__(self, db: Database, policy: PolicyEngine, cfg: LLMSettings) -> None:
        self.db = db
        self.policy = policy
        self.cfg = cfg
        self.chat = chat_client(cfg)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def start(cls, db: Database, settings: Settings) -> InterpretationWorker | None:
        """The running worker, or None when interpretation at capture is off."""
        if not enabled(settings.llm):
            return None
        worker = cls(db, PolicyEngine(settings), settings.llm.for_capture())
        worker._thread = threading.Thread(
            target=worker._run, name="membrane-interpretation", daemon=True
        )
        worker._thread.start()
        return worker

    def stop(self, timeout: float = 30.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self.chat.close()

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            try:
                busy = interpret_next(self.db, self.policy, self.cfg, self.chat)
                failures = 0
            except Exception:  # the worker must outlive a database outage
                log.exception("LLM interpretation worker failed")
                failures += 1
                busy = False
            if busy:
                continue  # more may be waiting: drain without sleeping
            self._stop.wait(POLL_S * (2 ** min(failures, MAX_BACKOFF_STEPS)))
