"""Consolidation benchmark: a store of N agent episodes (bench/episode_store.py says how
it is shaped), then the consolidation job run twice, as production runs it.

The run is `app.jobs.service.run_now(db, settings, "consolidation")` — what `POST
/v1/jobs/consolidation/run` calls, without the HTTP layer (no request timeout can cut a
long run short) — in a fresh `python bench/consolidation.py --child` process opened as
`python -m app.worker` opens its store (Settings from the environment, so MEMBRANE_*
variables of the caller reach the stages, e.g. an LLM for extraction). It takes the job's
leader lock and records a job run with its counts, as every run does.

Reported per run: every count the run returns (whatever stages exist), the job's
duration and the wall time around it, episodes in the store per second of run, the peak
resident memory of the process doing the run (sampled every 20 ms; also its RSS before
the run, after imports; on PostgreSQL the server's backends are not included), and the
records the run added, by type, read from the store. The second run follows right after
the first: with no new episodes it should create nothing. Also reported: the per-run
limits in force (the consolidation settings and every `MAX_*` constant of
app/consolidation), since a stage that caps its work per run leaves the rest to the next.

The store is built once into `built` (a SQLite file or a PostgreSQL database of a
pgserver cluster under --datadir) and copied to `run` before the runs (sqlite3 backup,
or CREATE DATABASE … TEMPLATE), so with --reuse every invocation starts from the same
unconsolidated store.

    .venv/bin/python bench/consolidation.py --store sqlite --episodes 50000 --reuse
    .venv/bin/python bench/consolidation.py --store postgres --episodes 50000 --reuse
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pkgutil
import resource
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (
    LOCOMO,
    REPO_ROOT,
    load_locomo,
    pg_admin,
    phase,
    postmaster_running,
    store_url,
    wipe,
)

BUILT, RUN = "consolidation_built", "consolidation_run"  # PostgreSQL databases
JOB = "consolidation"


# -------------------------------------------------------------------------- store


def store_urls(store: str, admin_url: str) -> tuple[str, str]:
    """URLs of the built store and of the copy the runs work on."""
    url = make_url(admin_url)
    if store == "sqlite":
        base = Path(url.database or "").parent
        return f"sqlite:///{base / 'built.db'}", f"sqlite:///{base / 'run.db'}"
    built, run = (url.set(database=name) for name in (BUILT, RUN))
    return built.render_as_string(False), run.render_as_string(False)


def prepare(args: argparse.Namespace, datadir: Path, admin_url: str, built_url: str) -> Any:
    """Build the store into `built_url`, or reuse the one built before."""
    marker = datadir / "built.json"
    if args.reuse and marker.exists():
        info = json.loads(marker.read_text())
        print(f"reusing the store in {datadir} (built {info.get('built_at')})", file=sys.stderr)
        return info
    from episode_store import build
    from scale_store import Corpus

    from app.db import Database
    from app.migrate import upgrade

    if args.store == "postgres":
        pg_admin(admin_url, f"DROP DATABASE IF EXISTS {BUILT}", f"CREATE DATABASE {BUILT}")
    with phase("migrating"):
        upgrade(built_url)
    source = load_locomo(args.data)
    db = Database(built_url)
    try:
        info = build(
            db, source.lines(), Corpus.from_locomo(source).topics, args.episodes, days=args.days
        )
        t0 = time.perf_counter()
        with phase("planner statistics"):
            db.refresh_planner_stats()  # SQLite (PostgreSQL: VACUUM ANALYZE)
            db.dispose()
            if args.store == "postgres":
                pg_admin(built_url, "VACUUM ANALYZE")
        info["analyze_s"] = round(time.perf_counter() - t0, 1)
    finally:
        db.dispose()
    info["built_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    marker.write_text(json.dumps(info, indent=2) + "\n")
    return info


def restore(store: str, admin_url: str, built_url: str, run_url: str) -> float:
    """Copy the built store to the run store; returns seconds."""
    t0 = time.perf_counter()
    if store == "sqlite":
        built, run = (Path(make_url(u).database or "") for u in (built_url, run_url))
        for suffix in ("", "-wal", "-shm"):
            Path(f"{run}{suffix}").unlink(missing_ok=True)
        src, dst = sqlite3.connect(built), sqlite3.connect(run)
        try:
            src.backup(dst)
        finally:
            src.close()
            dst.close()
    else:
        pg_admin(
            admin_url,
            f"DROP DATABASE IF EXISTS {RUN} WITH (FORCE)",
            f"CREATE DATABASE {RUN} TEMPLATE {BUILT}",
        )
    return round(time.perf_counter() - t0, 1)


def snapshot(url: str) -> dict[str, Any]:
    """Records by type and status, the consolidation marks in the audit log, job runs."""
    from app.db import Database
    from app.models import AuditRow, JobRunRow, RecordRow

    db = Database(url)
    try:
        with db.read_transaction() as session:
            by_type = session.execute(
                select(RecordRow.type, func.count()).group_by(RecordRow.type)
            ).all()
            marks = session.execute(
                select(AuditRow.action, func.count())
                .where(AuditRow.action.like("consolidate:%"))
                .group_by(AuditRow.action)
            ).all()
            runs = session.scalar(select(func.count()).select_from(JobRunRow))
    finally:
        db.dispose()
    return {
        "records": {kind: int(n) for kind, n in sorted(by_type)},
        "consolidation_marks": {action: int(n) for action, n in sorted(marks)},
        "job_runs": int(runs or 0),
    }


def limits() -> dict[str, Any]:
    """What bounds a run: the consolidation settings (scheduler.consolidation_*, the LLM's
    per-run budget; never its address or key) and every MAX_* constant of the
    app/consolidation modules."""
    import app.consolidation as package
    from app.config import Settings

    settings = Settings().model_dump(mode="json")
    scheduler, llm = settings.get("scheduler", {}), settings.get("llm", {})
    out: dict[str, Any] = {f"scheduler.{k}": v for k, v in scheduler.items() if "consol" in k}
    out["llm.enabled"] = bool(llm.get("base_url"))
    out |= {f"llm.{k}": v for k, v in llm.items() if k == "model" or k.startswith("max_")}
    for info in pkgutil.iter_modules(package.__path__):
        try:
            module = importlib.import_module(f"app.consolidation.{info.name}")
        except Exception as exc:  # a stage being written may not import yet
            out[info.name] = f"import failed: {type(exc).__name__}: {exc}"
            continue
        for name, value in sorted(vars(module).items()):
            if name.startswith("MAX_") and isinstance(value, int | float):
                out[f"{info.name}.{name}"] = value
    return out


# ---------------------------------------------------------------------------- run


def rss_mb(field: str = "VmRSS") -> float:
    """Resident memory of this process now: VmRSS, or RssAnon (its own memory, without
    the pages of files it maps: SQLite reads its database through a memory map, and the
    store's pages it touched count in VmRSS while the kernel may drop them at will)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


class RssSampler(threading.Thread):
    """The highest RSS seen while the run goes (sampled every 20 ms), and the highest
    RssAnon. ru_maxrss alone would not do: a transient peak while importing can hide the
    run's own."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak = rss_mb()
        self.peak_anon = rss_mb("RssAnon")
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.02):
            self.peak = max(self.peak, rss_mb())
            self.peak_anon = max(self.peak_anon, rss_mb("RssAnon"))

    def stop(self) -> float:
        self.done.set()
        self.join()
        self.peak_anon = max(self.peak_anon, rss_mb("RssAnon"))
        return round(max(self.peak, rss_mb()), 1)


def child() -> int:
    """One consolidation run in this process, as the worker runs it; JSON on stdout."""
    from app.config import Settings
    from app.db import Database
    from app.jobs.service import run_now

    settings = Settings()
    db = Database(settings.database_url, settings.database)
    before = round(rss_mb(), 1)
    sampler = RssSampler()
    sampler.start()
    t0 = time.perf_counter()
    run = run_now(db, settings, JOB)
    wall = time.perf_counter() - t0
    peak = sampler.stop()
    db.dispose()
    out = {
        "status": run.status,
        "error": run.error,
        "counts": run.counts,
        "job_duration_s": round(run.duration_s or 0.0, 2),
        "wall_s": round(wall, 2),
        "rss_before_run_mb": before,
        "peak_rss_mb": peak,
        "peak_anon_rss_mb": round(sampler.peak_anon, 1),
        "process_max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    print(json.dumps(out))
    return 0


def measured_run(run_url: str, label: str) -> dict[str, Any]:
    """A consolidation run in a fresh process, with the store read before and after."""
    before = snapshot(run_url)
    env = dict(os.environ, MEMBRANE_DATABASE_URL=run_url)
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    with phase(f"consolidation, {label} run"):
        proc = subprocess.run(
            [sys.executable, __file__, "--child"],
            cwd=REPO_ROOT,
            env=env,
            stdout=subprocess.PIPE,
            check=True,
        )
    out: dict[str, Any] = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    after = snapshot(run_url)
    episodes = before["records"].get("episodic", 0)  # compressed ones too, after run 1
    out["episodic_records_in_store"] = episodes
    out["episodes_per_s"] = round(episodes / out["wall_s"], 1) if out["wall_s"] else None
    kinds = sorted(set(before["records"]) | set(after["records"]))
    added = {k: after["records"].get(k, 0) - before["records"].get(k, 0) for k in kinds}
    out["records_added_by_type"] = {k: n for k, n in added.items() if n}
    out["store_before"], out["store_after"] = before, after
    return out


# --------------------------------------------------------------------------- main


def print_report(result: dict[str, Any]) -> None:
    first, second = result["runs"]
    print(f"\nconsolidation: {result['store']}, {first['episodic_records_in_store']:,} episodes "
          f"(built in {result['build']['load_s']}s, copied in {result['restore_s']}s)")  # fmt: skip
    keys = sorted({*first["counts"], *second["counts"]})
    print(f"  {'count':<30}{'run 1':>12}{'run 2':>12}")
    for key in keys:
        a, b = first["counts"].get(key, "-"), second["counts"].get(key, "-")
        print(f"  {key:<30}{a!s:>12}{b!s:>12}")
    rows = {
        "status": "status",
        "job duration s": "job_duration_s",
        "wall s": "wall_s",
        "episodes/s": "episodes_per_s",
        "RSS before run MB": "rss_before_run_mb",
        "peak RSS MB (run)": "peak_rss_mb",
        "peak RssAnon MB (run)": "peak_anon_rss_mb",
        "max RSS MB (process)": "process_max_rss_mb",
    }
    for name, key in rows.items():
        print(f"  {name:<30}{first[key]!s:>12}{second[key]!s:>12}")
    for run, label in ((first, "run 1"), (second, "run 2")):
        print(f"  {label} added: {run['records_added_by_type'] or 'nothing'}")
        if run["error"]:
            print(f"  {label} error: {run['error']}")


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--store", choices=["sqlite", "postgres"])
    ap.add_argument("--episodes", type=int, default=50_000)
    ap.add_argument("--days", type=float, default=7.0, help="episodes spread over this span")
    ap.add_argument("--reuse", action="store_true", help="keep and reuse the built store")
    ap.add_argument("--datadir", type=Path, default=Path("/tmp/membrane-consolidation"))
    ap.add_argument("--data", type=Path, default=LOCOMO)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child()
    if args.store is None:
        ap.error("--store is required")
    from app.migrate import upgrade

    datadir = args.datadir / f"{args.store}-{args.episodes}"
    if not (args.reuse and (datadir / "built.json").exists()):
        wipe(datadir)  # a fresh store (also after a build that did not finish)
    elif postmaster_running(datadir / "pg"):
        raise SystemExit(f"a PostgreSQL server already runs on {datadir / 'pg'}")
    result: dict[str, Any] = {"store": args.store, "episodes": args.episodes}
    with store_url(args.store, datadir) as admin_url:
        built_url, run_url = store_urls(args.store, admin_url)
        result["build"] = prepare(args, datadir, admin_url, built_url)
        result["restore_s"] = restore(args.store, admin_url, built_url, run_url)
        with phase("migrating the copy"):  # a kept store may predate the newest migrations
            upgrade(run_url)
        result["limits"] = limits()
        result["runs"] = [measured_run(run_url, label) for label in ("first", "second")]
    out = args.out or REPO_ROOT / "bench" / "results" / f"consolidation-{args.store}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print_report(result)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
