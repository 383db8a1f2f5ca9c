"""The figures of docs/benchmarks.md, and those README.md's "## Figures" repeats, come
from bench/results/*.json (issue 12, item 9). Every figure is rebuilt from its result
file, formatted as the documents write it, and looked up there: a re-run benchmark whose
figures were not updated fails here, naming the file and field to copy from. No server,
no database.

Rounding as written: Python's format (`f"{x:.0f}"`, halves to even), latencies p50 / p95
in whole ms, recall to three decimals, RSS from the files' MiB (VmRSS / 1024)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
STORES = {"sqlite": "SQLite", "postgres": "PostgreSQL"}


@dataclass(frozen=True)
class Figure:
    """`expected` is in the section (whitespace aside), or with `row`, cell `col` of it."""

    source: str  # "file.json: field"
    expected: str
    row: str | None = None
    col: int = 0


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RESULTS / name).read_text(encoding="utf-8"))
    return data


def section() -> str:
    return (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")


def readme_figures() -> str:
    """README.md's "## Figures" section, up to the next section."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("\n## Figures")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None]


def flat(text: str) -> str:
    return " ".join(text.split())


def ms(entry: dict[str, float]) -> str:
    """p50 / p95 in whole milliseconds."""
    return f"{entry['p50_ms']:.0f} / {entry['p95_ms']:.0f}"


def gib(server: dict[str, Any]) -> str:
    rss = server["rss_mb"]  # a number in older files, per process plus "total" in newer
    total = rss["total"] if isinstance(rss, dict) else rss
    return f"{total / 1024:.1f} GiB"


def consolidation() -> list[Figure]:
    runs = {s: load(f"consolidation-{s}.json")["runs"] for s in STORES}
    sq, pg = runs["sqlite"], runs["postgres"]
    src = "consolidation-{sqlite,postgres}.json: "
    second = [r["wall_s"] for r in sq[1:2] + pg[1:2]]
    added = (
        "nothing" if not any(r["records_added_by_type"] for r in sq[1:] + pg[1:]) else "something"
    )
    figures = [
        Figure(
            src + "runs[0].job_duration_s",
            f"first run SQLite {sq[0]['job_duration_s']:,.0f} s, "
            f"PostgreSQL + pgvector {pg[0]['job_duration_s']:,.0f} s",
        ),
        Figure(
            src + "runs[1].wall_s, runs[1].records_added_by_type",
            f"takes {math.floor(min(second))}–{math.ceil(max(second))} s and creates {added}",
        ),
        Figure(
            src + "runs[0].peak_rss_mb",
            f"peak RSS {sq[0]['peak_rss_mb']:.1f} / {pg[0]['peak_rss_mb']:.1f} MiB",
        ),
    ]
    for store in STORES:
        data = load(f"consolidation-{store}.json")
        c = data["runs"][0]["counts"]
        figures += [
            Figure(f"consolidation-{store}.json: episodes", f"{data['episodes']:,} episodes"),
            Figure(
                f"consolidation-{store}.json: runs[0].counts",
                f"({c['compressed_records']:,} compressed, {c['semantic_created']:,} facts + "
                f"{c['semantic_reinforced']:,} reinforcements, {c['competence_created']:,} "
                f"competence records, {c['plan_graphs_created']:,} plan graphs on both stores)",
            ),
        ]
    return figures


def locomo() -> list[Figure]:
    r10 = {s: load(f"locomo-{s}.json")["service"]["recall_at_k"]["10"] for s in STORES}
    return [
        Figure(
            "locomo-{sqlite,postgres}.json: service.recall_at_k.10",
            f"LoCoMo dev recall@10 through the API: SQLite {r10['sqlite']:.3f}, "
            f"PostgreSQL + pgvector {r10['postgres']:.3f}.",
        )
    ]


def load_ramp() -> list[Figure]:
    figures = []
    for store, name in STORES.items():
        f = f"load-{store}.json"
        data = load(f)
        mix = data["mix"]
        clients = [s["clients"] for s in data["steps"]]
        at_256 = next(s for s in data["steps"] if s["clients"] == 256)
        n = data["server"]["api_workers"]
        row = f"{name} ({n} API process{'es' if n > 1 else ''} + worker)"
        pct = f"{data['goodput_at_256_of_peak'] * 100:.0f} %"
        verify = data["verify"]
        figures += [
            Figure(
                f"{f}: mix",
                f"Load ramp ({mix['retrieve'] * 100:.0f} % retrieve / {mix['capture'] * 100:.0f} "
                f"% capture / {mix['reinforce_or_penalize'] * 100:.0f} % reinforce-penalize",
            ),
            Figure(f"{f}: steps[].clients", f"load ramp {min(clients)} → {max(clients)} clients"),
            Figure(f"{f}: server.api_workers", row, row, 0),
            Figure(f"{f}: peak_goodput_rps", f"{data['peak_goodput_rps']:.1f}", row, 1),
            Figure(
                f"{f}: steps[clients=256].goodput_rps, goodput_at_256_of_peak",
                f"{at_256['goodput_rps']:.1f} ({pct})",
                row,
                2,
            ),
            Figure(f"{f}: slowest_ms", f"{data['slowest_ms'] / 1000:.1f} s", row, 3),
            Figure(
                f"{f}: answered_5xx_other_than_503",
                str(data["answered_5xx_other_than_503"]),
                row,
                4,
            ),
            Figure(f"{f}: verify", f"{verify['lost']} of {verify['acknowledged']}", row, 5),
        ]
    return figures


LATENCY_ROWS = {  # scale table row -> result field (p50 / p95 ms)
    "retrieve, one scope, context on": "retrieve_one_scope_expand",
    "retrieve, one scope, context off": "retrieve_one_scope_no_expand",
    "retrieve, all scopes, context on": "retrieve_all_scopes_expand",
    "retrieve, all scopes, context off": "retrieve_all_scopes_no_expand",
    "graph retrieve": "graph_retrieve",
}


def scale_rows(data: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Scale table row -> (field, cell)."""
    rows = {row: (key, ms(data[key])) for row, key in LATENCY_ROWS.items()}
    vector = data["vector"]
    if "ef_search" in vector:
        recall = f"{vector['recall_at_10']:.3f} (HNSW, ef_search {vector['ef_search']})"
    else:
        recall = f"{vector['recall_at_10']:.1f} (exact scan)"
    rps = " / ".join(f"{data[f'retrieve_rps_c{c}']:.0f}" for c in (1, 8, 32))
    return rows | {
        "retrieves/s at concurrency 1 / 8 / 32": ("retrieve_rps_c1, _c8, _c32", rps),
        "capture requests/s (8 clients) · batch records/s": (
            "capture_single_rps, capture_batch_records_per_s",
            f"{data['capture_single_rps']:.0f} · {data['capture_batch_records_per_s']:.0f}",
        ),
        "worker embedding records/s while serving (lag)": (
            "embedding_records_per_s, embedding_lag_s",
            f"{data['embedding_records_per_s']:.0f} ({data['embedding_lag_s']:.0f} s)",
        ),
        "vector recall@10 vs exact": ("vector", recall),
        "server RSS": ("server.rss_mb", gib(data["server"])),
    }


def load_scale(name: str) -> dict[str, Any]:
    """A bench/scale.py result under the flat names the README table rows use."""
    data = load(name)
    vector = data["vector_index"]
    if "recall_at_10" in vector:  # SQLite: an exact scan
        recall = {"recall_at_10": vector["recall_at_10"]}
    else:  # PostgreSQL: at the ef_search retrieve uses (files before it was a setting: 400)
        ef = vector.get("retrieve_ef_search", 400)
        recall = {"recall_at_10": vector[f"recall_at_10_ef{ef}"], "ef_search": ef}
    flat = {f"retrieve_{k}": v for k, v in data["retrieve_ms"].items()}
    return flat | {
        "store": data["store"],
        "records": data["records"],
        "build": data["build"],
        "graph_retrieve": data["graph_retrieve_ms"],
        **{f"retrieve_rps_{c}": v["rps"] for c, v in data["retrieve_throughput"].items()},
        "capture_single_rps": data["capture_single_c8"]["rps"],
        "capture_batch_records_per_s": data["capture_batch"]["records_per_s"],
        "embedding_records_per_s": data["embedding"]["records_per_s"],
        "embedding_lag_s": data["embedding"]["lag_s"],
        "vector": recall,
        "server": data["server"],
    }


SCALE_FILES = (
    "scale-sqlite-200000.json",
    "scale-postgres-100000.json",
    "scale-postgres-1000000.json",
)


def size(records: int) -> str:
    return f"{records // 1_000_000}M" if records % 1_000_000 == 0 else f"{records // 1000}k"


def scale() -> list[Figure]:
    figures = []
    for col, name in enumerate(SCALE_FILES, 1):
        data = load_scale(name)
        label = f"{STORES[data['store']]} {size(data['records'])}"
        figures.append(Figure(f"{name}: store, records", f"| {label} |"))
        for row, (field, cell) in scale_rows(data).items():
            figures.append(Figure(f"{name}: {field}", cell, row, col))
    f = SCALE_FILES[-1]
    big = load_scale(f)
    turns = load("locomo-sqlite.json")["turns"]
    b = big["build"]
    figures += [
        Figure(f"{f}: build", f"load {b['load_s']:.0f} s, HNSW build {b['index_s']:.0f} s"),
        Figure(f"{f}: vector.recall_at_10", f"the {big['vector']['recall_at_10']:.2f} recall"),
        Figure(
            f"{f}: records / locomo-sqlite.json: turns",
            f"~{round(big['records'] / turns, -1):.0f} near-copies of each of the {turns:,} "
            "base turns",
        ),
    ]
    return figures


REQUEST_COST_ROWS = {
    "healthz": "`GET /healthz`",
    "retrieve_query_one_scope": "retrieve, query, one scope",
    "retrieve_query_all_scopes": "retrieve, query, all scopes",
    "retrieve_no_query": "retrieve, no query",
    "graph": "`POST /v1/retrieve/graph`",
    "get_record": "`GET /v1/records/{id}`",
    "list": "list (20)",
    "metrics": "`GET /v1/metrics`",
    "capture": "`POST /v1/capture`",
    "batch_100": "batch of 100",
}
# Written from two runs of the before-file's code (the plan flipped between them).
REQUEST_COST_BY_HAND = {("retrieve_query_one_scope", 4)}


def latency() -> list[Figure]:
    """bench/latency.py: per store, p50 / statements / CPU, before → after."""
    figures = []
    for i, store in enumerate(STORES):
        before = load(f"latency-{store}-2000-before.json")["operations"]
        after = load(f"latency-{store}-2000-b20429f.json")["operations"]
        for op, row in REQUEST_COST_ROWS.items():
            x, y = before[op], after[op]
            cells = (
                f"{x['p50_ms']:.1f} → **{y['p50_ms']:.1f}**",
                f"{x['statements']:.0f} → {y['statements']:.0f}",
                f"{x['cpu_ms']:.1f} → {y['cpu_ms']:.1f}",
            )
            for j, cell in enumerate(cells):
                col = 1 + 3 * i + j
                if (op, col) not in REQUEST_COST_BY_HAND:
                    figures.append(
                        Figure(f"latency-{store}-2000-b20429f.json: {op}", cell, row, col)
                    )
    return figures


def latency_pair(before: str, after: str | dict[str, str], label: str) -> list[Figure]:
    """bench/latency.py, a pair of runs back to back: rows named by the bench's operations
    (`label`), per store p50, statements and CPU, before (`…-2000-{before}.json`) → after
    (`…-2000-{after}.json`, `after` per store when a dict; `…-2000.json` when `after` is
    empty: the code beside it)."""
    figures = []
    for i, store in enumerate(STORES):
        befores = load(f"latency-{store}-2000-{before}.json")["operations"]
        tag = after[store] if isinstance(after, dict) else after
        name = f"latency-{store}-2000{'-' + tag if tag else ''}.json"
        for op, y in load(name)["operations"].items():
            x = befores[op]
            cells = (
                f"{x['p50_ms']:.1f} → **{y['p50_ms']:.1f}**",
                f"{x['statements']:.0f} → {y['statements']:.0f}",
                f"{x['cpu_ms']:.1f} → {y['cpu_ms']:.1f}",
            )
            for j, cell in enumerate(cells):
                figures.append(Figure(f"{name}: {op}", cell, label.format(op=op), 1 + 3 * i + j))
    return figures


SIXTH_END = {"sqlite": "feee223", "postgres": "2c291e6"}


def latency_today() -> list[Figure]:
    """The fifth session's pair (bd155e0 → 4ba658f, rows named plainly), the sixth's
    (7603638 → its end, rows named in code type), the seventh's (36cc118 → ef11b18, rows
    named with the day), the eighth's, ninth's, eleventh's and twelfth's, and the
    thirteenth's (c2b0255 → 539da2e) and the fourteenth's (27b62e8 → the newest file), rows
    named so."""
    return (
        latency_pair("bd155e0", "4ba658f", "{op}")
        + latency_pair("7603638", SIXTH_END, "`{op}`")
        + latency_pair("36cc118", "ef11b18", "{op}, 11-27")
        + latency_pair("009ea52", "87cfeef", "{op}, eighth")
        + latency_pair("5e46393", "590e608", "{op}, ninth")
        + latency_pair("a5eb0f5", "89bf2aa", "{op}, eleventh")
        + latency_pair("c210f08", "2a74302", "{op}, twelfth")
        + latency_pair("c2b0255", "539da2e", "{op}, thirteenth")
        + latency_pair("27b62e8", "", "{op}, fourteenth")
    )


def instructions() -> list[Figure]:
    """bench/instructions.py, the eighteenth session's pair (ce56c2a → ae21820): per
    operation and store, millions of instructions a request, before → after."""
    figures = []
    for i, store in enumerate(STORES):
        before = load(f"instructions-{store}-2000-ce56c2a.json")["instructions_per_request"]
        name = f"instructions-{store}-2000-ae21820.json"
        for op, y in load(name)["instructions_per_request"].items():
            cell = f"{before[op] / 1e6:.1f} → **{y / 1e6:.1f}**"
            figures.append(Figure(f"{name}: {op}", cell, f"{op}, instructions", 1 + i))
    return figures


def runs_before_after(before: list[Any], after: list[Any], key: str, fmt: str = ".1f") -> str:
    """Alternated runs as the documents write them: `a / b → c / d` (each run's `key`)."""
    return " → ".join(" / ".join(f"{run[key]:{fmt}}" for run in runs) for runs in (before, after))


def batch_write_behind() -> list[Figure]:
    """bench/latency.py, the nineteenth session's three alternated PostgreSQL pairs
    (75f6952 → 2fc7ac8) of a batch of 100 and a single capture: p50s and p95s in order."""
    before, after = (
        [load(f"latency-postgres-batch-{c}-{k}.json")["operations"] for k in (1, 2, 3)]
        for c in ("75f6952", "2fc7ac8")
    )

    def chain(op: str, key: str) -> str:
        return runs_before_after([r[op] for r in before], [r[op] for r in after], key)

    src = "latency-postgres-batch-{75f6952,2fc7ac8}-{1,2,3}.json: "
    quiet = after[0]["batch_100"]["p50_ms"]
    return [
        Figure(src + "batch_100.p50_ms", f"batch p50 {chain('batch_100', 'p50_ms')} ms"),
        Figure(src + "batch_100.p95_ms", f"p95 {chain('batch_100', 'p95_ms')};"),
        Figure(src + "capture.p50_ms", f"read {chain('capture', 'p50_ms')} ms"),
        Figure(src + "batch_100.p50_ms", f"{quiet:.1f} ms is {100_000 / quiet:,.0f} records/s"),
    ]


def consolidation_statistics() -> list[Figure]:
    """The nineteenth session's alternated PostgreSQL consolidation pairs, 3,000 episodes
    (75f6952 → bf672a0): job seconds and episodes/s of the first run, in order."""
    before, after = (
        [load(f"consolidation-postgres-3000-{c}-{k}.json")["runs"][0] for k in (1, 2)]
        for c in ("75f6952", "bf672a0")
    )
    src = "consolidation-postgres-3000-{75f6952,bf672a0}-{1,2}.json: runs[0]"
    assert before[0]["counts"] == after[0]["counts"]  # the same work
    big = [
        load(f"consolidation-postgres-50000-{c}.json")["runs"][0] for c in ("75f6952", "bf672a0")
    ]
    assert big[0]["counts"] == big[1]["counts"]
    src50 = "consolidation-postgres-50000-{75f6952,bf672a0}.json: runs[0]"
    return [
        Figure(src + ".job_duration_s", runs_before_after(before, after, "job_duration_s") + " s"),
        Figure(
            src + ".episodes_per_s",
            runs_before_after(before, after, "episodes_per_s") + " episodes/s",
        ),
        Figure(
            src50 + ".job_duration_s",
            f"{runs_before_after(big[:1], big[1:], 'job_duration_s')} s, "
            f"{runs_before_after(big[:1], big[1:], 'episodes_per_s')} episodes/s",
        ),
    ]


def no_query_statement() -> list[Figure]:
    """The nineteenth session's shorter no-query statement: instructions per store
    (3468675 → 8cc176d) and the two alternated PostgreSQL HTTP pairs."""
    figures = []
    for store in STORES:
        before, after = (
            load(f"instructions-{store}-2000-noq-{c}.json")["instructions_per_request"]
            for c in ("3468675", "8cc176d")
        )
        cell = f"{before['retrieve_no_query'] / 1e6:.2f} → {after['retrieve_no_query'] / 1e6:.2f} M"
        figures.append(Figure(f"instructions-{store}-2000-noq-*.json", f"{STORES[store]} {cell}"))
    before, after = (
        [
            load(f"latency-postgres-noq-{c}-{k}.json")["operations"]["retrieve_no_query"]
            for k in (1, 2)
        ]
        for c in ("3468675", "8cc176d")
    )

    bm25 = [
        load(f"instructions-postgres-2000-bm25-{c}.json")["instructions_per_request"]
        for c in ("3468675", "2bbf888")
    ]
    for op in ("retrieve_query_all_scopes", "retrieve_query_one_scope"):
        cell = f"{bm25[0][op] / 1e6:.2f} → {bm25[1][op] / 1e6:.2f} M"
        figures.append(Figure(f"instructions-postgres-2000-bm25-*.json: {op}", cell))
    src = "latency-postgres-noq-{3468675,8cc176d}-{1,2}.json: retrieve_no_query."
    p50 = runs_before_after(before, after, "p50_ms")
    figures.append(Figure(src + "p50_ms", f"{p50} ms, API CPU"))
    figures.append(
        Figure(src + "cpu_ms", f"CPU {runs_before_after(before, after, 'cpu_ms', '.2f')} ms")
    )
    return figures


def p50_pairs(
    name: str, commits: tuple[str, str], runs: int, ops: dict[str, str], store: str = "postgres"
) -> list[Figure]:
    """Alternated HTTP pairs of `latency-{store}-{name}-{commit}-{k}.json`, the code before
    first: for each operation of `ops`, the words before its p50 chain ('a / b → c / d ms')."""
    before, after = (
        [load(f"latency-{store}-{name}-{c}-{k}.json")["operations"] for k in range(1, runs + 1)]
        for c in commits
    )
    src = f"latency-{store}-{name}-{{{','.join(commits)}}}-{{1..{runs}}}.json: "
    figures = []
    for op, words in ops.items():
        chain = runs_before_after([r[op] for r in before], [r[op] for r in after], "p50_ms")
        figures.append(Figure(src + op + ".p50_ms", f"{words} {chain} ms"))
    return figures


def twentieth_session() -> list[Figure]:
    """The vector cache and prepared look-ups (e4dbf6e → f8ac22c, three pairs), the
    prepared retrieve without a query (4bb203b → bdbc9a4, two pairs), LoCoMo after them."""
    healthz = {"healthz": "`/healthz`"}
    queries = {"retrieve_query_one_scope": "one scope", "retrieve_query_all_scopes": "all scopes"}
    no_query = {"retrieve_no_query": "p50", "get_record": "a GET"}
    recall = load("locomo-postgres-00ef877.json")["service"]["recall_at_k"]["10"]
    return [
        *p50_pairs("vcache", ("e4dbf6e", "f8ac22c"), 3, queries | healthz),
        *p50_pairs("noqprep", ("4bb203b", "bdbc9a4"), 2, no_query | healthz),
        Figure("locomo-postgres-00ef877.json", f"again {recall:.4f} at 00ef877"),
    ]


def twenty_first_session() -> list[Figure]:
    """The whole bench at the session's start and end (312a738 → 2c091fe, two pairs per
    store), LoCoMo on PostgreSQL at c6b9c53."""
    pg = {
        "retrieve_query_one_scope": "PostgreSQL p50: one scope",
        "retrieve_query_all_scopes": "all scopes",
        "retrieve_no_query": "no query",
        "get_record": "a GET",
        "capture": "capture",
        "healthz": "with `/healthz`",
    }
    sqlite = {
        "retrieve_query_one_scope": "SQLite one scope",
        "get_record": "a GET",
        "batch_100": "batch of 100",
    }
    commits = ("312a738", "2c091fe")
    recall = load("locomo-postgres-c6b9c53.json")["service"]["recall_at_k"]["10"]
    end = {
        "retrieve_query_all_scopes": "p50: all scopes",
        "graph": "graph",
        "retrieve_query_one_scope": "one scope",
        "get_record": "a GET",
        "capture": "capture",
    }
    sqlite_end = load("latency-sqlite-2000-b78d9ee-1.json")["operations"]
    end_recall = load("locomo-postgres-98439e0.json")["service"]["recall_at_k"]["10"]
    return [
        *p50_pairs("2000", commits, 2, pg),
        *p50_pairs("2000", commits, 2, sqlite, store="sqlite"),
        Figure("locomo-postgres-c6b9c53.json", f"c6b9c53: {recall:.4f}, as before"),
        Figure("locomo-postgres-98439e0.json", f"98439e0: {end_recall:.4f}, unchanged"),
        *p50_pairs("2000", ("312a738", "b78d9ee"), 2, end),
        Figure(
            "latency-sqlite-2000-b78d9ee-1.json",
            f"one scope {sqlite_end['retrieve_query_one_scope']['p50_ms']:.1f} ms",
        ),
        Figure(
            "latency-sqlite-2000-b78d9ee-1.json",
            f"batch of 100 {sqlite_end['batch_100']['p50_ms']:.1f} ms",
        ),
    ]


def twenty_second_session() -> list[Figure]:
    """Fewer dependencies, hot routes first, the request threads (69f1073 → b656db7):
    instructions a request per operation and store, before → after."""
    figures = []
    for store in STORES:
        before, after = (
            load(f"instructions-{store}-2000-{c}.json")["instructions_per_request"]
            for c in ("69f1073", "b656db7")
        )
        for op in ("get_record", "retrieve_no_query", "capture", "list"):
            cell = f"{before[op] / 1e6:.2f} → {after[op] / 1e6:.2f} M"
            src = f"instructions-{store}-2000-{{69f1073,b656db7}}.json: {op}"
            named = f"{STORES[store]} {op}" if op == "get_record" else op
            figures.append(Figure(src, f"{named} {cell}"))
    return figures


def twenty_third_session() -> list[Figure]:
    """A scope's vectors through their own index (040e9f2 → 56a8268): the 100,000-record,
    100-scope PostgreSQL store's one-scope retrieve and 32-client throughput, and LoCoMo
    on PostgreSQL after it."""
    pair = "scale-postgres-100000-s100-{040e9f2,56a8268}.json"
    before, after = (load(f"scale-postgres-100000-s100-{c}.json") for c in ("040e9f2", "56a8268"))
    one = [r["retrieve_ms"]["one_scope_expand"] for r in (before, after)]
    c32 = [r["retrieve_throughput"]["c32"]["rps"] for r in (before, after)]
    recall = load("locomo-postgres-56a8268.json")["service"]["recall_at_k"]["10"]
    return [
        Figure(
            f"{pair}: retrieve_ms.one_scope_expand",
            f"one scope p50 / p95 {one[0]['p50_ms']} / {one[0]['p95_ms']} → "
            f"{one[1]['p50_ms']} / {one[1]['p95_ms']} ms",
        ),
        Figure(f"{pair}: retrieve_throughput.c32", f"32 clients {c32[0]} → {c32[1]} retrieves/s"),
        Figure("locomo-postgres-56a8268.json: recall@10", f"recall@10 {recall:.4f}"),
        *million_scope_runs(),
    ]


def twenty_sixth_session() -> list[Figure]:
    """The name look-up inside the lexical search (d269dd7 → the end, per store):
    instructions a query retrieve, start → end."""
    figures = []
    for store, end in (("sqlite", "c8944c8"), ("postgres", "2f53fb3")):
        before, after = (
            load(f"instructions-{store}-2000-{c}.json")["instructions_per_request"]
            for c in ("d269dd7", end)
        )
        for col, op in enumerate(("retrieve_query_one_scope", "retrieve_query_all_scopes")):
            cell = f"{before[op] / 1e6:.2f} → {after[op] / 1e6:.2f} M"
            row = "query retrieve, one scope" if col == 0 else "query retrieve, all scopes"
            src = f"instructions-{store}-2000-{{d269dd7,{end}}}.json: {op}"
            figures.append(Figure(src, cell, row, 1 if store == "sqlite" else 2))
    return figures


def twenty_seventh_session() -> list[Figure]:
    """Instructions a request per operation, the session's start → its end (bbd891d →
    5b09645), rows named `{op}, instructions at the end`; the two latency rounds back to back."""
    figures = []
    for col, store in enumerate(STORES, start=1):
        before, after = (
            load(f"instructions-{store}-2000-{c}.json")["instructions_per_request"]
            for c in ("bbd891d", "5b09645")
        )
        for op in before:  # the operations measured, in the files' order
            cell = f"{before[op] / 1e6:.2f} → {after[op] / 1e6:.2f} M"
            src = f"instructions-{store}-2000-{{bbd891d,5b09645}}.json: {op}"
            figures.append(Figure(src, cell, f"{op}, instructions at the end", col))
    for round_ in ("1", "2"):
        label = "{op}, round " + round_
        figures += latency_pair(f"bbd891d-{round_}", f"159cec8-{round_}", label)
        label = "{op}, final " + round_
        figures += latency_pair(f"bbd891d-f{round_}", f"dfd9478-{round_}", label)
    return figures


def twenty_eighth_session() -> list[Figure]:
    """Instructions a request, the session's start → its end (4e01b58), rows named
    `{op}, routes and headers`: SQLite from e98c3b2, PostgreSQL from 5b09645 (the
    previous session's measured code; only review commits between)."""
    figures = []
    for col, (store, start) in enumerate((("sqlite", "e98c3b2"), ("postgres", "5b09645")), 1):
        before, after = (
            load(f"instructions-{store}-2000-{c}.json")["instructions_per_request"]
            for c in (start, "4e01b58")
        )
        for op in after:
            was = f"{before[op] / 1e6:.2f}" if op in before else "—"
            cell = f"{was} → {after[op] / 1e6:.2f} M"
            src = f"instructions-{store}-2000-{{{start},4e01b58}}.json: {op}"
            figures.append(Figure(src, cell, f"{op}, routes and headers", col))
    return figures


def twenty_ninth_session() -> list[Figure]:
    """Instructions a request in the app alone (`--driver asgi`), the session's start
    (3434600, the app of a1234f6) → its end (6157e75), rows named `{op}, app alone`."""
    figures = []
    for col, store in enumerate(("sqlite", "postgres"), 1):
        before, after = (
            load(f"instructions-{store}-2000-asgi-{c}.json")["instructions_per_request"]
            for c in ("3434600", "6157e75")
        )
        for op in after:
            cell = f"{before[op] / 1e6:.2f} → {after[op] / 1e6:.2f} M"
            src = f"instructions-{store}-2000-asgi-{{3434600,6157e75}}.json: {op}"
            figures.append(Figure(src, cell, f"{op}, app alone", col))
    return figures


THIRTIETH = ("1bd7b42", "6b01d99", "2686dc1")  # the start, the rescoring, the batch's reads


def thirtieth_session() -> list[Figure]:
    """One-client cost on this machine at the start (latency-{store}-2000-1bd7b42.json,
    rows `{op}, thirtieth`: p50 / statements / CPU), and SQLite at 200,000 records run by
    run (scale-sqlite-200000-{THIRTIETH}.json), rows named `…, 200k, thirtieth`."""
    figures = []
    for col, store in enumerate(STORES):
        f = f"latency-{store}-2000-1bd7b42.json"
        for op, x in load(f)["operations"].items():
            cells = (f"{x['p50_ms']:.1f}", f"{x['statements']:.0f}", f"{x['cpu_ms']:.1f}")
            for j, cell in enumerate(cells):
                figures.append(Figure(f"{f}: {op}", cell, f"{op}, thirtieth", 1 + 3 * col + j))
    runs = [load(f"scale-sqlite-200000-{c}.json") for c in THIRTIETH]
    rows: dict[str, Callable[[dict[str, Any]], str]] = {
        "one scope, context on, 200k, thirtieth": lambda d: ms1(
            d["retrieve_ms"]["one_scope_expand"]
        ),
        "all scopes, context on, 200k, thirtieth": lambda d: ms1(
            d["retrieve_ms"]["all_scopes_expand"]
        ),
        "graph retrieve, 200k, thirtieth": lambda d: ms1(d["graph_retrieve_ms"]),
        "retrieves/s at 1 / 8 / 32 clients, 200k, thirtieth": lambda d: " / ".join(
            f"{d['retrieve_throughput'][c]['rps']:.0f}" for c in ("c1", "c8", "c32")
        ),
        "batch records/s, 200k, thirtieth": lambda d: f"{d['capture_batch']['records_per_s']:.0f}",
    }
    for row, cell_of in rows.items():
        for col, (commit, data) in enumerate(zip(THIRTIETH, runs, strict=True), 1):
            f = f"scale-sqlite-200000-{commit}.json"
            figures.append(Figure(f"{f}: {row}", cell_of(data), row, col))
    for store in STORES:
        f = f"embedding-{store}-42d71e5.json"
        figures.append(Figure(f, f"{load(f)['worker']['records_per_s']:.1f}"))
    f = "consolidation-sqlite-50000-25aa88a.json"
    figures.append(Figure(f, f"ran at {load(f)['runs'][0]['episodes_per_s']:.1f} episodes/s"))
    ramp = load("load-postgres-42d71e5.json")
    f, peak = "load-postgres-42d71e5.json", ramp["peak_goodput_rps"]
    figures.append(Figure(f"{f}: peak_goodput_rps", f"peaked at {peak:.1f} 2xx/s"))
    at_256 = f"held {ramp['goodput_at_256_of_peak'] * 100:.0f} % of that"
    figures.append(Figure(f"{f}: goodput_at_256_of_peak", at_256))
    for col, commit in enumerate(("d7132b1", "c13d1f8"), 1):  # PostgreSQL 1M, fresh builds
        f = f"scale-postgres-1000000-{commit}.json"
        data = load(f)
        for row, cell_of in rows.items():
            if "graph" not in row:
                big_row = row.replace("200k", "1M")
                figures.append(Figure(f"{f}: {big_row}", cell_of(data), big_row, col))
    for commit_col, commit in enumerate(THIRTIETH[1:], 1):  # PostgreSQL 100k, fresh stores
        f = f"scale-postgres-100000-{commit}.json"
        data = load(f)
        for row, cell_of in rows.items():
            if "all scopes" in row or "graph" in row:
                continue
            pg_row = row.replace("200k", "100k")
            figures.append(Figure(f"{f}: {pg_row}", cell_of(data), pg_row, commit_col))
    return figures


THIRTY_FIRST = ("4c769da", "4adc860", "88d3bbe")  # the start (fresh), row locks, the end


def thirty_first_session() -> list[Figure]:
    """PostgreSQL at 100,000 records, the start against the end of the row-lock change
    (scale-postgres-100000-{THIRTY_FIRST}.json), rows named `…, 100k, thirty-first`; the
    candidate pool tried at 100 (locomo-sqlite-pool100-4c769da.json)."""
    figures = []
    rows: dict[str, Callable[[dict[str, Any]], str]] = {
        "one scope, context on, 100k, thirty-first": lambda d: ms1(
            d["retrieve_ms"]["one_scope_expand"]
        ),
        "all scopes, context on, 100k, thirty-first": lambda d: ms1(
            d["retrieve_ms"]["all_scopes_expand"]
        ),
        "retrieves/s at 1 / 8 / 32 clients, 100k, thirty-first": lambda d: " / ".join(
            f"{d['retrieve_throughput'][c]['rps']:.0f}" for c in ("c1", "c8", "c32")
        ),
        "captures/s at 8 clients, 100k, thirty-first": lambda d: (
            f"{d['capture_single_c8']['rps']:.0f}"
        ),
        "batch items/s, 100k, thirty-first": lambda d: f"{d['capture_batch']['items_per_s']:.0f}",
        "batch p50 / p99 ms, 100k, thirty-first": lambda d: (
            f"{d['capture_batch']['batch_ms']['p50_ms']:.0f} / "
            f"{d['capture_batch']['batch_ms']['p99_ms']:.0f}"
        ),
        "worker records/s after the captures, 100k, thirty-first": lambda d: (
            f"{d['embedding']['records_per_s']:.1f}"
        ),
    }
    for row, cell_of in rows.items():
        for col, commit in enumerate(THIRTY_FIRST, 1):
            f = f"scale-postgres-100000-{commit}.json"
            figures.append(Figure(f"{f}: {row}", cell_of(load(f)), row, col))
    f = "locomo-sqlite-pool100-4c769da.json"
    recall = load(f)["service"]["recall_at_k"]["10"]
    figures.append(Figure(f"{f}: recall_at_k.10", f"R@10 {recall:.4f}"))
    f = "locomo-postgres-eeac0a2.json"
    recall = load(f)["service"]["recall_at_k"]["10"]
    figures.append(Figure(f"{f}: recall_at_k.10", f"PostgreSQL R@10 {recall:.4f}"))
    ramp = load("load-postgres-4adc860.json")
    f, peak = "load-postgres-4adc860.json", ramp["peak_goodput_rps"]
    figures.append(Figure(f"{f}: peak_goodput_rps", f"peaked at {peak:.1f} 2xx/s at 8 clients"))
    at_256 = f"held {ramp['goodput_at_256_of_peak'] * 100:.0f} % of that at 256"
    figures.append(Figure(f"{f}: goodput_at_256_of_peak", at_256))
    for col, commit in enumerate(("4c769da", "eeac0a2")):  # one client, 2,000 records
        f = f"latency-postgres-2000-{commit}.json"
        for op, x in load(f)["operations"].items():
            cells = (f"{x['p50_ms']:.1f}", f"{x['cpu_ms']:.1f}")
            for j, cell in enumerate(cells):
                figures.append(Figure(f"{f}: {op}", cell, f"{op}, thirty-first", 1 + 2 * col + j))
    return figures


def thirty_second_session() -> list[Figure]:
    """PostgreSQL's vector matrix: one client at 2,000 records, the start against the end
    (latency-postgres-2000-{7898023,7dd7a4c}.json, rows `…, thirty-second`), the load ramp
    at both, API instructions, LoCoMo scoped and across scopes."""
    figures = []
    for col, commit in enumerate(("7898023", "7dd7a4c")):
        f = f"latency-postgres-2000-{commit}.json"
        for op, x in load(f)["operations"].items():
            cells = (f"{x['p50_ms']:.1f}", f"{x['cpu_ms']:.1f}")
            for j, cell in enumerate(cells):
                figures.append(Figure(f"{f}: {op}", cell, f"{op}, thirty-second", 1 + 2 * col + j))
    for f, clients in (("load-postgres-7898023.json", 8), ("load-postgres-9f133f3.json", 16)):
        ramp = load(f)
        peak = f"peaked at {ramp['peak_goodput_rps']:.1f} 2xx/s at {clients} clients"
        figures.append(Figure(f"{f}: peak_goodput_rps", peak))
        held = f"{ramp['goodput_at_256_of_peak'] * 100:.0f} %"
        figures.append(Figure(f"{f}: goodput_at_256_of_peak", f"held {held}"))
    start = load("instructions-postgres-2000-7898023.json")["instructions_per_request"]
    end = load("instructions-postgres-2000-9f133f3.json")["instructions_per_request"]
    for op in ("retrieve_query_all_scopes", "retrieve_query_one_scope"):
        cell = f"{start[op] / 1e6:.2f} → {end[op] / 1e6:.2f} M"
        figures.append(Figure(f"instructions-postgres-2000-9f133f3.json: {op}", cell))
    f = "locomo-postgres-1736a65.json"
    recall = load(f)["service"]["recall_at_k"]["10"]
    figures.append(Figure(f"{f}: recall_at_k.10", f"PostgreSQL scoped R@10 {recall:.4f}"))
    for commit in ("45eddbf", "1736a65"):
        f = f"locomo-postgres-across-scopes-{commit}.json"
        recall = load(f)["service"]["recall_at_k"]["10"]
        figures.append(Figure(f"{f}: recall_at_k.10", f"across scopes R@10 {recall:.4f}"))
    return figures


def ms1(entry: dict[str, float]) -> str:
    """p50 / p95 to a tenth of a millisecond."""
    return f"{entry['p50_ms']:.1f} / {entry['p95_ms']:.1f}"


def million_scope_runs() -> list[Figure]:
    """The 1M PostgreSQL store's one-scope retrieve, run by run (new, old, new)."""
    figures = []
    for commit in ("56a8268", "040e9f2", "a390a2a"):
        f = f"scale-postgres-1000000-{commit}.json"
        one = load(f)["retrieve_ms"]["one_scope_expand"]
        cell = f"{commit} {one['p50_ms']} / {one['p95_ms']} ms"
        figures.append(Figure(f"{f}: retrieve_ms.one_scope_expand", cell))
    return figures


FIGURES = (
    consolidation()
    + locomo()
    + load_ramp()
    + scale()
    + latency()
    + latency_today()
    + latency_pair("ce56c2a", "48188b4", "{op}, eighteenth")
    + instructions()
    + batch_write_behind()
    + consolidation_statistics()
    + no_query_statement()
    + twentieth_session()
    + twenty_first_session()
    + twenty_second_session()
    + twenty_sixth_session()
    + twenty_third_session()
    + twenty_seventh_session()
    + twenty_eighth_session()
    + twenty_ninth_session()
    + thirtieth_session()
    + thirty_first_session()
    + thirty_second_session()
)


def table_row(text: str, first_cell: str) -> list[str]:
    """The cells of the table row whose first cell is `first_cell` (none: no such row)."""
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines()]
    return next((cells for cells in rows if cells[0] == first_cell), [])


@pytest.mark.parametrize(
    "figure", FIGURES, ids=lambda f: f.source + (f" [{f.row}]" if f.row else "")
)
def test_readme_figure_matches_result_file(figure: Figure) -> None:
    text = section()
    hint = f"docs/benchmarks.md: update the figure from bench/results/{figure.source}"
    if figure.row is None:
        assert flat(figure.expected) in flat(text), f"{hint}: expected {figure.expected!r}"
    else:
        cells = table_row(text, figure.row)
        assert cells, f"{hint}: no table row {figure.row!r} (expected cell {figure.expected!r})"
        cell = cells[figure.col]
        assert cell == figure.expected, (
            f"{hint}: row {figure.row!r} has {cell!r}, the file gives {figure.expected!r}"
        )


# The README repeats these (its "## Figures" section); they must agree with the files too.
README_FIGURES = locomo()


@pytest.mark.parametrize("figure", README_FIGURES, ids=lambda f: f.source)
def test_readme_repeats_the_figure_as_the_result_file_gives_it(figure: Figure) -> None:
    hint = f"README.md ## Figures: update the figure from bench/results/{figure.source}"
    assert flat(figure.expected) in flat(readme_figures()), f"{hint}: {figure.expected!r}"


def scaling() -> list[Figure]:
    """docs/scaling.md's table of goodput by API processes, and the README's summary."""
    f = "scaling-postgres-16cores.json"
    data = load(f)
    figures = []
    for count, peak in data["by_processes"].items():
        dip = f"{data['dip_after_peak'][count] * 100:.0f} %"
        figures += [
            Figure(f"{f}: by_processes[{count}]", f"{peak:.1f}", count, 1),
            Figure(f"{f}: ratio_to_first[{count}]", f"{data['ratio_to_first'][count]}", count, 2),
            Figure(f"{f}: dip_after_peak[{count}]", dip, count, 3),
        ]
    off = data["without_rebalance"]
    row = f"{off['processes']}, rebalancing off"
    figures.append(Figure(f"{f}: without_rebalance", f"{off['peak_goodput_rps']:.1f}", row, 1))
    replica = load("scaling-postgres-16cores-replica.json")["with_replica"]
    figures.append(
        Figure(
            "scaling-postgres-16cores-replica.json: with_replica",
            f"peaked at {replica['peak_goodput_rps']:.1f} 2xx/s with reads on the standby "
            f"against {replica['without_replica_rps']:.1f} without",
        )
    )
    return figures


@pytest.mark.parametrize(
    "figure", scaling(), ids=lambda f: f.source + (f" [{f.row}]" if f.row else "")
)
def test_scaling_figures_match_the_result_files(figure: Figure) -> None:
    text = (ROOT / "docs" / "scaling.md").read_text(encoding="utf-8")
    hint = f"docs/scaling.md: update the figure from bench/results/{figure.source}"
    if figure.row is None:
        assert flat(figure.expected) in flat(text), f"{hint}: expected {figure.expected!r}"
        return
    cells = table_row(text, figure.row)
    assert cells and cells[figure.col] == figure.expected, f"{hint}: {cells} {figure.expected!r}"
    if figure.col == 1 and "," not in figure.row:  # the README repeats each peak
        readme = (ROOT / "README.md").read_text(encoding="utf-8")
        assert f"{figure.row} → {figure.expected}" in readme or figure.row == "2", hint
