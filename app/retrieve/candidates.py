"""What a query retrieve's signals find (`CandidateSearch.find`): BM25 candidates, the
nearest vectors, the records of entities the query names, and the headers of all of
them, the query being embedded on a helper thread meanwhile. `RetrieveService` ranks what
this finds."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from concurrent.futures import Future

from sqlalchemy.orm import Session

from app.config import RankingSettings
from app.db import Tier
from app.embedding.providers import Embedder, EmbeddingError
from app.embedding.query_cache import query_vector_soon
from app.entities import service as entity_names
from app.entities.clauses import NameMatch, readable_ids
from app.enums import MemoryType
from app.records.filters import RecordQuery
from app.retrieve import header_repository as header_repo
from app.retrieve import pg_matrix_repository as pg_matrix
from app.retrieve import pg_vector_cache, scope_sizes, vector_cache
from app.retrieve import repository as search_repo
from app.retrieve import vector_repository as vector_repo
from app.retrieve.header_repository import Admitted, CarriedHeaders, NameLookUp, RecordHeader
from app.retrieve.lexical_scores import Naming
from app.retrieve.pg_vector_cache import Vector
from app.retrieve.pg_vector_repository import VECTOR_VERSION
from app.retrieve.ranked import Candidates
from app.retrieve.schemas import RetrieveRequest
from app.retrieve.terms import name_candidates, unscored_names
from app.retrieve.vector_cache import MatrixView
from app.trust import TrustContext

log = logging.getLogger("membrane.retrieve")
# Scopes holding fewer records than this are searched by reading all of them (exact
# vectors, every row checked for words) rather than through the store-wide indexes,
# which on a large store find mostly records of other scopes.
SMALL_SCOPE = 20_000


def start_query_embedding(
    embedder: Embedder | None, tier: Tier, query: str | None
) -> Future[Sequence[float]] | None:
    """The query's embedding, started (or joined, when started already) on a helper
    thread; None where a query retrieve uses no query vector (no embedder, tier 2, no
    query)."""
    if embedder is None or tier is Tier.postgres or not (query and query.strip()):
        return None
    return query_vector_soon(embedder, query)


def _naming(terms: list[str], matches: list[NameMatch]) -> Naming:
    """What the entity names the query spells decide for its lexical search: they are
    scored through the entity links, not as words (terms.unscored_names), and the records
    that mention the live entities the caller may read are flagged (headers'
    mentions_named)."""
    silent = unscored_names(terms, {m.term for m in matches if m.readable})
    return Naming(silent, readable_ids(matches))


class CandidateSearch:
    def __init__(
        self,
        session: Session,
        settings: RankingSettings,
        embedder: Embedder | None,
        tier: Tier,
    ) -> None:
        self.session = session
        self.settings = settings
        self.embedder = embedder
        self.tier = tier

    def find(
        self, req: RetrieveRequest, trust: TrustContext, records: RecordQuery, terms: list[str]
    ) -> Candidates:
        """What the lexical, vector and entity signals find, with the found records'
        headers. The query is embedded on a helper thread meanwhile (SQLite waits for its
        vector after listing the vector candidates)."""
        query = req.query or ""
        pool = max(self.settings.candidate_pool, req.limit)
        embedding = start_query_embedding(self.embedder, self.tier, query)
        in_small = bool(req.scopes) and scope_sizes.scopes_hold_fewer(
            self.session, req.scopes, SMALL_SCOPE
        )
        # A small store is searched exactly for vectors too: an HNSW walk as wide as
        # ef_search visits most of it anyway, and costs more than the exact scan.
        exact = in_small or (
            not req.scopes and scope_sizes.scopes_hold_fewer(self.session, [], SMALL_SCOPE)
        )
        names, scopes = self._name_look_up(query, req, trust)
        look_up = NameLookUp(names, scopes, trust.reading()) if names else None
        # A small scope's records are all read, the name look-up with them; else it runs
        # inside the lexical search's statement (alone only when that has none to run).
        every = self._every_admitted(req, records, pool, look_up)
        admitted = every.headers if every is not None else None
        signature = (int(every.extra[0]), int(every.extra[1])) if every and every.extra else None
        selective = self._selective(records, pool)
        uses_matrix = self._uses_matrix(every)
        matrix_since = pg_matrix.since_of(self.session) if uses_matrix else None
        naming = _naming(terms, every.names) if every is not None else Naming(look_up=look_up)
        lexical = search_repo.lexical(
            self.session, terms, records, pool, small_scope=in_small, naming=naming,
            with_headers=admitted is None,
            # SQLite's vector search then needs no statement of its own for the signature
            with_signature=(self.tier is Tier.sqlite and embedding is not None
                            and admitted is None and not selective),
            matrix_since=matrix_since,
        )  # fmt: skip
        matches = every.names if every is not None else lexical.names
        if matches is None:  # the lexical search ran no statement to look them up in
            matches = self._names_alone(look_up, trust)
        named = sorted({m.record_id for m in matches})
        linked = readable_ids(matches)
        entities = named if not req.types or MemoryType.entity in req.types else []
        carry = (
            CarriedHeaders(linked, known=frozenset(lexical.headers)) if admitted is None else None
        )
        # brought up to date by the lexical search's signature when it saw nothing new
        matrix = pg_matrix.view(self.session, lexical.matrix, matrix_since) if uses_matrix else None
        cosine = self._vector(
            embedding, records, pool, list(lexical.full), exact, selective,
            every, signature or lexical.signature, carry, matrix,
        )  # fmt: skip
        found = {*lexical.full, *(cosine or {}), *entities}
        metas = self._headers(found, records, linked, admitted, lexical.headers, carry)
        return Candidates(lexical, cosine, entities, linked, metas, admitted)

    def _headers(
        self,
        found: set[str],
        records: RecordQuery,
        linked: Sequence[str],
        admitted: dict[str, RecordHeader] | None,
        lexical: dict[str, RecordHeader],
        carry: CarriedHeaders | None,
    ) -> dict[str, RecordHeader]:
        """The headers of the `found` records that the filters admit: among every admitted
        record's when those were read, else those the lexical and vector candidates
        carried, and the others' (named entities, listed vectors) looked up."""
        if admitted is not None:
            return {rid: admitted[rid] for rid in found if rid in admitted}
        metas = dict(lexical)
        carried = carry.rows if carry is not None else {}
        kept = [rid for rid in found if rid in carried and rid not in metas]
        metas.update((rid, header_repo.header_from(records.now, carried[rid])) for rid in kept)
        rest = found.difference(metas)
        metas.update(header_repo.headers(self.session, list(rest), records, linked))
        return metas

    def _every_admitted(
        self, req: RetrieveRequest, records: RecordQuery, pool: int, names: NameLookUp | None
    ) -> Admitted | None:
        """The header of every record the request admits, when its scopes hold no more
        records than the candidate pool (sizes remembered for a minute: scope_sizes):
        every one of them may be a candidate then, and reading them all at once, while
        the query is still being embedded, also gives each episode's neighbours without
        a look-up (`adjacent.adjacent_episodes`), the entity names of the query with
        them (`names`), and the vector search its ids (on SQLite with the vectors' change
        signature, read beside them; on PostgreSQL with each record's vector version,
        whose vectors the process keeps: pg_vector_cache). None otherwise, or when the
        scopes have grown past the pool since."""
        if not req.scopes or not scope_sizes.scopes_hold_fewer(self.session, req.scopes, pool + 1):
            return None
        extra = vector_cache.SIGNATURE if self.tier is Tier.sqlite else ()
        versions = VECTOR_VERSION if self.tier is Tier.pgvector and self.embedder else None
        return header_repo.every_admitted(self.session, records, names, pool, extra, versions)

    def _vector(
        self,
        embedding: Future[Sequence[float]] | None,
        records: RecordQuery,
        pool: int,
        also: list[str],
        small_scope: bool,
        selective: bool,
        every: Admitted | None = None,
        signature: tuple[int, int] | None = None,
        carry: CarriedHeaders | None = None,
        matrix: MatrixView | None = None,
    ) -> dict[str, float] | None:
        if embedding is None:
            return None
        try:
            return vector_repo.nearest(
                self.session,
                self.tier,
                embedding.result,  # waited for once SQLite has listed the candidates
                records,
                pool,
                also,
                small_scope=small_scope,
                ef_search=self.settings.ef_search,
                selective=selective,
                admitted=list(every.headers) if every is not None else None,
                signature=signature,
                carry=carry,
                admitted_vectors=self._admitted_vectors(every),
                matrix=matrix,
            )
        except EmbeddingError:
            log.warning("query embedding failed; ranking without vectors", exc_info=True)
            return None

    def _admitted_vectors(self, every: Admitted | None) -> dict[str, Vector] | None:
        """PostgreSQL: the stored vectors of every admitted record, from the process's
        cache where it holds their versions, the rest read (before the query vector is
        waited for)."""
        if every is None or every.versions is None:
            return None
        size = self.settings.vector_cache_size
        return pg_vector_cache.cached_vectors(self.session, every.versions, size)

    def _uses_matrix(self, every: Admitted | None) -> bool:
        """PostgreSQL: whether the vector search goes through the process's matrix
        (`pg_matrix_repository`): for stores of at most `vector_matrix_size` records
        (counted once a minute, scope_sizes) whose request's scopes hold more than the
        candidate pool (`every`: fewer, read already), not on a hot standby. A store
        grown past the size has its matrix dropped."""
        size = self.settings.vector_matrix_size
        if self.tier is not Tier.pgvector or self.embedder is None or every is not None:
            return False
        if size <= 0 or not pg_matrix.usable(self.session):
            return False
        if not scope_sizes.scopes_hold_fewer(self.session, [], size + 1):
            pg_matrix.forget(self.session)
            return False
        return True

    def _selective(self, records: RecordQuery, pool: int) -> bool:
        """Whether the filter may name few records, which SQLite's vector search then
        lists first (`vector_repository.nearest`)."""
        scopes = records.filter.scopes
        return bool(records.filter.tags_all) or (
            bool(scopes)
            and self.tier is Tier.sqlite
            and scope_sizes.scopes_hold_fewer(
                self.session, scopes, vector_cache.listing_bound(pool)
            )
        )

    def _names_alone(self, look_up: NameLookUp | None, trust: TrustContext) -> list[NameMatch]:
        if look_up is None:
            return []
        return entity_names.names_matching(self.session, look_up.terms, look_up.scopes, trust)

    def _name_look_up(
        self, query: str, req: RetrieveRequest, trust: TrustContext
    ) -> tuple[list[str], list[str] | None]:
        """The normalized spellings under which the query may name entities, and the scopes
        to look them up in: those the request and the caller allow (None: any). Entities
        are looked up whatever types the request ranks: records that mention them are
        lifted too."""
        scopes = set(trust.scopes) if trust.scopes is not None else None
        if req.scopes:  # the request's scopes narrow the look-up (and its index range)
            scopes = set(req.scopes) if scopes is None else scopes & set(req.scopes)
        if scopes is not None and not scopes:
            return [], []
        names = [entity_names.normalize(n) for n in name_candidates(query)]
        return names, sorted(scopes) if scopes is not None else None
