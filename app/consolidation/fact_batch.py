"""The facts several episodes of one transaction create, written together.

Consolidation's semantic stage promotes its episodes a batch per transaction. Writing
each episode's new facts, edges, provenance and audit entries as it went cost some six
INSERT statements per episode (and the records' full-text trigger row by row); gathered
over the transaction they are one multi-row INSERT per table.

The rule that keeps the outcome what episode-by-episode writing gives: an episode's
duplicate look-up reads the store, so before it the gathered rows are written whenever
one of them could change its answer — a gathered fact with the same scope, sensitivity
and triple (the look-up would find it), or one with the same scope, subject and a
single-valued predicate (settling it may overturn a stored fact the look-up would find).
Contradictions are settled in creation order when the rows are written
(`Contradictions.settle`), as a batch capture settles its facts."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from sqlalchemy.orm import Session

from app.models import RecordRow, staging
from app.records.policy import PolicyEngine
from app.records.schemas import RecordCreate
from app.records.service import RecordService, write_gathered
from app.trust import TrustContext

Triple = tuple[str, str, str]  # a fact: subject, predicate, object


class FactBatch:
    def __init__(self, session: Session, policy: PolicyEngine) -> None:
        self.session, self.policy = session, policy
        self.service = RecordService(session, policy, defer_writes=True, settles_facts=True)
        self._staged: list[object] = []
        self._triples: set[tuple[str | None, int, Triple]] = set()
        self._single_keys: set[tuple[str | None, str, str]] = set()

    @contextmanager
    def gathered(self) -> Iterator[FactBatch]:
        """Rows staged inside the block (by any writer on the session) are gathered here
        and written when it ends, or earlier where `before_look_up` must."""
        with staging.gathering(self.session) as staged:
            self._staged = staged
            yield self
        self.write()

    def before_look_up(self, scope: str | None, rank: int, triples: Sequence[Triple]) -> None:
        """Write what is gathered if a look-up of `triples` (in `scope` at `rank`) could
        see a different store once it is written."""
        if any(self._affects(scope, rank, t) for t in triples):
            self.write()

    def create(
        self, spec: RecordCreate, trust: TrustContext, where: tuple[str | None, int], triple: Triple
    ) -> RecordRow:
        """A new fact (`triple`, in `where`: scope and sensitivity rank), gathered."""
        scope, rank = where
        row = self.service.create(spec, trust, source_kind="consolidation")
        self._triples.add((scope, rank, triple))
        if self.policy.single_valued(triple[1]):
            self._single_keys.add((scope, triple[0], triple[1]))
        return row

    def write(self) -> None:
        """The gathered rows as one INSERT per table, then the new facts' contradictions
        settled in the order they were created."""
        rows, self._staged[:] = list(self._staged), []
        write_gathered(self.service, rows)
        self._triples.clear()
        self._single_keys.clear()

    def _affects(self, scope: str | None, rank: int, triple: Triple) -> bool:
        if (scope, rank, triple) in self._triples:
            return True
        subject, predicate, _ = triple
        return (scope, subject, predicate) in self._single_keys
