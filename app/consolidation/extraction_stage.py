"""LLM triple extraction: a chat model reads episode summaries and states the durable
facts in them as (subject, predicate, object) triples, stored as semantic records.

Off unless `MEMBRANE_LLM__BASE_URL` is set. Candidates are active episodic records with a
summary, not compressed records, neither extracted nor given up on yet (audit entry
`consolidate:extraction`), oldest first. They are sent in batches of `llm.batch_size`
that share one scope and one sensitivity, so that a fact never carries information from
a more sensitive or another scope's episode.

Each triple becomes a semantic record created by `consolidation/semantic-extractor` with
its episode's scope and sensitivity, evidence and provenance pointing at the episode, a
`derived_from` edge and an audit entry; or, when the identical fact already exists in
that scope at that sensitivity, reinforces it (with an audit entry and another
`derived_from` edge). One transaction per episode writes its facts together with the
`consolidate:extraction` marker: an episode is extracted once, across runs and crashes
(a process that dies between the call and the commit leaves no trace; the next run asks
again).

An answer that is unusable (malformed, oversized, items but not one usable triple) gives
each episode of the batch a `consolidate:extraction-failed` entry (reason, attempt); the
run goes on with the next batch. `[]` is a valid answer: the episodes are done with no
fact. A call that fails for the endpoint's sake (timeout, unreachable, HTTP error after
its retries) uses no attempt: the batch is counted skipped and waits for the next run.
After `llm.max_attempts` failed runs an episode is marked `consolidate:extraction` with
{"skipped": reason} and never sent again. The run stops
early, leaving the remaining episodes unmarked for the next run, when its budget of calls
or tokens is spent, or after MAX_CONSECUTIVE_FAILURES failed calls in a row (the
endpoint looks down: a dead endpoint must not hold the consolidation job for hours).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.audit import repository as audit_repo
from app.config import LLMSettings, Settings
from app.consolidation import extraction_repository as extraction_repo
from app.consolidation import repository as consolidation_repo
from app.consolidation.promotion import Promotion, sourced_spec
from app.db import Database
from app.llm.client import Budget, BudgetExhausted, ChatClient, LLMError
from app.llm.triples import Triple, messages_for, parse_triples
from app.records import repository as record_repo
from app.records.event_time import episode_time
from app.records.payloads import Evidence, SemanticPayload
from app.records.policy import PolicyEngine
from app.records.schemas import RecordCreate
from app.trust import TrustContext

log = logging.getLogger("membrane.consolidation")

STAGE = "extraction"
DONE = "consolidate:extraction"
FAILED = "consolidate:extraction-failed"
CREATED_BY = "consolidation/semantic-extractor"
COMPRESSED_TAG = consolidation_repo.COMPRESSED_TAG
MAX_EPISODES_PER_RUN = 5000
MAX_CONSECUTIVE_FAILURES = 3
# Call failures that are the answer's fault use one of an episode's attempts; an endpoint
# that is down, slow or refusing (timeout, unreachable, HTTP errors) uses none, so an
# outage never gives episodes up — they wait for a run when it is back.
ANSWER_FAULTS = frozenset({"bad_response", "oversized"})
COUNTS = ("triples_extracted", "triples_reinforced", "triples_skipped", "extraction_episodes")


@dataclass(frozen=True)
class Episode:
    id: str
    scope: str | None
    sensitivity: int
    summary: str
    observed_at: float | None = None  # when it happened (its facts' event time)


def batches(episodes: Iterable[Episode], size: int) -> list[list[Episode]]:
    """Batches of at most `size` episodes sharing scope and sensitivity, in the order
    their first episode comes."""
    groups: dict[tuple[str | None, int], list[Episode]] = {}
    for episode in episodes:
        groups.setdefault((episode.scope, episode.sensitivity), []).append(episode)
    return [
        members[i : i + size] for members in groups.values() for i in range(0, len(members), size)
    ]


def run_extraction_stage(
    db: Database,
    policy: PolicyEngine,
    trust: TrustContext,
    settings: Settings,
    *,
    now: float,
    client: ChatClient | None = None,
) -> dict[str, int]:
    """Extract triples from the waiting episodes; returns the run's counts ({} when no
    LLM is configured). `client`: a ChatClient to use instead of one built from
    settings.llm (the budget is this run's either way)."""
    cfg = settings.llm
    if not cfg.base_url:
        return {}
    episodes = _pending(db, cfg)
    run = _Run(db, policy, trust, cfg, now)
    if not episodes:
        return run.counts
    chat = client or ChatClient.from_settings(cfg)
    try:
        run.extract(chat, batches(episodes, cfg.batch_size))
    finally:
        if client is None:
            chat.close()
    return run.counts


def _pending(db: Database, cfg: LLMSettings) -> list[Episode]:
    with db.read_transaction() as session:
        rows = extraction_repo.pending_episodes(
            session,
            done_action=DONE,
            failed_action=FAILED,
            max_attempts=cfg.max_attempts,
            excluded_tag=COMPRESSED_TAG,
            limit=min(MAX_EPISODES_PER_RUN, cfg.max_calls_per_run * cfg.batch_size),
        )
        return [
            Episode(
                r.id,
                r.scope,
                r.sensitivity,
                str(r.payload.get("summary") or ""),
                episode_time(r.payload, r.provenance or {}, r.created_at),
            )
            for r in rows
        ]


class _Run:
    """One run of the stage: its budget, its counts and its writes."""

    def __init__(
        self,
        db: Database,
        policy: PolicyEngine,
        trust: TrustContext,
        cfg: LLMSettings,
        now: float,
    ) -> None:
        self.db, self.policy, self.trust, self.cfg, self.now = db, policy, trust, cfg, now
        self.budget = Budget(cfg.max_calls_per_run, cfg.max_tokens_per_run)
        self.counts = dict.fromkeys(COUNTS, 0)

    def extract(self, chat: ChatClient, todo: list[list[Episode]]) -> None:
        failed_calls = 0
        for batch in todo:
            messages = messages_for([e.summary for e in batch])
            try:
                answer = chat.complete(
                    messages, max_tokens=self.cfg.max_output_tokens, budget=self.budget
                )
            except BudgetExhausted as exc:
                log.info("LLM extraction stops, the rest waits for the next run: %s", exc)
                return
            except LLMError as exc:
                log.warning("LLM extraction call failed (%s): %s", exc.reason, exc)
                if exc.reason in ANSWER_FAULTS:
                    self.fail(batch, exc.reason)  # the model's answer: an attempt used
                else:
                    self.counts["triples_skipped"] += len(batch)  # the endpoint: no attempt
                failed_calls += 1
                if failed_calls >= MAX_CONSECUTIVE_FAILURES:
                    log.warning("LLM extraction stops after %d failed calls", failed_calls)
                    return
                continue
            failed_calls = 0
            parsed = parse_triples(
                answer.text,
                episodes=len(batch),
                max_chars=self.cfg.max_answer_chars,
                max_per_episode=self.cfg.max_triples_per_episode,
            )
            if parsed.dropped:
                log.info("LLM extraction dropped %d unusable triples", parsed.dropped)
            if parsed.error is not None:
                log.warning("LLM extraction answer unusable: %s", parsed.error)
                self.fail(batch, parsed.error)
                continue
            for number, episode in enumerate(batch, start=1):
                self.store(episode, parsed.triples.get(number, []))

    def fail(self, batch: list[Episode], reason: str) -> None:
        """One failed attempt for each episode of `batch` (in one transaction); the last
        allowed attempt gives the episode up for good."""
        with self.db.transaction() as session:
            ids = [e.id for e in batch if _waiting(session, e.id)]
            failures = extraction_repo.failure_counts(session, ids, FAILED)
            for episode_id in ids:
                attempt = failures.get(episode_id, 0) + 1
                details = {"reason": reason, "attempt": attempt}
                audit_repo.append(
                    session, episode_id, FAILED, self.trust.actor_id, self.now, details=details
                )
                if attempt >= self.cfg.max_attempts:
                    audit_repo.append(
                        session,
                        episode_id,
                        DONE,
                        self.trust.actor_id,
                        self.now,
                        details={"skipped": reason, "attempts": attempt},
                    )
        self.counts["triples_skipped"] += len(ids)

    def store(self, episode: Episode, triples: list[Triple]) -> None:
        """An episode's facts and its marker, in one transaction. A write that fails
        (the record is refused, the database errs) counts as a failed attempt."""
        try:
            with self.db.transaction() as session:
                done = self._store(session, episode, triples)
        except Exception as exc:
            log.exception("LLM extraction could not store the facts of %s", episode.id)
            self.fail([episode], f"store_error: {type(exc).__name__}")
            return
        if done is not None:
            self.counts["triples_extracted"] += done[0]
            self.counts["triples_reinforced"] += done[1]
            self.counts["extraction_episodes"] += 1

    def _store(
        self, session: Session, episode: Episode, triples: list[Triple]
    ) -> tuple[int, int] | None:
        """(created, reinforced), or None when the episode is no longer waiting."""
        if not _waiting(session, episode.id):
            return None
        unit = Promotion(session, self.policy, self.trust, STAGE, self.now)
        created, reinforced = unit.observe_facts(
            episode.id,
            (episode.scope, episode.sensitivity),
            triples,
            lambda triple: fact_spec(episode, triple, self.cfg.model),
            rationale="extracted again from another episode",
        )
        details = {"created": created, "reinforced": reinforced, "model": self.cfg.model}
        audit_repo.append(session, episode.id, DONE, self.trust.actor_id, self.now, details=details)
        return created, reinforced


def _waiting(session: Session, episode_id: str) -> bool:
    """Still active and not yet extracted (listed earlier, it may have changed since)."""
    row = record_repo.get(session, episode_id)
    return (
        row is not None
        and row.status == "active"
        and not extraction_repo.has_action(session, episode_id, DONE)
    )


def fact_spec(episode: Episode, triple: Triple, model: str) -> RecordCreate:
    subject, predicate, obj = triple
    evidence = Evidence(
        kind="record", ref=episode.id, created_by=CREATED_BY, note=f"extracted by {model}"[:1000]
    )
    payload = SemanticPayload(subject=subject, predicate=predicate, object=obj, evidence=[evidence])
    return sourced_spec(
        payload,
        [episode.id],
        scope=episode.scope,
        rank=episode.sensitivity,
        tags=[],
        created_by=CREATED_BY,
        observed_at=episode.observed_at,
    )
