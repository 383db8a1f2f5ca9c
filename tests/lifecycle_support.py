"""Helpers shared by the test_lifecycle_* modules: payloads and record creation."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db import Database
from app.models import AuditRow, RecordRow
from tests.conftest import auth

HUGE_HALF_LIFE = 1e12  # decay negligible within a test


def semantic(
    subject: str = "alice", obj: str = "paris", *, evidence: bool = True
) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "kind": "semantic",
        "subject": subject,
        "predicate": "lives_in",
        "object": obj,
    }
    if evidence:
        payload["evidence"] = [{"kind": "url", "ref": "https://example.org/source"}]
    return payload


def episodic(summary: str = "ran the tests") -> dict[str, Any]:
    return {"kind": "episodic", "summary": summary}


def entity(name: str = "Alice") -> dict[str, Any]:
    return {"kind": "entity", "canonical_name": name}


def lifecycle(
    *,
    half_life: float | None = HUGE_HALF_LIFE,
    policy: str | None = None,
    pinned: bool = False,
    min_salience: float = 0.0,
    max_age: float | None = None,
    gain: float | None = None,
    curve: str = "exponential",
) -> dict[str, Any]:
    decay: dict[str, Any] = {"curve": curve, "min_salience": min_salience}
    if half_life is not None:
        decay["half_life_seconds"] = half_life
    if max_age is not None:
        decay["max_age_seconds"] = max_age
    if gain is not None:
        decay["reinforcement_gain"] = gain
    out: dict[str, Any] = {"decay": decay, "pinned": pinned}
    if policy is not None:
        out["deletion_policy"] = policy
    return out


def create(
    client: TestClient, payload: dict[str, Any], who: str = "writer", **fields: Any
) -> dict[str, Any]:
    fields.setdefault("lifecycle", lifecycle())
    r = client.post("/v1/records", json={"payload": payload, **fields}, headers=auth(who))
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def audit_rows(db: Database, record_id: str) -> list[AuditRow]:
    with db.transaction() as s:
        stmt = select(AuditRow).where(AuditRow.record_id == record_id).order_by(AuditRow.id)
        return list(s.scalars(stmt))


def audit_total(db: Database) -> int:
    with db.transaction() as s:
        return int(s.scalar(select(func.count()).select_from(AuditRow)) or 0)


def record_count(db: Database) -> int:
    with db.transaction() as s:
        return int(s.scalar(select(func.count()).select_from(RecordRow)) or 0)


def row(db: Database, record_id: str) -> RecordRow | None:
    with db.transaction() as s:
        return s.get(RecordRow, record_id)
