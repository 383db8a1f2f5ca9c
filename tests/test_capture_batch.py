"""POST /v1/capture/batch: results in order, one per item; a bad item changes nothing of
itself and does not spoil the others; the accepted items are stored with their audit."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db import Database
from app.models import AuditRow, RecordRow
from tests.conftest import auth
from tests.lifecycle_support import record_count

W = auth("writer")  # ceiling high


def event(summary: str, **extra: Any) -> dict[str, Any]:
    return {"source": "batch-agent", "source_kind": "event", "summary": summary, **extra}


def post_batch(client: TestClient, items: list[Any], who: str = "writer") -> Any:
    return client.post("/v1/capture/batch", json={"items": items}, headers=auth(who))


def test_results_come_in_order_and_bad_items_change_nothing(
    client: TestClient, db: Database
) -> None:
    items = [
        event("first"),
        {"source": "batch-agent", "source_kind": "nonsense"},
        event("third", tags=["t"]),
        event("too secret", sensitivity="hyper"),  # above the writer's ceiling
        {
            "source": "batch-agent",
            "source_kind": "observation",
            "proposed_type": "semantic",
            "content": {"text": "no fact here"},
        },
        event("sixth"),
    ]
    r = post_batch(client, items)
    assert r.status_code == 200, r.text
    body = r.json()
    assert [x["index"] for x in body["results"]] == list(range(6))
    assert [x["status"] for x in body["results"]] == [201, 422, 201, 403, 422, 201]
    assert body["created"] == 3 and body["failed"] == 3
    invalid = body["results"][1]["problem"]
    assert invalid["status"] == 422 and invalid["errors"][0]["loc"][:3] == [
        "items",
        "1",
        "source_kind",
    ]
    assert "ceiling" in body["results"][3]["problem"]["detail"]
    assert body["results"][4]["problem"]["detail"].startswith("items[4]:")
    ids = [x["result"]["primary_record"]["id"] for x in body["results"] if x["result"]]
    assert [
        x["result"]["primary_record"]["payload"]["summary"] for x in body["results"] if x["result"]
    ] == [
        "first",
        "third",
        "sixth",
    ]
    with db.transaction() as s:
        stored = set(s.scalars(select(RecordRow.id)))
        audits = s.scalar(
            select(func.count()).select_from(AuditRow).where(AuditRow.action == "create")
        )
    assert stored == set(ids)  # nothing of the refused items, not even entities
    assert audits == 3
    for rid in ids:
        assert client.get(f"/v1/records/{rid}", headers=W).status_code == 200


def test_items_of_one_batch_resolve_the_same_entity(client: TestClient) -> None:
    items = [
        event("met Alice", content={"entities": ["Alice"]}, scope="s"),
        event("Alice again", content={"entities": ["Alice"]}, scope="s"),
    ]
    body = post_batch(client, items).json()
    first, second = (x["result"] for x in body["results"])
    assert len(first["created_records"]) == 1 and second["created_records"] == []
    entity_id = first["created_records"][0]["id"]
    assert [e["target_id"] for e in second["edges"] if e["predicate"] == "mentions_entity"] == [
        entity_id
    ]


def test_batch_limits_and_roles_refuse_the_whole_request(client: TestClient, db: Database) -> None:
    assert post_batch(client, []).status_code == 422
    too_many = post_batch(client, [event(str(i)) for i in range(1001)])
    assert too_many.status_code == 422
    assert too_many.headers["content-type"].startswith("application/problem+json")
    assert post_batch(client, [event("x")], who="reader").status_code == 403
    assert record_count(db) == 0


def test_a_batch_of_a_thousand_is_stored_whole(client: TestClient, db: Database) -> None:
    r = post_batch(client, [event(f"turn {i}", scope=f"s{i % 7}") for i in range(1000)])
    assert r.status_code == 200 and r.json()["created"] == 1000
    assert record_count(db) == 1000
