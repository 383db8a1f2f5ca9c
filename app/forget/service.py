"""Forgetting on request (docs/memory-that-stays-true.md): every record a filter names
and the caller may write is deleted, with its edges, vectors, entity names and queue
entries, one transaction per page of PAGE records.

- Scope is required unless the caller is an admin; a scope outside the caller's is 403
  before anything runs. Records above the caller's ceiling or outside its scopes are
  neither deleted nor counted, so the answer reveals nothing the caller may not read.
- Records whose deletion policy is `never` stay, counted as `kept`.
- Each deleted record leaves a `delete` tombstone as a single delete does. With `erase`
  the tombstone and the records' earlier audit entries keep ids, actions, actors and
  times only; stored Idempotency-Key answers naming a forgotten record are replaced by
  a 410 problem, and records that borrowed a forgotten record's questions for their
  search text get their own text back. On SQLite the pages run with secure_delete and
  the full-text index is merged afterwards.
- Idempotency-Key: checked before the first page (a retry replays, another request
  under the key is 422) and claimed with the answer in the last transaction, so a crash
  midway leaves the key free and a retry forgets what is left."""

from __future__ import annotations

import json
import re

from sqlalchemy.orm import Session

from app import clock
from app.db import Database
from app.errors import PROBLEM_BASE, Forbidden, Unprocessable
from app.forget import repository as forget_repo
from app.forget.repository import ForgetMatch
from app.forget.schemas import ForgetRequest, ForgetResult
from app.idempotency.service import IdempotencyKey
from app.records.search_text import searchable_text
from app.trust import TrustContext, check_write_target

PAGE = 10_000
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
FORGOTTEN = {
    "type": PROBLEM_BASE + "forgotten",
    "title": "Forgotten",
    "status": 410,
    "detail": "What this request wrote was forgotten and erased (POST /v1/forget).",
}


class _Unclaimed(Exception):
    """Rolls back the look at the key taken before the first page."""


class ForgetService:
    def __init__(self, db: Database, page: int = PAGE) -> None:
        self.db = db
        self.page = page

    def forget(
        self, req: ForgetRequest, trust: TrustContext, *, admin: bool, key: IdempotencyKey
    ) -> ForgetResult:
        match = self._match(req, trust, admin)
        self._check_key(key, req, match, trust)
        if req.dry_run:
            with self.db.transaction() as session:
                records, edges, kept = forget_repo.counts(session, match)
                result = ForgetResult(
                    records=records,
                    edges=edges,
                    kept=kept,
                    audit_entries_erased=0,
                    dry_run=True,
                    erase=req.erase,
                )
                return key.in_session(session).answer(200, result)
        return self._delete(req, match, trust, key)

    def _match(self, req: ForgetRequest, trust: TrustContext, admin: bool) -> ForgetMatch:
        if req.scope is None and not admin:
            raise Forbidden("Name a scope: only an admin may forget across every scope.")
        if req.scope is not None:
            check_write_target(trust, req.scope, trust.ceiling)
        return ForgetMatch(
            reach=trust.reading(),
            scope=req.scope,
            types=tuple(t.value for t in req.types),
            tags=tuple(req.tags),
            created_after=clock.to_epoch(req.created_after) if req.created_after else None,
            created_before=clock.to_epoch(req.created_before) if req.created_before else None,
            entity=req.entity,
        )

    def _check_key(
        self, key: IdempotencyKey, req: ForgetRequest, match: ForgetMatch, trust: TrustContext
    ) -> None:
        """Replay or refuse a reused key, and check the entity, before any work (the
        look at the key is rolled back: the key is claimed with the answer)."""
        try:
            with self.db.transaction() as session:
                key.in_session(session).begin()
                if req.entity is not None and not forget_repo.entity_readable(
                    session, req.entity, trust.reading()
                ):
                    raise Unprocessable(f"entity: no entity record {req.entity!r}.")
                raise _Unclaimed
        except _Unclaimed:
            pass

    def _delete(
        self, req: ForgetRequest, match: ForgetMatch, trust: TrustContext, key: IdempotencyKey
    ) -> ForgetResult:
        now = clock.now()
        records = edges = erased = 0
        forgotten: set[str] = set()
        scopes: set[str] = set()
        with self.db.read_transaction() as session:
            matched = forget_repo.doomed_ids(session, match)
        for start in range(0, len(matched), self.page):
            with self.db.transaction(cascades=False) as session:
                ids = forget_repo.doomed_ids(session, match, matched[start : start + self.page])
                if not ids:
                    continue
                forget_repo.secure_delete(session, req.erase)
                forget_repo.bulk_cache(session, True)
                page_edges, page_erased, page_scopes = forget_repo.remove(
                    session,
                    ids,
                    actor=trust.actor_id,
                    now=now,
                    rationale=req.rationale,
                    erase=req.erase,
                )
                forget_repo.secure_delete(session, False)
                forget_repo.bulk_cache(session, False)
            records += len(ids)
            edges += page_edges
            erased += page_erased
            if req.erase:
                forgotten.update(ids)
                scopes.update(s for s in page_scopes if s is not None)
        with self.db.transaction() as session:
            write = key.in_session(session)
            write.begin()
            _, _, kept = forget_repo.counts(session, match)
            if req.erase:
                self._scrub(session, forgotten, scopes)
            result = ForgetResult(
                records=records,
                edges=edges,
                kept=kept,
                audit_entries_erased=erased,
                dry_run=False,
                erase=req.erase,
            )
            return write.answer(200, result)

    def _scrub(self, session: Session, forgotten: set[str], scopes: set[str]) -> None:
        """What else holds the forgotten records' words: kept answers, borrowed
        questions, and (SQLite) the full-text index's older segments."""
        if not forgotten:
            return
        gone = json.dumps(FORGOTTEN)
        stale = [
            (actor, key)
            for actor, key, answer in forget_repo.stored_answers(session)
            if any(m in forgotten for m in UUID.findall(answer))
        ]
        for actor, key in stale:
            forget_repo.replace_answer(session, actor, key, 410, gone)
        for record_id, record_type, payload, interpretation in forget_repo.borrowers(
            session, sorted(scopes)
        ):
            if interpretation.get("questions_from") in forgotten:
                own = {k: v for k, v in interpretation.items() if k != "questions_from"}
                text = searchable_text(record_type, payload)
                forget_repo.set_search_text(session, record_id, text, own)
        forget_repo.merge_full_text(session)
