"""Building a store of agent episodes for bench/consolidation.py.

Shape: SCOPES projects (`org-3/billing`, …), each with its own files, tests, services,
tables, URLs and branches. A vocabulary of agent tools (search_code, read_file,
edit_file, run_tests, git_commit, http_get, sql_query, fetch_logs, deploy, …) is combined
into WORKFLOWS recurring workflows of 1–6 steps: hand-written archetypes (fix a failing
test, ship a change, investigate an alert, report on a table, …) and variants of them
(a prefix, a step dropped, a tool swapped for a sibling, a step appended), each step
depending on earlier ones (`depends_on` chains and fan-ins). Every scope favours 40 of
them (Zipf weights). Episodes: 80 % a favoured workflow, 12 % a one-off of 1–6 random
tools, 8 % a conversation without tools. Outcomes: 78 % success, 14 % failure (the last
call errs, or the run stops at the failing call), 4 % partial, 4 % none yet.
Sensitivity: 3 % public, 72 % low, 15 % medium, 10 % high. 75 % of episodes belong to a
thread (`environment.thread_id`, 1–8 episodes each); half carry their workflow's tag.

Text: every episode's timeline starts with the request, a LoCoMo development turn
(../shared/bench/locomo), then one `tool_call` (or `tool_error`) entry per call, whose
summary names what the call touched ("read src/billing/ledger.py": these repeat within
a scope), then the reply ("done: …", "gave up: …"). Conversations are two LoCoMo turns.

Rows: each payload is validated by the service's EpisodicPayload and stored as the API
stores it (searchable text, the episodic policy's half-life, confidence and salience),
with what a capture writes beside it: tags, a provenance source and a `create` audit
entry, through the service's bulk loader (COPY on PostgreSQL). created_at is spread over
the last `days` days, at least two hours ago: every episode is old enough to compress.
No vectors (consolidation reads none; the episodes wait `pending` for embedding, as
after a capture burst) and no decay sweep: the store is a consolidation backlog.
"""

from __future__ import annotations

import random
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from harness import Progress
from sqlalchemy import insert

from app import clock
from app.config import Settings
from app.db import Database
from app.enums import MemoryType, Sensitivity
from app.models import AuditRow, ProvenanceRow, TagRow
from app.records import payload_json
from app.records import repository as record_repo
from app.records.payloads import EpisodicPayload, payload_dict
from app.records.policy import PolicyEngine
from app.records.schemas import LifecycleSpec, Provenance, ProvenanceSource
from app.records.search_text import searchable_text
from app.salience.decay import current_salience

SCOPES = 50
WORKFLOWS = 200
FAVOURITES = 40
CHUNK = 2000
ACTOR = "bench-agent"
PROJECTS = ["billing", "search", "checkout", "auth", "inventory", "notify", "reports",
            "gateway", "ledger", "catalog"]  # fmt: skip
STEMS = ["client", "models", "handlers", "retry", "cache", "schema", "routes", "worker",
         "config", "service", "utils", "export"]  # fmt: skip
TERMS = ["retry_budget", "TimeoutError", "parse_amount", "rate_limit", "idempotency_key",
         "flaky", "NoneType", "deadlock", "pagination", "currency", "backoff", "N+1"]  # fmt: skip
# tool | arguments (key=value; …) | what the call did (the timeline entry) | its result
TOOL_TABLE = """
search_code | query={term}; path={dir} | searched {dir} for {term} | {n} matches
grep | pattern={term}; path={dir}; max_count=50 | grepped {dir} for {term} | {n} lines
read_file | path={file} | read {file} | {n} lines
list_dir | path={dir} | listed {dir} | {n} entries
edit_file | path={file}; old={term}; new={term}_v2 | edited {file} | {n} lines changed
write_file | path={doc} | wrote {doc} | {n} bytes written
run_tests | target={test}; timeout_s=600 | ran {test} | {n} passed
run_linter | path={dir} | linted {dir} | no findings
git_status |  | checked the working tree | {n} files changed
git_diff | base=main | diffed against main | {n} lines
git_commit | message={commit} | committed: {commit} | commit {sha}
git_push | branch={branch} | pushed {branch} | pushed
open_pull_request | branch={branch}; title={commit} | opened a pull request for {branch} | PR #{n}
http_get | url={url} | GET {url} | 200 OK, {n} bytes
http_post | url={url}; retries=3 | POST {url} | 201 Created
sql_query | query=SELECT count(*) FROM {table} WHERE day = today | queried {table} | {n} rows
web_search | query={topic} | searched the web for {topic} | {n} results
fetch_logs | service={service}; since=1h; level=error | fetched the logs of {service} | {n} lines
kubectl_get | resource=pods; namespace={service} | listed the pods of {service} | {n} pods running
deploy | service={service}; env={env} | deployed {service} to {env} | rollout complete
create_ticket | project={service}; title={term} in {service} | filed a ticket: {term} | ticket {n}
send_message | channel=#{service}; text={commit} | posted to #{service} | sent
summarize | max_words=150 | summarized the findings | {n} words
calculator | expression={n} / 7 | computed a ratio | {n}
"""
# goal | tag | steps: a tool, then @ and the (0-based) steps it depends on, dot-separated
ARCHETYPE_TABLE = """
fix the failing {test} | ci | run_tests search_code@0 read_file@1 edit_file@2 run_tests@3
 git_commit@4
explain how {term} is handled | question | search_code read_file@0 summarize@1
investigate errors in {service} | oncall | fetch_logs kubectl_get sql_query@0 create_ticket@1.2
ship {branch} | release | git_diff run_linter run_tests git_commit@0.1.2 git_push@3
 open_pull_request@4
check {url} | oncall | http_get summarize@0
report on {table} | report | sql_query sql_query calculator@0.1 send_message@2
research {topic} | research | web_search http_get@0 summarize@1
deploy {service} to {env} | release | run_tests deploy@0 fetch_logs@1 send_message@2
refactor {dir} | refactor | list_dir read_file@0 edit_file@1 run_linter@2 run_tests@2
count rows in {table} | report | sql_query
find uses of {term} | question | grep
document {dir} | docs | list_dir read_file@0 write_file@1 git_commit@2
triage a report about {term} | oncall | http_get search_code@0 create_ticket@1
sync {branch} | release | git_status git_push@0
"""
Step = tuple[str, tuple[int, ...]]  # tool, indices of the steps it depends on
Workflow = tuple[str, str, tuple[Step, ...]]  # goal, tag, steps


def _tools(table: str) -> dict[str, tuple[dict[str, Any], str, str]]:
    out = {}
    for line in table.strip().splitlines():
        name, args, summary, result = (part.strip() for part in line.split("|"))
        pairs = (a.strip().partition("=") for a in args.split(";") if a.strip())
        out[name] = ({k: int(v) if v.isdigit() else v for k, _, v in pairs}, summary, result)
    return out


def _archetypes(table: str) -> list[tuple[str, str, list[Step]]]:
    out = []
    for line in table.strip().replace("\n ", " ").splitlines():
        goal, tag, steps = (part.strip() for part in line.split("|"))
        parsed = [s.partition("@") for s in steps.split()]
        out.append(
            (goal, tag, [(t, tuple(int(d) for d in ds.split(".") if d)) for t, _, ds in parsed])
        )
    return out


TOOLS = _tools(TOOL_TABLE)
ARCHETYPES = _archetypes(ARCHETYPE_TABLE)
SIBLINGS = {"read_file": "grep", "grep": "search_code", "search_code": "grep",
            "http_get": "http_post", "run_tests": "run_linter", "run_linter": "run_tests",
            "summarize": "send_message", "sql_query": "calculator", "fetch_logs": "kubectl_get",
            "kubectl_get": "fetch_logs", "git_diff": "git_status"}  # fmt: skip
OUTCOMES = {"success": 0.78, "failure": 0.14, "partial": 0.04, "": 0.04}
SENSITIVITY = {Sensitivity.public: 0.03, Sensitivity.low: 0.72, Sensitivity.medium: 0.15,
               Sensitivity.high: 0.10}  # fmt: skip


def scope_name(k: int) -> str:
    return f"org-{k // len(PROJECTS)}/{PROJECTS[k % len(PROJECTS)]}"


def _valid(steps: list[Step]) -> tuple[Step, ...]:
    """Steps with every dependency pointing at an earlier step."""
    return tuple(
        (tool, tuple(d for d in deps if 0 <= d < i)) for i, (tool, deps) in enumerate(steps)
    )


def _drop(steps: list[Step], i: int) -> list[Step]:
    """Steps without step i: its dependants depend on its dependencies instead."""
    out: list[Step] = []
    for j, (tool, deps) in enumerate(steps):
        if j == i:
            continue
        inherited = {x for d in deps for x in (steps[i][1] if d == i else (d,))}
        out.append((tool, tuple(sorted(x - (x > i) for x in inherited))))
    return out


def _variant(rng: random.Random, steps: list[Step]) -> list[Step]:
    """One mutation of a workflow: a prefix, a step dropped, a sibling tool, a step added."""
    n, move = len(steps), rng.randrange(4)
    if move == 0 and n > 1:
        return steps[: rng.randint(1, n - 1)]
    if move == 1 and n > 2:
        return _drop(steps, rng.randrange(1, n - 1))
    if move == 2:
        i = rng.randrange(n)
        return [(SIBLINGS.get(t, t) if j == i else t, deps) for j, (t, deps) in enumerate(steps)]
    if n < 6:
        return [*steps, (rng.choice(list(TOOLS)), (n - 1,))]
    return steps


def make_workflows(rng: random.Random, count: int = WORKFLOWS) -> list[Workflow]:
    """The archetypes, then distinct variants of them, `count` in all."""
    out = {_valid(steps): (goal, tag, _valid(steps)) for goal, tag, steps in ARCHETYPES}
    while len(out) < count:
        goal, tag, steps = rng.choice(ARCHETYPES)
        for _ in range(rng.randint(1, 3)):
            steps = _variant(rng, steps)
        key = _valid(steps)
        out.setdefault(key, (goal, tag, key))
    return list(out.values())[:count]


@dataclass
class ScopeState:
    name: str
    vocab: dict[str, list[str]]
    favourites: list[Workflow]
    thread: str | None = None
    left: int = 0  # episodes still to come in the current thread


def scope_vocab(k: int, rng: random.Random, topics: list[str]) -> dict[str, list[str]]:
    project = PROJECTS[k % len(PROJECTS)]
    dirs = [f"src/{project}", f"src/{project}/api", f"src/{project}/jobs", "src/common"]
    stems = rng.sample(STEMS, 8)
    return {
        "dir": dirs, "file": [f"{rng.choice(dirs)}/{s}.py" for s in stems],
        "doc": [f"docs/{project}/{s}.md" for s in stems[:3]],
        "test": [f"tests/{project}/test_{s}.py" for s in stems[:5]],
        "service": [f"{project}-api", f"{project}-worker"],
        "table": [f"{project}_{t}" for t in ("events", "accounts", "jobs")],
        "url": [f"https://{project}.internal/api/v1/{s}" for s in stems[:4]],
        "branch": [f"fix/{s}" for s in stems[:4]], "term": rng.sample(TERMS, 6),
        "topic": rng.sample(topics, min(5, len(topics))) or ["postgres"],
        "env": ["staging", "production"],
        "commit": [f"Fix {t} in {s}" for t, s in zip(rng.sample(TERMS, 4), stems, strict=False)],
    }  # fmt: skip


def fill(args: dict[str, Any], slots: dict[str, str]) -> dict[str, Any]:
    return {k: v.format_map(slots) if isinstance(v, str) else v for k, v in args.items()}


@dataclass
class Builder:
    turns: list[str]  # LoCoMo turns as "speaker: text"
    topics: list[str]
    n: int
    days: float
    seed: int
    now: float = field(default_factory=time.time)
    counts: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.workflows = make_workflows(self.rng)
        self.scopes = [self._scope(k) for k in range(SCOPES)]
        self.zipf = [1 / (r + 1) for r in range(FAVOURITES)]
        self.scope_weights = [1 / (k + 1) ** 0.5 for k in range(SCOPES)]
        self.policy = PolicyEngine(Settings()).resolve(
            MemoryType.episodic, LifecycleSpec(), sensitivity=None, confidence=None,
            salience=None, source_kind="episode",
        )  # fmt: skip

    def _scope(self, k: int) -> ScopeState:
        vocab = scope_vocab(k, self.rng, self.topics)
        return ScopeState(scope_name(k), vocab, self.rng.sample(self.workflows, FAVOURITES))

    def created_at(self, i: int) -> float:
        newest = self.now - 2 * 3600.0
        span = self.days * 86400.0
        return newest - span + span * (i + self.rng.random()) / self.n

    def episode(self, i: int) -> dict[str, list[dict[str, Any]]]:
        """Rows of one episode: the record, its tags, provenance and audit entry."""
        rng, st = self.rng, self.rng.choices(self.scopes, self.scope_weights)[0]
        created = self.created_at(i)
        slots = {k: rng.choice(v) for k, v in st.vocab.items()}
        slots["sha"] = f"{rng.getrandbits(28):07x}"
        outcome = rng.choices(list(OUTCOMES), weights=list(OUTCOMES.values()))[0]
        kind, steps, goal, tags = self._plan(st, slots)
        raw = self._payload(st, steps, goal, outcome, slots, created)
        payload = payload_dict(EpisodicPayload.model_validate(raw))
        rank = rng.choices(list(SENSITIVITY), weights=list(SENSITIVITY.values()))[0].rank
        rid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        environment = payload_json.episodic(payload)["environment"]
        self._count(kind, outcome, rank, tags, bool(environment.get("thread_id")))
        audit = {"type": "episodic", "source_kind": "episode"}
        return {
            "records": [self._row(rid, st.name, rank, payload, tags, created)],
            "tags": [{"record_id": rid, "tag": t} for t in tags],
            "provenance": [{"record_id": rid, "kind": "episode", "ref": ACTOR,
                            "timestamp": created}],
            "audit": [{"record_id": rid, "action": "create", "actor": ACTOR,
                       "timestamp": created, "details": audit}],
        }  # fmt: skip

    def _plan(
        self, st: ScopeState, slots: dict[str, str]
    ) -> tuple[str, list[Step], str, list[str]]:
        """kind, steps, goal and tags of the next episode of scope `st`."""
        rng = self.rng
        kind = rng.choices(["workflow", "one_off", "conversation"], weights=[80, 12, 8])[0]
        if kind == "workflow":
            goal, tag, wf_steps = rng.choices(st.favourites, self.zipf)[0]
            tags = [tag] if rng.random() < 0.5 else []
            return kind, list(wf_steps), goal.format_map(slots), tags
        if kind == "one_off":
            tools = [rng.choice(list(TOOLS)) for _ in range(rng.randint(1, 6))]
            steps: list[Step] = [(t, (rng.randrange(j),) if j else ()) for j, t in enumerate(tools)]
            return kind, steps, f"ad-hoc: {TOOLS[tools[0]][1].format_map(slots)}", []
        return kind, [], "", []

    def _payload(
        self,
        st: ScopeState,
        steps: list[Step],
        goal: str,
        outcome: str,
        slots: dict[str, str],
        created: float,
    ) -> dict[str, Any]:
        rng = self.rng
        request = rng.choice(self.turns)
        t = created - rng.uniform(5, 40) * (len(steps) + 2)
        timeline = [{"t": clock.to_datetime(t), "event_kind": "user_request", "summary": request}]
        fails_at = len(steps) - 1 if outcome == "failure" and steps else -1
        if fails_at > 0 and rng.random() < 0.3:
            fails_at = rng.randrange(fails_at)  # the run stopped at the failing call
            steps = steps[: fails_at + 1]
        graph = []
        for j, (tool, deps) in enumerate(steps):
            t += rng.uniform(2, 40)
            args, summary, result = TOOLS[tool]
            slots["n"] = str(rng.randint(1, 400))
            err = j == fails_at
            at = clock.to_datetime(t)
            graph.append(
                {"id": f"call-{j + 1}", "tool": tool, "args": fill(args, slots), "timestamp": at}
                | {"result": f"error: {slots['term']}" if err else result.format_map(slots)}
                | {"status": "error" if err else "ok"}
                | {"depends_on": [f"call-{d + 1}" for d in deps]}
            )
            event = "tool_error" if err else "tool_call"
            text = summary.format_map(slots) + (" (failed)" if err else "")
            timeline.append({"t": at, "event_kind": event, "summary": text})
        reply = {"success": "done", "failure": "gave up", "partial": "partly done"}.get(outcome)
        closing = f"{reply or 'waiting'}: {goal}" if goal else rng.choice(self.turns)
        end = clock.to_datetime(created)
        timeline.append({"t": end, "event_kind": "agent_reply", "summary": closing})
        env: dict[str, Any] = {"agent": f"agent-{rng.randrange(5)}", "project": st.name}
        env |= self._thread(st)
        out: dict[str, Any] = {"kind": "episodic", "summary": goal or request}
        out["timeline"] = timeline
        out |= {"tool_graph": graph, "environment": env}
        return out | ({"outcome": outcome} if outcome else {})

    def _thread(self, st: ScopeState) -> dict[str, str]:
        """75 % of episodes continue their scope's current thread (1–8 episodes each)."""
        if self.rng.random() >= 0.75:
            return {}
        if st.left <= 0 or st.thread is None:
            st.thread = f"thread-{self.rng.getrandbits(48):012x}"
            st.left = self.rng.randint(1, 8)
        st.left -= 1
        return {"thread_id": st.thread}

    def _count(self, kind: str, outcome: str, rank: int, tags: list[str], thread: bool) -> None:
        level = Sensitivity.from_rank(rank).value
        self.counts.update(["episodes", f"kind_{kind}", f"outcome_{outcome or 'none'}"])
        self.counts.update([f"sensitivity_{level}"] + ["tagged"] * bool(tags))
        self.counts.update(["in_thread"] * thread)

    def _row(
        self, rid: str, scope: str, rank: int, payload: dict[str, Any], tags: list[str], at: float
    ) -> dict[str, Any]:
        """The records row, as RecordService.create fills it for a captured episode."""
        p = self.policy
        source = ProvenanceSource(kind="episode", ref=ACTOR, timestamp=clock.to_datetime(at))
        provenance = Provenance(sources=[source], created_by=ACTOR)
        return {
            "id": rid, "type": "episodic", "status": "active", "sensitivity": rank,
            "confidence": p.confidence, "scope": scope, "tags": tags, "created_at": at,
            "updated_at": at, "salience_base": p.salience, "salience_t0": at,
            "salience_swept": current_salience(p.salience, at, self.now, half_life_s=p.half_life_s),
            "decay_curve": p.curve, "half_life_s": p.half_life_s, "min_salience": p.min_salience,
            "max_age_s": p.max_age_s, "reinforcement_gain": p.reinforcement_gain,
            "pinned": p.pinned, "deletion_policy": p.deletion_policy.value, "created_by": ACTOR,
            "provenance": provenance.model_dump(mode="json", exclude_none=True),
            "interpretation": {}, "payload": payload, "embedding_status": "pending",
            "search_text": searchable_text("episodic", payload),
        }  # fmt: skip


TABLES = {"tags": TagRow, "provenance": ProvenanceRow, "audit": AuditRow}


def build(
    db: Database, turns: list[str], topics: list[str], n: int, *, days: float, seed: int = 11
) -> dict[str, Any]:
    """Load `n` episodes into a migrated, empty store; returns timings and counts."""
    builder = Builder(turns, topics, n, days, seed)
    bar = Progress("loading episodes", n)
    t0 = time.perf_counter()
    for start in range(0, n, CHUNK):
        chunk: dict[str, list[dict[str, Any]]] = {"records": [], **{k: [] for k in TABLES}}
        for i in range(start, min(n, start + CHUNK)):
            for key, rows in builder.episode(i).items():
                chunk[key] += rows
        with db.transaction() as session:
            record_repo.bulk_insert(session, chunk["records"])
            for key, table in TABLES.items():
                if chunk[key]:
                    session.execute(insert(table), chunk[key])
        bar.update(min(n, start + CHUNK))
    load_s = round(time.perf_counter() - t0, 1)
    counts = dict(sorted(builder.counts.items()))
    return {"load_s": load_s, "scopes": SCOPES, "workflows": len(builder.workflows)} | {
        "days": days, "counts": counts}  # fmt: skip
