"""An agent's session through the client openapi-python-client generates from Membrane's
OpenAPI document (package `membrane_client`): capture, ingest, retrieve, graph retrieve,
revise each way, reinforce, penalize, audit, metrics, jobs.

tests/test_openapi_contract.py generates the package into a temporary directory, runs
this file there against a live server (`python client_scenario.py BASE_URL ADMIN_KEY`)
and type-checks both with `mypy --strict`. The package exists only there: the inline
setting below keeps the repository's own mypy run off this file (the test removes it)."""

# mypy: ignore-errors

from __future__ import annotations

import sys
from typing import TypeVar

from membrane_client import AuthenticatedClient, Client
from membrane_client.api.capture import capture_memory
from membrane_client.api.health import readyz
from membrane_client.api.ingest import ingest_episode, ingest_event
from membrane_client.api.jobs import list_job_runs, run_job
from membrane_client.api.metrics import get_metrics
from membrane_client.api.records import create_record, get_record, get_record_audit
from membrane_client.api.retrieve import retrieve, retrieve_graph
from membrane_client.api.revise import (
    contest_record,
    fork_record,
    merge_records,
    retract_record,
    supersede_record,
)
from membrane_client.api.salience import penalize_record, reinforce_record
from membrane_client.models import (
    AuditPage,
    CaptureRequest,
    CaptureResponse,
    ContestRequest,
    ContestResult,
    EntityPayload,
    EpisodeIngest,
    EpisodicPayload,
    EventIngest,
    Evidence,
    ForkRequest,
    ForkResult,
    GraphRequest,
    GraphResponse,
    JobName,
    JobRunOut,
    JobRunPage,
    MemoryRecordOut,
    MergeRequest,
    MergeResult,
    MetricsSnapshot,
    Outcome,
    PenalizeRequest,
    Problem,
    Readiness,
    RecordCreate,
    ReinforceRequest,
    RetractRequest,
    RetractResult,
    RetrieveRequest,
    RetrieveResponse,
    SemanticPayload,
    SourceKind,
    Status,
    SupersedeRequest,
    SupersedeResult,
    TimelineEntry,
    ToolCall,
)

T = TypeVar("T")


def expect(answer: object, kind: type[T]) -> T:
    """The answer, as the model the document promises for this step."""
    assert isinstance(answer, kind), f"expected {kind.__name__}, got {answer!r}"
    return answer


def fact(obj: str, evidence: list[Evidence]) -> RecordCreate:
    payload = SemanticPayload(
        kind="semantic", subject="billing", predicate="deploys_to", object_=obj, evidence=evidence
    )
    return RecordCreate(payload=payload, scope="team-a")


def capture_and_ingest(api: AuthenticatedClient) -> tuple[str, str]:
    """(the id of an ingested event, the id of an ingested episode)"""
    captured = capture_memory.sync(
        client=api,
        body=CaptureRequest(
            source="agent-7",
            source_kind=SourceKind.OBSERVATION,
            content={"subject": "Alice", "predicate": "works_at", "object": "Acme"},
            summary="Alice works at Acme",
            scope="team-a",
        ),
        idempotency_key="scenario-capture-1",
    )
    created = expect(captured, CaptureResponse).created_records
    facts = [r.payload for r in created if isinstance(r.payload, SemanticPayload)]
    assert [(f.subject, f.object_) for f in facts] == [("Alice", "Acme")], facts

    event = expect(
        ingest_event.sync(
            client=api,
            body=EventIngest(
                source="agent-7", summary="billing deploy started", event_kind="deploy"
            ),
        ),
        CaptureResponse,
    ).primary_record
    payload = expect(event.payload, EpisodicPayload)
    timeline = payload.timeline if isinstance(payload.timeline, list) else []
    assert [t.event_kind for t in timeline] == ["deploy"], timeline

    episode = expect(
        ingest_episode.sync(
            client=api,
            body=EpisodeIngest(
                source="agent-7",
                summary="deployed billing to staging",
                scope="team-a",
                timeline=[TimelineEntry(event_type="step", summary="build")],
                tool_graph=[ToolCall(id="n1", tool="build"), ToolCall(id="n2", tool="ship")],
                outcome=Outcome.SUCCESS,
            ),
        ),
        CaptureResponse,
    ).primary_record
    assert expect(episode.payload, EpisodicPayload).outcome == Outcome.SUCCESS
    return event.id, episode.id


def find(api: AuthenticatedClient, episode_id: str) -> None:
    found = expect(
        retrieve.sync(client=api, body=RetrieveRequest(query="deployed billing staging")),
        RetrieveResponse,
    )
    ids = [i.record.id for i in found.items]
    assert episode_id in ids, ids
    graph = expect(
        retrieve_graph.sync(client=api, body=GraphRequest(query="billing", max_hops=1)),
        GraphResponse,
    )
    assert graph.roots and graph.nodes, graph


def revise(api: AuthenticatedClient, event_id: str) -> str:
    """Supersede, fork, retract, contest and merge; the id of the current fact."""
    evidence = [Evidence(ref=event_id)]
    first = expect(create_record.sync(client=api, body=fact("staging", evidence)), MemoryRecordOut)
    assert isinstance(first.payload, SemanticPayload)

    no_evidence = SupersedeRequest(new_record=fact("production", []), rationale="moved")
    refused = supersede_record.sync(first.id, client=api, body=no_evidence)
    assert expect(refused, Problem).status == 422, refused

    moved = SupersedeRequest(new_record=fact("production", evidence), rationale="moved")
    result = expect(supersede_record.sync(first.id, client=api, body=moved), SupersedeResult)
    assert result.old_record.status == Status.SUPERSEDED
    current = result.new_record
    assert expect(current.payload, SemanticPayload).object_ == "production"

    fork = ForkRequest(forked_record=fact("canary", evidence), rationale="a canary variant")
    forked = expect(fork_record.sync(current.id, client=api, body=fork), ForkResult)
    retract = RetractRequest(rationale="the canary was dropped")
    retracted = expect(
        retract_record.sync(forked.forked_record.id, client=api, body=retract), RetractResult
    )
    assert retracted.record.status == Status.RETRACTED

    contest = ContestRequest(contesting_ref="https://tracker.example/OPS-1", rationale="doubt")
    contested = expect(contest_record.sync(current.id, client=api, body=contest), ContestResult)
    assert contested.record.status == Status.CONTESTED and not contested.contesting_is_record

    names = [entity(api, "Acme Corp"), entity(api, "ACME")]
    merge = MergeRequest(
        ids=names,
        merged_record=RecordCreate(
            payload=EntityPayload(kind="entity", canonical_name="Acme", aliases=["ACME"])
        ),
        rationale="the same company",
    )
    merged = expect(merge_records.sync(client=api, body=merge), MergeResult)
    assert {r.status for r in merged.source_records} == {Status.SUPERSEDED}
    assert expect(merged.merged_record.payload, EntityPayload).canonical_name == "Acme"
    return current.id


def entity(api: AuthenticatedClient, name: str) -> str:
    body = RecordCreate(payload=EntityPayload(kind="entity", canonical_name=name))
    return expect(create_record.sync(client=api, body=body), MemoryRecordOut).id


def salience_and_audit(api: AuthenticatedClient, record_id: str) -> None:
    before = expect(get_record.sync(record_id, client=api), MemoryRecordOut).salience
    reinforced = reinforce_record.sync(
        record_id, client=api, body=ReinforceRequest(rationale="it helped")
    )
    penalized = penalize_record.sync(
        record_id, client=api, body=PenalizeRequest(amount=0.5, rationale="it misled")
    )
    assert expect(reinforced, MemoryRecordOut).salience >= before - 1e-6
    assert expect(penalized, MemoryRecordOut).salience < before
    audit = expect(get_record_audit.sync(record_id, client=api), AuditPage)
    actions = [e.action for e in audit.items]
    assert {"supersede", "fork", "contest", "reinforce", "penalize"} <= set(actions), actions


def operate(api: AuthenticatedClient) -> None:
    metrics = expect(get_metrics.sync(client=api), MetricsSnapshot)
    assert metrics.total > 0 and metrics.audit_entries > 0, metrics
    run = expect(run_job.sync(JobName.DECAY, client=api), JobRunOut)
    assert run.status == "succeeded", run
    runs = expect(list_job_runs.sync(client=api, job=JobName.DECAY), JobRunPage)
    assert run.id in [r.id for r in runs.items], runs


def main(base_url: str, key: str) -> None:
    ready = expect(readyz.sync(client=Client(base_url=base_url)), Readiness)
    assert ready.status == "ready", ready
    with AuthenticatedClient(base_url=base_url, token=key) as api:
        event_id, episode_id = capture_and_ingest(api)
        find(api, episode_id)
        current = revise(api, event_id)
        salience_and_audit(api, current)
        operate(api)
    stranger = AuthenticatedClient(base_url=base_url, token="not-a-key")
    denied = get_metrics.sync(client=stranger)
    assert expect(denied, Problem).status == 401, denied
    print("scenario: ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
