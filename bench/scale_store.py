"""Building a large store for bench/scale.py, shaped like agent memory.

Text: the LoCoMo development turns (../shared/bench/locomo), recombined per record — a
turn, half of another turn appended, its speaker names replaced by the names of the
record's scope — so that 1,000 scopes hold different conversations about overlapping
topics. Vectors: the base turns are embedded with the real local model
(all-MiniLM-L6-v2); a record's vector is derived from those of the turns it was made
of: 0.8·v(turn) + 0.2·v(other turn) + N(0, 0.02) noise, normalized. Types: 80 %
episodic, 8 % semantic, 7 % entity, 3 % competence, 2 % plan graph; 10 % of episodes
mention one of their scope's five entities (paired edges). Rows go in through the
service's bulk loader (COPY on PostgreSQL); the HNSW index is dropped during the load
and built afterwards (its build time is reported).
"""

from __future__ import annotations

import json
import random
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import insert, text

from app.db import Database, Tier
from app.embedding import queue_repository as queue_repo
from app.embedding.service import check_or_pin
from app.models import RelationRow
from app.records import repository as record_repo

MODEL, DIM = "all-MiniLM-L6-v2", 384
SCOPES = 1000
CHUNK = 5000
NAMES = [
    "Avery", "Blake", "Casey", "Devon", "Emery", "Finley", "Gray", "Harper", "Indigo",
    "Jules", "Kai", "Logan", "Morgan", "Noel", "Oakley", "Parker", "Quinn", "Riley",
    "Sage", "Taylor", "Uma", "Vale", "Wren", "Xen", "Yael", "Zion",
]  # fmt: skip
TYPES = {"episodic": 0.80, "semantic": 0.08, "entity": 0.07, "competence": 0.03, "plan_graph": 0.02}
HNSW = (
    "CREATE INDEX IF NOT EXISTS ix_record_embeddings_hnsw ON record_embeddings "
    "USING hnsw (embedding vector_cosine_ops)"
)


@dataclass
class Corpus:
    turns: list[str]
    speakers: list[str]
    questions: list[str]


def load_corpus(path: Path) -> Corpus:
    turns, speakers, questions = [], set(), []
    for conv in json.loads(path.read_text()):
        for key, value in conv["conversation"].items():
            if key.startswith("session_") and isinstance(value, list):
                for turn in value:
                    if turn.get("text"):
                        turns.append(f"{turn['speaker']}: {turn['text']}")
                        speakers.add(turn["speaker"])
        questions += [qa["question"] for qa in conv["qa"] if qa.get("question")]
    return Corpus(turns, sorted(speakers), questions)


def embed(texts: list[str]) -> np.ndarray:
    from app.embedding.providers import LocalEmbedder

    embedder = LocalEmbedder(MODEL, DIM)
    out = []
    for start in range(0, len(texts), 256):
        out += embedder.embed(texts[start : start + 256])
        progress("embedding base turns", min(start + 256, len(texts)), len(texts))
    return np.asarray(out, dtype=np.float32)


def progress(phase: str, done: int, total: int) -> None:
    width = 30
    filled = int(width * done / max(total, 1))
    end = "\n" if done >= total else ""
    bar = "#" * filled + "." * (width - filled)
    print(f"\r  {phase:<24} [{bar}] {done:,}/{total:,}", end=end, file=sys.stderr, flush=True)


def build(db: Database, corpus: Corpus, n: int, seed: int = 7) -> dict[str, float]:
    """Load `n` records; returns phase timings in seconds."""
    rng = random.Random(seed)
    np_rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    base = embed(corpus.turns)
    timings = {"embed_base_s": time.perf_counter() - t0}
    check_or_pin(db, MODEL, DIM)
    if db.tier is Tier.pgvector:
        with db.transaction() as session:
            session.execute(text("DROP INDEX IF EXISTS ix_record_embeddings_hnsw"))
    now = time.time()
    t0 = time.perf_counter()
    entities: dict[int, list[str]] = {}
    for start in range(0, n, CHUNK):
        size = min(CHUNK, n - start)
        rows: list[dict[str, Any]] = []
        vectors: list[tuple[str, list[float]]] = []
        edges: list[dict[str, Any]] = []
        for i in range(start, start + size):
            row, vector = _record(i, n, now, corpus, base, rng, np_rng, entities)
            rows.append(row)
            vectors.append((row["id"], vector.tolist()))
            mention = entities.get(i % SCOPES)
            if row["type"] == "episodic" and mention and rng.random() < 0.1:
                edges += _mention(row["id"], rng.choice(mention), row["created_at"])
        with db.transaction() as session:
            record_repo.bulk_insert(session, rows)
            queue_repo.store_vectors(session, db.tier, MODEL, vectors)
            if edges:
                session.execute(insert(RelationRow), edges)
        progress("records", start + size, n)
    timings["load_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    if db.tier is Tier.pgvector:
        with db.engine.connect() as conn:
            conn.execute(text("SET maintenance_work_mem = '1GB'"))
            conn.execute(text(HNSW))
            conn.execute(text("ANALYZE"))
            conn.commit()
    timings["index_s"] = time.perf_counter() - t0
    db.refresh_planner_stats()
    return timings


def _record(
    i: int,
    n: int,
    now: float,
    corpus: Corpus,
    base: np.ndarray,
    rng: random.Random,
    np_rng: np.random.Generator,
    entities: dict[int, list[str]],
) -> tuple[dict[str, Any], np.ndarray]:
    scope = i % SCOPES
    a, b = rng.randrange(len(corpus.turns)), rng.randrange(len(corpus.turns))
    words = corpus.turns[b].split()
    body = corpus.turns[a] + " " + " ".join(words[: len(words) // 2])
    for k, speaker in enumerate(corpus.speakers[:6]):
        body = body.replace(speaker, NAMES[(scope + k) % len(NAMES)])
    vector = 0.8 * base[a] + 0.2 * base[b] + np_rng.normal(0, 0.02, DIM).astype(np.float32)
    vector /= np.linalg.norm(vector)
    kind = rng.choices(list(TYPES), weights=list(TYPES.values()))[0]
    rid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    if kind == "entity":
        entities.setdefault(scope, [])
        if len(entities[scope]) < 5:
            entities[scope].append(rid)
    created = now - (n - i) * 2.0  # two seconds apart, oldest first
    return _row(rid, kind, f"scale/{scope}", body, created), vector


def _payload(kind: str, body: str) -> dict[str, Any]:
    if kind == "episodic":
        return {"kind": kind, "summary": body, "outcome": "success"}
    if kind == "semantic":
        return {"kind": kind, "subject": body.split(":")[0], "predicate": "said", "object": body}
    if kind == "entity":
        return {"kind": kind, "canonical_name": body.split(":")[0], "types": ["person"]}
    if kind == "competence":
        return {"kind": kind, "skill_name": body[:80], "performance": {"success_count": 3}}
    return {"kind": kind, "plan_id": body[:16], "intent": body, "metrics": {"execution_count": 2}}


def _row(rid: str, kind: str, scope: str, body: str, created: float) -> dict[str, Any]:
    return {
        "id": rid,
        "type": kind,
        "status": "active",
        "sensitivity": 1,
        "confidence": 0.8,
        "scope": scope,
        "tags": [],
        "created_at": created,
        "updated_at": created,
        "salience_base": 1.0,
        "salience_t0": created,
        "salience_swept": 1.0,
        "decay_curve": "exponential",
        "half_life_s": 30 * 86400.0,
        "min_salience": 0.0,
        "max_age_s": None,
        "reinforcement_gain": 0.1,
        "pinned": False,
        "deletion_policy": "auto_prune",
        "created_by": "bench",
        "provenance": {},
        "interpretation": {},
        "payload": _payload(kind, body),
        "search_text": body,
        "embedding_status": "done",
    }


def _mention(source: str, entity: str, at: float) -> list[dict[str, Any]]:
    pair = (("mentions_entity", source, entity), ("mentioned_in", entity, source))
    return [
        {"source_id": s, "predicate": p, "target_id": t, "weight": 1.0, "created_at": at}
        for p, s, t in pair
    ]
