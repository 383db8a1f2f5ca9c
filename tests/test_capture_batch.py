"""POST /v1/capture/batch: results in order, one per item; a bad item changes nothing of
itself and does not spoil the others; the accepted items are stored with their audit."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import event as sqlalchemy_event
from sqlalchemy import func, select, text

from app.db import Database
from app.enums import Sensitivity
from app.models import AuditRow, RecordRow
from app.trust import TrustContext
from tests.conftest import app_state, auth
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


def test_record_ids_are_version_7_uuids_in_the_order_records_were_made(
    client: TestClient,
) -> None:
    """Ids grow with time (app/records/ids.py): a batch's records, and a capture after it,
    sort by id in the order they were made, so new rows append to the id indexes."""
    r = post_batch(client, [event(f"step {i}", scope="ordered") for i in range(50)])
    assert r.status_code == 200, r.text
    ids = [item["result"]["primary_record"]["id"] for item in r.json()["results"]]
    later = client.post("/v1/capture", json=event("after", scope="ordered"), headers=W)
    assert later.status_code == 201, later.text
    ids.append(later.json()["primary_record"]["id"])
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert all(uuid.UUID(rid).version == 7 and str(uuid.UUID(rid)) == rid for rid in ids)


def _entities_named(db: Database, name: str) -> list[str]:
    with db.transaction() as s:
        rows = s.execute(select(RecordRow.id, RecordRow.payload).where(RecordRow.type == "entity"))
        return [rid for rid, payload in rows if payload["canonical_name"] == name]


def test_a_batch_resolves_stored_entities_under_the_callers_ceiling(
    client: TestClient, db: Database
) -> None:
    """The batch looks its names up in one query up front; that look-up keeps the rule
    of a single capture: the oldest entity the caller may read, never one above it."""
    admin = auth("admin")
    hidden = client.post(
        "/v1/capture",
        json=event("briefing", content={"entities": ["Nightfall"]}, scope="s", sensitivity="hyper"),
        headers=admin,
    ).json()["created_records"][0]["id"]
    stored = client.post(
        "/v1/capture",
        json=event("met Alice", content={"entities": ["Alice"]}, scope="s"),
        headers=W,
    ).json()["created_records"][0]["id"]
    items = [
        event("Alice again", content={"entities": ["alice"]}, scope="s"),
        event("Nightfall, as the writer sees it", content={"entities": ["Nightfall"]}, scope="s"),
        event("Nightfall once more", content={"entities": ["NIGHTFALL"]}, scope="s"),
        event("Alice elsewhere", content={"entities": ["Alice"]}, scope="other"),
    ]
    results = [x["result"] for x in post_batch(client, items).json()["results"]]
    mentioned = [
        [e["target_id"] for e in r["edges"] if e["predicate"] == "mentions_entity"] for r in results
    ]
    writers_nightfall = results[1]["created_records"][0]["id"]
    assert mentioned[0] == [stored] and results[0]["created_records"] == []
    assert writers_nightfall != hidden and mentioned[1] == [writers_nightfall]
    assert mentioned[2] == [writers_nightfall] and results[2]["created_records"] == []
    assert mentioned[3] != [stored] and len(results[3]["created_records"]) == 1
    assert sorted(_entities_named(db, "Nightfall")) == sorted([hidden, writers_nightfall])


def test_working_state_items_share_the_batchs_entities(client: TestClient, db: Database) -> None:
    """A working-state item runs in its own savepoint (it may retire earlier snapshots):
    entities staged before it and created by it are still resolved once."""
    working = {
        "source": "planner",
        "source_kind": "working_state",
        "scope": "s",
        "content": {"thread_id": "t1", "state": "done", "entities": ["Alice"]},
    }
    items = [
        event("met Alice", content={"entities": ["Alice"]}, scope="s"),
        working,
        {**working, "content": {"thread_id": "t2", "state": "executing", "entities": ["Bob"]}},
        event("Alice and Bob", content={"entities": ["Alice", "Bob"]}, scope="s"),
    ]
    body = post_batch(client, items).json()
    assert [x["status"] for x in body["results"]] == [201] * 4
    alice, bob = _entities_named(db, "Alice"), _entities_named(db, "Bob")
    assert len(alice) == 1 and len(bob) == 1
    last = body["results"][3]["result"]
    assert sorted(e["target_id"] for e in last["edges"] if e["predicate"] == "mentions_entity") == (
        sorted(alice + bob)
    )


def test_entities_of_a_refused_item_are_forgotten(db: Database) -> None:
    """An item refused after it created an entity drops that entity's staged rows; later
    items must not resolve to it (EntityResolver.forget_since)."""
    from app.entities.service import EntityResolver

    everything = TrustContext(Sensitivity.hyper, frozenset({"s"}))
    public_only = TrustContext(Sensitivity.public, frozenset({"s"}))
    with db.transaction() as s:
        known = EntityResolver(s)
        known.prefetch([("s", "Carol")])
        row = RecordRow(id="e-1", scope="s", sensitivity=1, created_at=1.0)
        mark = known.mark()
        known.created(row, ["Carol", "Caz"])
        assert known.resolve("s", ["caz"], everything) == "e-1"
        assert known.resolve("s", ["carol"], public_only) is None  # above this ceiling
        known.forget_since(mark)
        assert known.resolve("s", ["Carol"], everything) is None
        assert known.resolve("s", ["Caz"], everything) is None


def test_staged_rows_are_written_whatever_columns_they_set(
    client: TestClient, db: Database
) -> None:
    """insert_staged writes a table in one statement per set of columns its rows set
    (defaults fill the rest); rows a caller added to the session are not left pending."""
    from app.models import RelationRow
    from app.records.repository import insert_staged

    rid = client.post("/v1/capture", json=event("anchor"), headers=W).json()["primary_record"]
    with db.transaction() as s:
        same = [
            RelationRow(
                source_id=rid["id"], predicate="p", target_id=f"x{i}", weight=0.5, created_at=1.0
            )
            for i in range(3)
        ]
        mixed = [
            RelationRow(source_id=rid["id"], predicate="q", target_id="y", created_at=1.0),
            RelationRow(
                source_id=rid["id"], predicate="q", target_id="z", weight=0.25, created_at=1.0
            ),
        ]
        s.add_all(same + mixed)
        insert_staged(s, same + mixed)
        assert not s.new
    with db.transaction() as s:
        stored = s.execute(
            select(RelationRow.predicate, RelationRow.target_id, RelationRow.weight).where(
                RelationRow.predicate.in_(["p", "q"])
            )
        ).all()
    assert sorted(stored) == [
        ("p", "x0", 0.5),
        ("p", "x1", 0.5),
        ("p", "x2", 0.5),
        ("q", "y", 1.0),
        ("q", "z", 0.25),
    ]


def test_a_working_state_item_refused_in_its_savepoint_leaves_nothing(
    client: TestClient, db: Database
) -> None:
    """A working-state item is refused after it staged an entity record (its second entity
    is invalid): none of its rows is stored, whatever the items before it staged."""
    bad = {
        "source": "planner",
        "source_kind": "working_state",
        "scope": "s",
        "content": {
            "thread_id": "t1",
            "state": "executing",
            "entities": ["Zelda", {"name": "Yann", "types": ["t"] * 1001}],
        },
    }
    before = [event(f"note {i}", content={"entities": [f"P{i}"]}, scope="s") for i in range(3)]
    items = [*before, bad, event("after", scope="s")]
    body = post_batch(client, items).json()
    assert [x["status"] for x in body["results"]] == [201, 201, 201, 422, 201]
    assert _entities_named(db, "Zelda") == [] and _entities_named(db, "Yann") == []
    with db.transaction() as s:
        records = s.scalar(select(func.count()).select_from(RecordRow))
        audit = s.scalar(select(func.count()).select_from(AuditRow))
    assert records == 3 + 3 + 1  # three notes, their three entities, the last event
    assert audit == records


def test_gathered_rows_of_mixed_columns_are_written_once(client: TestClient, db: Database) -> None:
    """Rows gathered outside the session (app/models/staging.py), one table's rows setting
    different columns: each row is stored once, also after the session flushes."""
    from app.models import RelationRow, staging
    from app.records.repository import insert_staged

    rid = client.post("/v1/capture", json=event("anchor"), headers=W).json()["primary_record"]["id"]
    with db.transaction() as s:
        gathered = staging.start(s)
        staging.add(s, staging.new_row(AuditRow, record_id=rid, action="probe", actor="t",
                                       timestamp=1.0, rationale=None, details={}))  # fmt: skip
        staging.add(s, staging.new_row(RelationRow, source_id=rid, predicate="r",
                                       target_id="g1", created_at=1.0))  # fmt: skip
        staging.add(s, staging.new_row(RelationRow, source_id=rid, predicate="r",
                                       target_id="g2", weight=0.75, created_at=1.0))  # fmt: skip
        insert_staged(s, gathered)
        gathered.clear()
        s.flush()
    with db.transaction() as s:
        probes = s.scalar(
            select(func.count()).select_from(AuditRow).where(AuditRow.action == "probe")
        )
        edges = s.execute(
            select(RelationRow.target_id, RelationRow.weight).where(RelationRow.predicate == "r")
        ).all()
    assert probes == 1
    assert sorted(edges) == [("g1", 1.0), ("g2", 0.75)]


def test_a_long_mixed_batch_stores_exactly_its_accepted_items(
    client: TestClient, db: Database
) -> None:
    """Long enough that PostgreSQL is sent rows between items (CaptureService.send_staged):
    refused items, two contradicting facts, a working-state item
    in its savepoint and entities named across items all end as if written at once."""
    fact = {"source": "batch-agent", "source_kind": "observation", "scope": "m"}
    working = {"source": "planner", "source_kind": "working_state", "scope": "m"}
    items: list[Any] = []
    for i in range(150):
        if i % 10 == 3:
            items.append({"source": "batch-agent", "source_kind": "nonsense"})
        elif i % 10 == 6:
            items.append(event(f"secret {i}", sensitivity="hyper", scope="m"))
        elif i == 70:
            items.append({**working, "content": {"thread_id": "t", "state": "done"}})
        elif i in (80, 81):  # the second contradicts the first
            content = {"subject": "door", "predicate": "colour", "object": f"shade {i}"}
            items.append({**fact, "content": content})
        else:
            items.append(event(f"turn {i} with Alice", content={"entities": ["Alice"]}, scope="m"))
    r = post_batch(client, items)
    assert r.status_code == 200, r.text
    results = r.json()["results"]
    accepted = [x for x in results if x["status"] == 201]
    assert len(accepted) == 120 and r.json()["failed"] == 30
    ids = {
        rec["id"]
        for x in accepted
        for rec in [x["result"]["primary_record"], *x["result"]["created_records"]]
    }
    with db.transaction() as s:
        stored = set(s.scalars(select(RecordRow.id)))
        created = s.scalar(
            select(func.count()).select_from(AuditRow).where(AuditRow.action == "create")
        )
    assert stored == ids and created == len(ids)
    assert len(_entities_named(db, "Alice")) == 1
    edges = [e["predicate"] for x in accepted for e in x["result"]["edges"]]
    assert "contradicts" in edges  # the second fact contests the first


def test_a_batch_of_one_is_stored(client: TestClient, db: Database) -> None:
    """One row per table: written as a single INSERT reads back its generated keys."""
    r = post_batch(client, [event("alone")])
    assert r.status_code == 200 and r.json()["created"] == 1, r.text
    record_id = r.json()["results"][0]["result"]["primary_record"]["id"]
    assert client.get(f"/v1/records/{record_id}", headers=W).status_code == 200
    assert record_count(db) == 1


def test_a_batch_looks_its_names_up_by_the_terms_index(client: TestClient, db: Database) -> None:
    """A batch reads the stored entities of all its names in one statement: each (scope,
    name) by the entity terms' index, its record by key. (With the names as a row-value
    IN list, SQLite walked every live record through the status index instead: 109 ms
    for 400 names at 200,000 records.)"""
    items = [
        event(f"met P{i}", content={"entities": [f"P{i}"]}, scope=f"s{i % 3}") for i in range(60)
    ]
    items += [event(f"note {i}", scope=f"s{i % 3}") for i in range(240)]
    assert post_batch(client, items).status_code == 200
    if db.dialect == "sqlite":  # no statistics (a new store): an index on status looks
        with db.transaction() as session:  # as selective as the names' own
            session.execute(text("DELETE FROM sqlite_stat1"))
            session.execute(text("ANALYZE sqlite_schema"))
    again = [
        event(f"P{i} again", content={"entities": [f"P{i}"]}, scope=f"s{i % 3}")
        for i in range(0, 60, 7)
    ]
    seen: list[tuple[str, Any]] = []

    def keep(_c: Any, _cur: Any, statement: str, parameters: Any, *_rest: Any) -> None:
        seen.append((statement, parameters))

    engine = app_state(client).db.engine
    sqlalchemy_event.listen(engine, "before_cursor_execute", keep)
    try:
        r = post_batch(client, again)
    finally:
        sqlalchemy_event.remove(engine, "before_cursor_execute", keep)
    assert r.status_code == 200 and r.json()["failed"] == 0, r.text
    created = [x["result"]["created_records"] for x in r.json()["results"]]
    assert created == [[]] * len(again)  # every name resolved to its stored entity
    [(statement, parameters)] = [
        s for s in seen if s[0].startswith("SELECT entity_terms.scope, entity_terms.term")
    ]
    if db.dialect != "sqlite":
        return  # PostgreSQL plans tables this small by their size, not by the statement
    with db.transaction() as session:
        rows = session.connection().exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)
        plan = [str(row[-1]) for row in rows]
    assert any("ix_entity_terms_scope_term" in line for line in plan), plan
    assert not any("ix_records_status" in line for line in plan), plan
    assert any("sqlite_autoindex_records_1" in line for line in plan), plan  # by key
