"""GET /v1/metrics (domain snapshot) and GET /metrics (Prometheus exposition)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import auth
from tests.lifecycle_support import audit_total, create, entity, lifecycle, semantic

COMPETENCE: dict[str, Any] = {
    "kind": "competence",
    "skill_name": "deploy",
    "performance": {"success_count": 3, "failure_count": 1},
}
PLAN: dict[str, Any] = {
    "kind": "plan_graph",
    "plan_id": "p1",
    "intent": "ship",
    "metrics": {"execution_count": 4},
}


def test_snapshot_counts_what_the_caller_sees(client: TestClient, db: Any) -> None:
    a = create(client, semantic(), salience=0.95, confidence=0.5)
    create(client, semantic(), salience=0.15, confidence=0.7, lifecycle=lifecycle(pinned=True))
    create(client, entity(), salience=0.55, confidence=0.9)
    create(client, COMPETENCE, salience=0.55, confidence=0.9)
    create(client, PLAN, salience=0.55, confidence=1.0)
    create(client, semantic(), who="admin", sensitivity="hyper")  # invisible to the writer
    for _ in range(3):
        client.post(f"/v1/records/{a['id']}/reinforce", headers=auth("writer"))
    client.post(f"/v1/records/{a['id']}/penalize", json={"amount": 0.45}, headers=auth("writer"))
    client.post(f"/v1/records/{a['id']}/retract", json={"rationale": "r"}, headers=auth("writer"))

    r = client.get("/v1/metrics", headers=auth("writer"))
    assert r.status_code == 200, r.text
    m = r.json()
    assert m["total"] == 5
    assert m["by_type"] == {
        "episodic": 0,
        "working": 0,
        "entity": 1,
        "semantic": 2,
        "competence": 1,
        "plan_graph": 1,
    }
    assert (m["active"], m["pinned"]) == (4, 1)
    assert m["avg_confidence"] == pytest.approx((0.5 + 0.7 + 0.9 + 0.9 + 1.0) / 5)
    # a: 0.95 → reinforced ×3 (capped at 1) → penalized by 0.45 → 0.55 → retracted: 0
    assert m["avg_salience"] == pytest.approx((0.15 + 0.55 * 3) / 5, abs=1e-6)
    counts = [b["count"] for b in m["salience_histogram"]]
    assert counts == [1, 1, 0, 0, 0, 3, 0, 0, 0, 0]
    assert m["salience_histogram"][1] == {"lower": 0.1, "upper": 0.2, "count": 1}
    assert m["audit_entries"] == audit_total(db) - 1  # not the hyper record's create entry
    assert m["records_per_hour_24h"] == pytest.approx(5 / 24)
    assert m["feedback_usefulness_30d"] == pytest.approx(0.75)
    assert m["competence_success_rate"] == pytest.approx(0.75)
    assert m["plan_reuse_frequency"] == pytest.approx(4.0)
    assert m["revised_record_share"] == pytest.approx(1 / 5)
    admin = client.get("/v1/metrics", headers=auth("admin")).json()
    assert admin["total"] == 6 and admin["audit_entries"] == audit_total(db)


def test_snapshot_respects_scopes_and_empty_stores(client: TestClient) -> None:
    empty = client.get("/v1/metrics", headers=auth("reader")).json()
    assert empty["total"] == 0 and empty["avg_salience"] is None
    assert empty["revision_rate"] is None and empty["competence_success_rate"] is None
    assert empty["memory_growth_rate"] == 0.0 and empty["revised_record_share"] is None
    create(client, semantic(), who="admin", scope="team-b")
    create(client, semantic(), who="admin", scope="team-a")
    create(client, semantic(), who="admin")
    assert client.get("/v1/metrics", headers=auth("team_a")).json()["total"] == 2
    assert client.get("/v1/metrics").status_code == 401


def _sample(text: str, name: str, **labels: str) -> float:
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line.split(" ")[0]))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"no sample {name} {labels}")


def test_prometheus_exposition(client: TestClient) -> None:
    rec = create(client, semantic())
    client.get(f"/v1/records/{rec['id']}", headers=auth("reader"))
    client.get("/v1/records/does-not-exist", headers=auth("reader"))
    client.post("/v1/jobs/decay/run", headers=auth("admin"))
    r = client.get("/metrics")  # no authentication
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
    text = r.text
    route = "/v1/records/{record_id}"
    assert _sample(text, "membrane_http_requests_total", route=route, status="200") >= 1
    assert _sample(text, "membrane_http_requests_total", route=route, status="404") >= 1
    assert (
        _sample(text, "membrane_http_request_duration_seconds_count", route=route, status="200")
        >= 1
    )
    assert "does-not-exist" not in text  # label values are route templates
    assert _sample(text, "membrane_records", type="semantic") == 1
    assert _sample(text, "membrane_records", type="episodic") == 0
    assert _sample(text, "membrane_job_runs_total", job="decay", status="succeeded") >= 1
    assert _sample(text, "membrane_job_duration_seconds_count", job="decay") >= 1
    # the same queue readiness reports (provider 'none' here: nothing waits for a worker)
    pending = client.get("/readyz").json()["embedding"]["pending"]
    assert _sample(text, "membrane_embedding_queue_depth") == pending == 0
    assert "# TYPE membrane_http_request_duration_seconds histogram" in text
