"""Upgrades: a store created by the first schema (0001) with data in every one of its
tables migrates to head on both stores, and the service then serves that data: the
records, their tags, edges, provenance, entity terms and audit entries, the job runs and
the meta rows. (Downgrades: see docs/operations.md; the policy is restore from backup.)"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.backup.service import verify
from app.config import DatabaseSettings
from app.db import make_engine
from app.migrate import head_revision, upgrade
from tests.conftest import _pg_admin_uri, auth, fresh_pg_database, make_settings

A = auth("admin")
T0 = 1_760_000_000.0
IDS = ("00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002")


def _record(record_id: str, summary: str, entity: bool = False) -> dict[str, Any]:
    kind = "entity" if entity else "episodic"
    payload = {"kind": "entity", "name": summary} if entity else {"kind": kind, "summary": summary}
    return {
        "id": record_id,
        "type": kind,
        "status": "active",
        "sensitivity": 1,
        "confidence": 0.8,
        "scope": "old-team",
        "tags": json.dumps(["legacy"]),
        "created_at": T0,
        "updated_at": T0,
        "salience_base": 1.0,
        "salience_t0": T0,
        "salience_swept": 1.0,
        "decay_curve": "exponential",
        "half_life_s": 3600.0,
        "min_salience": 0.0,
        "reinforcement_gain": 0.1,
        "pinned": True,  # stays salient whatever the clock says
        "deletion_policy": "manual_only",
        "created_by": "writer",
        "provenance": json.dumps({"sources": [{"kind": "event", "ref": "migration-test"}]}),
        "interpretation": json.dumps({}),
        "payload": json.dumps(payload),
        "search_text": summary,
        "embedding_status": "pending",
    }


ROWS: list[tuple[str, list[dict[str, Any]]]] = [
    (
        "records",
        [_record(IDS[0], "the quarterly zephyr report was late"), _record(IDS[1], "Zephyr", True)],
    ),
    (
        "record_tags",
        [{"record_id": IDS[0], "tag": "legacy"}, {"record_id": IDS[1], "tag": "legacy"}],
    ),
    (
        "relations",
        [
            {
                "source_id": IDS[0],
                "predicate": "mentions",
                "target_id": IDS[1],
                "weight": 1.0,
                "created_at": T0,
            }
        ],
    ),
    (
        "provenance_sources",
        [
            {
                "record_id": IDS[0],
                "kind": "event",
                "ref": "migration-test",
                "hash": None,
                "created_by": "writer",
                "timestamp": T0,
            }
        ],
    ),
    (
        "audit_log",
        [
            {
                "record_id": IDS[0],
                "action": "create",
                "actor": "writer",
                "timestamp": T0,
                "rationale": "captured at 0001",
                "details": json.dumps({}),
            }
        ],
    ),
    ("entity_terms", [{"record_id": IDS[1], "term": "zephyr", "scope": "old-team"}]),
    (
        "job_runs",
        [
            {
                "job": "decay",
                "trigger": "scheduled",
                "started_at": T0,
                "finished_at": T0 + 1,
                "status": "succeeded",
                "counts": json.dumps({"swept": 2}),
                "error": None,
            }
        ],
    ),
    ("system_meta", [{"key": "migration-test", "value": "kept"}]),
    ("record_embeddings", [{"record_id": IDS[0], "model": "old-model", "vector": None}]),
]


def _fill_0001(url: str) -> None:
    upgrade(url, "0001")
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            for table, rows in ROWS:
                columns = list(rows[0])
                names = ", ".join(f'"{c}"' for c in columns)
                values = ", ".join(f":{c}" for c in columns)
                conn.execute(text(f'INSERT INTO "{table}" ({names}) VALUES ({values})'), rows)
    finally:
        engine.dispose()


@pytest.fixture
def old_store(store: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database, not migrated."""
    if store == "sqlite":
        return f"sqlite:///{tmp_path / 'old.db'}"
    return fresh_pg_database(_pg_admin_uri(request.getfixturevalue("pg_server")), None)


def test_a_0001_store_with_data_in_every_table_migrates_to_head_and_serves_it(
    old_store: str, make_client: Callable[..., TestClient]
) -> None:
    _fill_0001(old_store)
    upgrade(old_store, "head")
    report = verify(old_store, DatabaseSettings(), None)
    assert report.ok and report.schema_revision == head_revision(), report
    for table, rows in ROWS:
        assert report.counts[table] == len(rows), (table, report.counts)

    client = make_client(make_settings(old_store))
    record = client.get(f"/v1/records/{IDS[0]}", headers=A)
    assert record.status_code == 200, record.text
    body = record.json()
    assert body["payload"]["summary"] == "the quarterly zephyr report was late"
    assert body["tags"] == ["legacy"] and body["scope"] == "old-team"
    listed = client.get("/v1/records", params={"tag": "legacy"}, headers=A)
    assert {r["id"] for r in listed.json()["items"]} == set(IDS)
    found = client.post("/v1/retrieve", json={"query": "quarterly report"}, headers=A)
    assert found.status_code == 200, found.text
    assert IDS[0] in {item["record"]["id"] for item in found.json()["items"]}
    audit = client.get(f"/v1/records/{IDS[0]}/audit", headers=A)
    assert [e["rationale"] for e in audit.json()["items"]] == ["captured at 0001"]
    runs = client.get("/v1/jobs", headers=A)
    assert [r["job"] for r in runs.json()["items"]] == ["decay"]
    new = {"source": "t", "source_kind": "event", "summary": "written after the upgrade"}
    assert client.post("/v1/capture", json=new, headers=auth("writer")).status_code == 201
