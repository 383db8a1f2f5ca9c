"""Forgetting benchmark (issue 34): POST /v1/forget's service over a scope of N records.

Seeds N records in one scope and N/10 in another (lifecycle.py's synthetic records, all
`auto_prune`, active), each with a tag, a `create` audit entry and an edge pair to its
neighbour, plus a vector per record, straight through the repository layer into a fresh
store; then times one ForgetService.forget of the first scope (the same call the endpoint
makes) and checks that the other scope is whole.

    .venv/bin/python bench/forget.py --store sqlite --records 100000
    .venv/bin/python bench/forget.py --store postgres --records 100000 --erase
    .venv/bin/python bench/forget.py --store sqlite --records 20000 --statements  # where it goes
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "bench"))

from lifecycle import fresh_store, synthetic_record  # noqa: E402
from sqlalchemy import event, func, insert, select  # noqa: E402

from app.db import Database  # noqa: E402
from app.enums import Sensitivity  # noqa: E402
from app.forget.schemas import ForgetRequest  # noqa: E402
from app.forget.service import ForgetService  # noqa: E402
from app.idempotency.service import IdempotencyKey  # noqa: E402
from app.migrate import upgrade  # noqa: E402
from app.models import AuditRow, EmbeddingRow, RecordRow, RelationRow, TagRow  # noqa: E402
from app.records import repository as record_repo  # noqa: E402
from app.trust import TrustContext  # noqa: E402

CHUNK = 10_000
SCOPE, OTHER = "user:bench", "user:other"


def seed(db: Database, n: int, scope: str, rng: random.Random, now: float) -> None:
    done = 0
    while done < n:
        size = min(CHUNK, n - done)
        rows = [synthetic_record(done + j, now, rng, False) for j in range(size)]
        for row in rows:
            row.update(scope=scope, status="active", deletion_policy="auto_prune", tags=["t"])
            row["sensitivity"] = min(int(row["sensitivity"]), 3)
        ids = [str(r["id"]) for r in rows]
        with db.transaction() as session:
            record_repo.bulk_insert(session, rows)
            session.execute(insert(TagRow), [{"record_id": i, "tag": "t"} for i in ids])
            session.execute(
                insert(AuditRow),
                [
                    {"record_id": i, "action": "create", "actor": "bench", "timestamp": now,
                     "rationale": None, "details": {"type": "episodic"}}
                    for i in ids
                ],
            )  # fmt: skip
            edges = []
            for a, b in itertools.pairwise(ids):
                edges.append({"source_id": a, "predicate": "derived_from", "target_id": b,
                              "weight": 1.0, "created_at": now})  # fmt: skip
                edges.append({"source_id": b, "predicate": "derives", "target_id": a,
                              "weight": 1.0, "created_at": now})  # fmt: skip
            session.execute(insert(RelationRow), edges)
            vectors = [
                {"record_id": i, "model": "bench", "vector": b"\0" * 1536, "scope": scope}
                for i in ids
            ]
            session.execute(insert(EmbeddingRow), vectors)
        done += size
        print(f"  seeded {scope} {done:,}/{n:,}", file=sys.stderr, flush=True)


class StatementTimes:
    """Seconds per SQL statement text (its first 90 characters), summed over the forget."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.counts: dict[str, int] = {}
        self.active = False

    def attach(self, db: Database) -> None:
        event.listen(db.engine, "before_cursor_execute", self._before)
        event.listen(db.engine, "after_cursor_execute", self._after)

    def _before(self, conn: Any, _cursor: Any, _stmt: str, *_args: Any) -> None:
        conn.info["statement_started"] = time.perf_counter()

    def _after(self, conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if self.active:
            took = time.perf_counter() - conn.info.pop("statement_started", time.perf_counter())
            name = " ".join(statement.split())[:90]
            self.seconds[name] = self.seconds.get(name, 0.0) + took
            self.counts[name] = self.counts.get(name, 0) + 1

    def top(self, n: int = 12) -> list[dict[str, Any]]:
        ranked = sorted(self.seconds.items(), key=lambda kv: -kv[1])[:n]
        return [{"s": round(s, 3), "n": self.counts[k], "sql": k} for k, s in ranked]


def run(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    with fresh_store(args.store) as url:
        upgrade(url)
        db = Database(url)
        now = time.time()
        seed(db, args.records, SCOPE, rng, now)
        seed(db, args.records // 10, OTHER, rng, now)
        if args.store == "postgres":
            with db.engine.connect() as conn:
                conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("ANALYZE")
        trust = TrustContext(ceiling=Sensitivity.hyper, actor_id="bench")
        key = IdempotencyKey(actor="bench", key=None, fingerprint="", retention_s=86400.0)
        request = ForgetRequest(scope=SCOPE, erase=args.erase)
        times = StatementTimes()
        if args.statements:
            times.attach(db)
            times.active = True
        t = time.perf_counter()
        result = ForgetService(db).forget(request, trust, admin=True, key=key)
        seconds = time.perf_counter() - t
        times.active = False
        with db.transaction() as session:
            left = session.scalar(select(func.count()).where(RecordRow.scope == SCOPE))
            other = session.scalar(select(func.count()).where(RecordRow.scope == OTHER))
        db.dispose()
    assert left == 0 and other == args.records // 10, (left, other)
    return {
        "store": args.store,
        "records": args.records,
        "erase": args.erase,
        "forget_s": round(seconds, 3),
        "records_per_s": round(args.records / seconds),
        "result": result.model_dump(),
        **({"statements": times.top()} if args.statements else {}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--erase", action="store_true")
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--statements", action="store_true", help="time each statement")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    out = run(args)
    text = json.dumps(out, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
