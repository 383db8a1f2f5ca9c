"""What contradiction checks add to a capture that creates a fact (issue 34), in process.

A store of --records observations (each a fact; ten scopes, a hundred subjects) is
captured first; then --captures observations of a fact are timed in pairs, one with
contradictions settled (as the service runs) and one without (RecordService without
`settles_facts`), alternating which goes first, each in its own transaction. By default
each timed fact has a subject of its own (the check alone: a look-up that finds no
rival); with --overturn every timed fact contradicts the one before it (a look-up, a
supersede, an edge pair, two audit entries). Reports p50 / p95 of both and the p50 of
the pairwise difference.

    .venv/bin/python bench/contradictions.py --store sqlite
    .venv/bin/python bench/contradictions.py --store postgres
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "bench"))

from lifecycle import fresh_store  # noqa: E402

from app.capture.schemas import CaptureRequest  # noqa: E402
from app.capture.service import CaptureService  # noqa: E402
from app.config import Settings  # noqa: E402
from app.db import Database  # noqa: E402
from app.enums import Sensitivity  # noqa: E402
from app.migrate import upgrade  # noqa: E402
from app.records.policy import PolicyEngine  # noqa: E402
from app.records.service import RecordService  # noqa: E402
from app.trust import TrustContext  # noqa: E402

TRUST = TrustContext(ceiling=Sensitivity.hyper, actor_id="bench")


def observation(i: int, subject: str, scope: str) -> CaptureRequest:
    return CaptureRequest.model_validate(
        {
            "source": "bench",
            "source_kind": "observation",
            "content": {"subject": subject, "predicate": "runs_on_port", "object": str(i)},
            "scope": scope,
        }
    )


def capture(db: Database, policy: PolicyEngine, req: CaptureRequest, settle: bool) -> float:
    started = time.perf_counter()
    with db.transaction() as session:
        records = RecordService(session, policy, defer_writes=True, settles_facts=settle)
        CaptureService(session, records).capture_response(req, TRUST)
    return (time.perf_counter() - started) * 1000


def run(args: argparse.Namespace) -> dict[str, Any]:
    with fresh_store(args.store) as url:
        upgrade(url)
        db = Database(url)
        policy = PolicyEngine(Settings(_env_file=None, database_url=url))
        for i in range(args.records):
            capture(db, policy, observation(i, f"service-{i % 100}", f"s{i % 10}"), True)
        on: list[float] = []
        off: list[float] = []
        for i in range(args.captures):
            first = i % 2 == 0
            for settle in (first, not first):
                n = args.records + 2 * i + settle
                req = observation(n, "redis" if args.overturn else f"subject-{n}", "s0")
                (on if settle else off).append(capture(db, policy, req, settle))
        db.dispose()
    added = sorted(a - b for a, b in zip(on, off, strict=True))
    return {
        "store": args.store,
        "records": args.records,
        "captures": args.captures,
        "overturn": args.overturn,
        "with_checks_ms": _summary(on),
        "without_ms": _summary(off),
        "added_p50_ms": round(statistics.median(added), 3),
        "added_p50_of_medians_ms": round(statistics.median(on) - statistics.median(off), 3),
    }


def _summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50": round(statistics.median(ordered), 3),
        "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--captures", type=int, default=400)
    parser.add_argument("--overturn", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    text = json.dumps(run(args), indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
