"""A full disk: a write that meets "database or disk is full" answers 503 problem+json
(storage-full, Retry-After), writes nothing partial, reads keep working, and the same write
succeeds once space is back.

SQLite is filled for real: every connection of the service gets `PRAGMA max_page_count`
at the file's current size, so any write that needs a new page fails inside SQLite exactly
as on a full filesystem (SQLITE_FULL). PostgreSQL answers SQLSTATE 53100 (disk_full) when a
write cannot extend a file; the test makes the server raise that very error from a trigger
on the audit table, written last in a capture, so that the rest of the capture was already
written inside the transaction when it fails."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import Engine, event, func, select, text

from app.errors import PROBLEM_BASE, STORAGE_FULL_RETRY_S
from app.models import AuditRow, RecordRow
from tests.conftest import app_state, auth, make_settings

W = auth("writer")
BIG = "a long note that needs new pages " * 600  # ~20 KB: overflow pages, FTS rows


def _capture(client: TestClient, summary: str) -> Any:
    body = {"source": "agent", "source_kind": "event", "summary": summary, "scope": "disk"}
    return client.post("/v1/capture", json=body, headers=W)


def _counts(client: TestClient) -> tuple[int, int]:
    with app_state(client).db.read_transaction() as session:
        records = session.scalar(select(func.count()).select_from(RecordRow))
        audit = session.scalar(select(func.count()).select_from(AuditRow))
    return int(records or 0), int(audit or 0)


def _fill_sqlite(engine: Engine) -> Callable[[], None]:
    """Cap every new connection at the file's current page count; returns the undo."""
    with engine.connect() as conn:
        pages = int(conn.exec_driver_sql("PRAGMA page_count").scalar_one())

    def cap(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.execute(f"PRAGMA max_page_count={pages}")

    event.listen(engine, "connect", cap)
    engine.dispose()

    def undo() -> None:
        event.remove(engine, "connect", cap)
        engine.dispose()

    return undo


def _fill_postgres(engine: Engine) -> Callable[[], None]:
    with engine.begin() as conn:
        conn.execute(
            text(
                "CREATE FUNCTION disk_full() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                "RAISE EXCEPTION 'could not extend file: No space left on device' "
                "USING ERRCODE = 'disk_full'; END $$"
            )
        )
        conn.execute(
            text(
                "CREATE TRIGGER disk_full BEFORE INSERT ON audit_log "
                "FOR EACH ROW EXECUTE FUNCTION disk_full()"
            )
        )

    def undo() -> None:
        with engine.begin() as conn:
            conn.execute(text("DROP TRIGGER disk_full ON audit_log"))

    return undo


def test_a_full_disk_refuses_writes_whole_keeps_reads_and_recovers(
    store: str, db_url: str, make_client: Callable[..., TestClient]
) -> None:
    client = make_client(make_settings(db_url))
    first = _capture(client, "written before the disk filled")
    assert first.status_code == 201, first.text
    before = _counts(client)
    engine = app_state(client).db.engine
    undo = _fill_sqlite(engine) if store == "sqlite" else _fill_postgres(engine)

    refused = _capture(client, BIG)
    assert refused.status_code == 503, refused.text
    assert refused.headers["content-type"] == "application/problem+json"
    assert refused.headers["retry-after"] == str(STORAGE_FULL_RETRY_S)
    assert refused.json()["type"] == PROBLEM_BASE + "storage-full"
    assert _counts(client) == before  # nothing partial: no record, no audit entry

    record_id = first.json()["primary_record"]["id"]
    assert client.get(f"/v1/records/{record_id}", headers=W).status_code == 200
    listed = client.get("/v1/records", params={"scope": "disk"}, headers=W)
    assert listed.status_code == 200 and len(listed.json()["items"]) == 1
    found = client.post("/v1/retrieve", json={"query": "disk filled"}, headers=W)
    assert found.status_code == 200, found.text

    undo()
    again = _capture(client, BIG)
    assert again.status_code == 201, again.text
    records, audit = _counts(client)
    assert records > before[0] and audit > before[1]
