"""The OpenAPI document is the contract (DESIGN §3): Schemathesis fuzzes every operation of
a real server (uvicorn on loopback) on each store and checks every answer against the
document — no 5xx, status codes, content types, headers and bodies as declared.

Every run draws a fresh seed (FUZZ_SEED fixes one), printed with the summary so that a
failure replays; the deterministic coverage phase sends the same boundary cases whatever the
seed. `make test` runs a short campaign (FUZZ_EXAMPLES unset: CI_EXAMPLES random cases per
operation, no shrinking, the coverage phase trimmed as NESTED_CREATES says); `make fuzz`
runs FUZZ_EXAMPLES random cases per store (default 10,000) with shrinking and keeps its
reports in FUZZ_REPORT_DIR. Every phase runs: the documented examples, the deterministic
coverage phase (boundary and invalid values of every parameter and body field, unexpected
methods), random fuzzing, and stateful sequences over the links of `tests/fuzz_hooks.py`.
No operation is excluded; DELETE and the admin jobs run too (records they remove only make
later calls answer 404, which the document declares). Knobs: FUZZ_SEED, FUZZ_WORKERS
(concurrent Schemathesis workers, default 1), FUZZ_CHECKS (extra checks to explore, or
`all`; not for CI: some of them flag answers the document allows).

Schemathesis runs as its own process (`python -m schemathesis.cli`, the documented runner),
so its Hypothesis settings and threads never mix with pytest's; the server runs here, in a
thread, on the test's fresh database, and its log goes to a file for the failure report.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import secrets
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import KEYS, make_settings
from tests.live_support import live_server

ROOT = Path(__file__).resolve().parents[1]
CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
)
# Exploring: FUZZ_CHECKS=all (or a comma-separated list) runs other Schemathesis checks too.
EXTRA_CHECKS = [c for c in os.environ.get("FUZZ_CHECKS", "").split(",") if c]
CI_EXAMPLES = 5  # fuzzing-phase cases per operation under `make test`
WORKERS = int(os.environ.get("FUZZ_WORKERS", "1"))
# A fresh seed every run (make test, CI and make fuzz alike), printed and written into the
# summary so that a failure replays: FUZZ_SEED=<seed> make fuzz (or the same pytest line).
SEED = int(os.environ.get("FUZZ_SEED") or secrets.randbelow(2**31))
ADMIN_KEY = KEYS["admin"][0]
# Operations whose body nests a whole RecordCreate. Under `make test` their coverage phase
# sends only the positive (schema-valid) cases: the ~2,400 invalid variants of the nested
# record per store meet the same validation POST /v1/records' own coverage phase already
# sends, and would add half again to the run. They keep every other phase; `make fuzz`
# sends all.
NESTED_CREATES = ("supersedeRecord", "forkRecord", "mergeRecords")
MAX_LINE = 400  # report lines are cut here (a generated string can be 100,000 chars)


@dataclass(frozen=True)
class Budget:
    """How much one store's campaign generates."""

    examples_per_operation: int  # fuzzing phase; the coverage phase adds its fixed cases
    shrink: bool
    timeout_s: float | None
    full_coverage: bool  # negative coverage cases for NESTED_CREATES too
    stateful_steps: int  # the longest chain of calls in one stateful scenario


def budget(operations: int) -> Budget:
    total = os.environ.get("FUZZ_EXAMPLES", "")
    if not total:
        return Budget(
            CI_EXAMPLES, shrink=False, timeout_s=900, full_coverage=False, stateful_steps=6
        )
    per_operation = max(1, math.ceil(int(total) / operations))
    return Budget(per_operation, shrink=True, timeout_s=None, full_coverage=True, stateful_steps=12)


def schemathesis_config(budget: Budget) -> str:
    """schemathesis.toml for one run: seeded, no cache or example database carried over
    between runs (every run starts from the same state), admin key on every request."""
    enabled = ["all"] if "all" in EXTRA_CHECKS else [*CHECKS, *EXTRA_CHECKS]
    checks = "\n".join(
        "enabled = true" if name == "all" else f"{name}.enabled = true" for name in enabled
    )
    trimmed = f"""
[[operations]]
include-operation-id = {json.dumps(list(NESTED_CREATES))}
phases.coverage.generation.mode = "positive"
"""
    return f"""\
seed = {SEED}
suppress-health-check = ["all"]
headers = {{ Authorization = "Bearer {ADMIN_KEY}" }}
workers = {WORKERS}
request-timeout = 60
hooks = "tests.fuzz_hooks"

[cache]
enabled = false

[output.sanitization]
enabled = false

[generation]
max-examples = {budget.examples_per_operation}
no-shrink = {str(not budget.shrink).lower()}
database = "none"

[phases.stateful]
max-steps = {budget.stateful_steps}

[checks]
{"" if "all" in enabled else "enabled = false"}
{checks}
{"" if budget.full_coverage else trimmed}"""


@dataclass
class Run:
    """What one Schemathesis run left behind."""

    returncode: int
    seconds: float
    output: str
    report: dict[str, Any]
    server_log: str
    artefacts: Path

    def summary(self, store: str) -> str:
        cases = self.report.get("test_cases", {})
        failures = [
            f"  {f['code']} {f['title']} x{f['count']}: {', '.join(f['operations'])}"
            for f in self.report.get("failures", [])
        ]
        errors = [f"  {json.dumps(e)[:MAX_LINE]}" for e in self.report.get("errors", [])]
        return "\n".join(
            [
                f"schemathesis on {store} (seed {SEED}; replay: FUZZ_SEED={SEED}): "
                f"exit {self.returncode} in {self.seconds:.0f} s, "
                f"{cases.get('generated', '?')} cases, "
                f"{cases.get('unique_failures', '?')} unique failures",
                *failures,
                *(["errors:", *errors] if errors else []),
                f"artefacts: {self.artefacts}",
            ]
        )

    def explain(self, store: str) -> str:
        return "\n\n".join(
            [
                self.summary(store),
                "server exceptions (from server.log):\n" + server_exceptions(self.server_log),
                "schemathesis failures (full output in schemathesis.txt):\n"
                + failures_section(self.output),
            ]
        )


def _cut(line: str) -> str:
    return line if len(line) <= MAX_LINE else f"{line[:MAX_LINE]}… ({len(line)} chars)"


def failures_section(output: str, max_lines: int = 600) -> str:
    """The FAILURES part of Schemathesis' output (each failure: operation, check, answer,
    and a curl command that reproduces it), long lines cut."""
    match = re.search(r"^=+ FAILURES =+$(.*?)^=+ (WARNINGS|SUMMARY) =+$", output, re.M | re.S)
    body = match.group(1) if match else output[-20000:]
    lines = [_cut(line) for line in body.strip("\n").splitlines()]
    if len(lines) > max_lines:
        lines = [*lines[:max_lines], f"… {len(lines) - max_lines} more lines"]
    return "\n".join(lines)


_RECORD_START = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ ", re.M)
_UVICORN_ASGI = "uvicorn.error: Exception in ASGI application"


def _tracebacks(log: str) -> list[tuple[str, str]]:
    """(the record's first line, 'exception\n at the last app frame') of every log record
    that carries a traceback."""
    found = []
    starts = [m.start() for m in _RECORD_START.finditer(log)] + [len(log)]
    for begin, end in itertools.pairwise(starts):
        lines = log[begin:end].rstrip().splitlines()
        if len(lines) < 2 or not lines[1].startswith("Traceback"):
            continue
        frames = [line.strip() for line in lines if line.startswith('  File "')]
        app_frames = [f for f in frames if f"{ROOT}/app/" in f]
        found.append((lines[0], f"{lines[-1].strip()}\n      at {(app_frames or frames)[-1]}"))
    return found


def server_exceptions(log: str) -> str:
    """Each distinct exception the server logged, how often, and the first request that
    raised it. The app logs 'unhandled error on METHOD PATH' with the traceback; uvicorn's
    own copy of the same traceback counts only when the app logged none."""
    records = _tracebacks(log)
    app_keys = {key for header, key in records if _UVICORN_ASGI not in header}
    seen: Counter[str] = Counter()
    first: dict[str, str] = {}
    for header, key in records:
        if _UVICORN_ASGI in header and key in app_keys:
            continue
        seen[key] += 1
        first.setdefault(key, header.split(": ", 1)[-1])
    if not seen:
        return "  (none)"
    return "\n".join(
        f"  {count} x {_cut(key)}\n      first on: {_cut(first[key])}"
        for key, count in seen.most_common()
    )


def artefact_dir(store: str, tmp_path: Path) -> Path:
    root = os.environ.get("FUZZ_REPORT_DIR")
    path = Path(root) / store if root else tmp_path
    path.mkdir(parents=True, exist_ok=True)
    return path


def operation_count(url: str) -> int:
    document = httpx.get(f"{url}/openapi.json", timeout=30).json()
    methods = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
    return sum(1 for item in document["paths"].values() for method in item if method in methods)


def run_schemathesis(url: str, artefacts: Path) -> Run:
    plan = budget(operation_count(url))
    config = artefacts / "schemathesis.toml"
    config.write_text(schemathesis_config(plan))
    report = artefacts / "report.json"
    command = [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "--config-file",
        str(config),
        "run",
        f"{url}/openapi.json",
        "--no-color",
        "--report",
        "json",
        "--report-json-path",
        str(report),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.monotonic()
    done = subprocess.run(
        command,
        cwd=artefacts,  # anything Schemathesis writes by default lands here, not in the repo
        env=env,
        capture_output=True,
        text=True,
        timeout=plan.timeout_s,
        check=False,
    )
    seconds = time.monotonic() - started
    output = done.stdout + done.stderr
    (artefacts / "schemathesis.txt").write_text(output)
    data = json.loads(report.read_text()) if report.exists() else {}
    return Run(done.returncode, seconds, output, data, "", artefacts)


def test_every_answer_matches_the_openapi_document(store: str, db_url: str, tmp_path: Path) -> None:
    artefacts = artefact_dir(store, tmp_path)
    log_file = artefacts / "server.log"
    with live_server(make_settings(db_url), log_file=log_file) as url:
        run = run_schemathesis(url, artefacts)
    run.server_log = log_file.read_text(errors="replace")
    (artefacts / "summary.txt").write_text(run.explain(store))
    print(run.summary(store))
    if not run.report:
        pytest.fail(f"Schemathesis wrote no report:\n{run.output[-5000:]}", pytrace=False)
    if run.returncode != 0:
        pytest.fail(run.explain(store), pytrace=False)
