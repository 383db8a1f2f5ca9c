"""All SQL about records, their tags and provenance rows. The filter every read of
records shares is `app/records/clauses.py`, built on `app/models/clauses.py`; both are
named here too (`visible`, `among`, `query_clauses`, ...) for the callers that import them
from this module."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from functools import cache
from typing import Any, cast

from sqlalchemy import (
    JSON,
    Double,
    Insert,
    Select,
    Table,
    and_,
    bindparam,
    delete,
    insert,
    inspect,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.orm import Mapper, Session
from sqlalchemy.orm.attributes import set_committed_value

from app import json_codec, write_behind
from app.audit import repository as audit_repo
from app.audit.repository import trail_of
from app.db import dialect_of, prepared
from app.models import AuditRow, ProvenanceRow, RecordRow, RelationRow, TagRow, staging
from app.models.clauses import among as among
from app.models.clauses import off_index as off_index
from app.models.clauses import visibility_params
from app.models.clauses import visible as visible
from app.records.clauses import FilterShape, bound_clauses, filter_params, filter_shape
from app.records.clauses import query_clauses as query_clauses
from app.records.clauses import status_of as status_of
from app.records.clauses import tags_all_clause as tags_all_clause
from app.records.event_time import occurred_at
from app.records.filters import RecordQuery
from app.records.payload_json import StoredJson
from app.relations.clauses import EVERY_EDGE, edges_column, edges_of
from app.trust import Visibility


def add_record(
    session: Session,
    row: RecordRow,
    provenance: Sequence[ProvenanceRow] = (),
    *,
    insert_at_once: bool = True,
) -> None:
    """Stage a record with its tags and provenance. `insert_at_once`: insert the record now
    (rows written with Core statements may refer to it); otherwise it waits for the
    caller's `insert_staged`, which writes many records in one statement (the rows go
    to the session's gathering, `app/models/staging.py`, when one is open)."""
    if insert_at_once:
        session.add(row)
        session.flush([row])
    else:
        staging.add(session, row)
    for tag in row.tags:
        staging.add(session, staging.new_row(TagRow, record_id=row.id, tag=tag))
    for prov in provenance:
        prov.record_id = row.id
        staging.add(session, prov)


def insert_staged(session: Session, staged: Sequence[object], *, wait: bool = True) -> None:
    """Write gathered rows (in the order given) as one multi-row INSERT per table, records
    before the rows that refer to them: the ORM's flush costs ~40 µs per row on top,
    which is most of a bulk capture. Gathered rows never enter the session; rows a caller
    added to it are taken out once written. Rows of one table that set different columns
    go in one INSERT per set (no ORM flush: a flush would take along every row gathered,
    those written already too). `wait=False`: on PostgreSQL the rows are sent and the
    caller goes on while they are inserted (app/write_behind.py)."""
    added = session.new  # rows a caller put in the session itself (empty when gathered)
    tables: dict[type, list[object]] = {}
    for obj in staged:
        tables.setdefault(type(obj), []).append(obj)
    for cls in sorted(tables, key=lambda c: c is not RecordRow):
        rows = tables[cls]
        mapper: Mapper[Any] = inspect(cls)
        columns = {attr.key: attr.columns[0].key for attr in mapper.column_attrs}
        values = [
            {c: obj.__dict__[k] for k, c in columns.items() if k in obj.__dict__} for obj in rows
        ]
        by_keys: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for v in values:  # one INSERT per set of columns given (defaults fill the rest)
            by_keys.setdefault(tuple(v), []).append(v)
        for same in by_keys.values():
            _insert_rows(session, cls, mapper, same, wait)
        if added:  # written: the session must not insert them again
            for obj in rows:
                if obj in added:
                    session.expunge(obj)


def _insert_rows(
    session: Session, cls: type, mapper: Mapper[Any], values: list[dict[str, Any]], wait: bool
) -> None:
    """One INSERT of rows that all set the same columns, into the table, not the class:
    the ORM's bulk INSERT path reaches the same driver call (psycopg's pipelined
    executemany on PostgreSQL) through work of its own, as much again on SQLite and
    ~13 % of a PostgreSQL capture's instructions. (Multi-row VALUES statements instead of
    the pipeline made a PostgreSQL batch of 100 slower: p50 24 -> 34 ms.)"""
    sqlite = dialect_of(session) == "sqlite"
    together = sqlite and cls is RecordRow and len(values) >= _FTS_BATCH
    conn = session.connection()
    statement = _table_insert(cast(Table, mapper.local_table))
    if not (wait or sqlite):
        write_behind.send(conn, lambda: conn.execute(statement, values))
        return
    with _indexed_together(session) if together else nullcontext():
        conn.execute(statement, values)


@cache
def _table_insert(table: Table) -> Insert:
    """Built once per table (with its cache key), run on the session's connection: a
    capture's few rows cost more to build and route through the ORM session than to
    insert. Inline: no generated key is read back (no RETURNING; nothing reads it), so a
    single row can be sent without waiting too (app/write_behind.py)."""
    return insert(table).inline()


# SQLite: from this many records on, a multi-row INSERT indexes its records for full text
# in one statement after it (migration 0014) rather than through the per-row trigger.
_FTS_BATCH = 4
_FTS_MARK = text(
    "INSERT INTO fts_deferred (after_rowid) SELECT coalesce(max(rowid), 0) FROM records"
)
_FTS_INDEX = text(
    "INSERT INTO records_fts (rowid, search_text, scope_key) SELECT rowid, search_text, "
    "'x' || replace(replace(hex(coalesce(scope, '')), 'E', 'G'), 'D', 'H') FROM records "
    "WHERE rowid > (SELECT after_rowid FROM fts_deferred)"
)
_FTS_UNMARK = text("DELETE FROM fts_deferred")


@contextmanager
def _indexed_together(session: Session) -> Iterator[None]:
    """The records inserted inside the block enter the full-text index in one statement
    at its end: the trigger, which indexes one row per nested statement (and FTS5 writes
    a segment for each), stands aside while `fts_deferred` holds the mark (this
    transaction's only; the scope key is the trigger's, migration 0003)."""
    session.execute(_FTS_MARK)
    try:
        yield
        session.execute(_FTS_INDEX)
    finally:
        session.execute(_FTS_UNMARK)


def add_provenance(session: Session, record_id: str, provenance: ProvenanceRow) -> None:
    provenance.record_id = record_id
    staging.add(session, provenance)


def get(session: Session, record_id: str) -> RecordRow | None:
    return session.get(RecordRow, record_id)


def get_for_reading(
    session: Session, record_id: str, reading: Visibility
) -> tuple[RecordRow, list[RelationRow], list[AuditRow]] | None:
    """A record with every outgoing edge `reading` may see and its audit trail (the first
    `audit_repo.TRAIL_LIMIT` entries), in one statement; None when there is no such
    record. The caller checks that the record itself may be read."""
    dialect = dialect_of(session)
    stmt = _for_reading_statement(dialect, reading.scopes is not None)
    params = {
        **visibility_params(reading),
        "record_id": record_id,
        "edge_limit": EVERY_EDGE,
        "trail_limit": audit_repo.TRAIL_LIMIT,
    }
    found = session.execute(stmt, params).one_or_none()
    if found is None:
        return None
    row, edges, trail = found
    return row, edges_of(row.id, edges), trail_of(row.id, trail)


@cache
def _for_reading_statement(dialect: str, scoped: bool) -> Select[Any]:
    edges, trail = edges_column(dialect, scoped), audit_repo.trail_column(dialect)
    stmt = select(RecordRow, edges, trail).where(RecordRow.id == bindparam("record_id"))
    return prepared(stmt)


def get_many(session: Session, ids: Sequence[str]) -> dict[str, RecordRow]:
    if not ids:
        return {}
    rows = session.scalars(select(RecordRow).where(RecordRow.id.in_(list(set(ids)))))
    return {r.id: r for r in rows}


def get_many_loaded(session: Session, ids: Sequence[str]) -> dict[str, RecordRow]:
    """Like get_many, but rows this session already holds come from its identity map
    without a query (consolidation checks each promoted record's source episode, which
    it has just read, once per record)."""
    found: dict[str, RecordRow] = {}
    missing: list[str] = []
    for rid in set(ids):
        row = session.identity_map.get(session.identity_key(RecordRow, rid))
        if isinstance(row, RecordRow):
            found[rid] = row
        else:
            missing.append(rid)
    return found | get_many(session, missing)


def lock(session: Session, ids: Sequence[str], *, deleting: bool = False) -> dict[str, RecordRow]:
    """Load rows for update (SELECT … FOR NO KEY UPDATE on PostgreSQL, FOR UPDATE when
    `deleting` them; SQLite's write lock is already held by BEGIN IMMEDIATE). Rows are
    locked in id order to avoid deadlocks. NO KEY UPDATE when the holder changes columns,
    never the key: a capture that writes an edge from one of these records (its
    foreign-key check: KEY SHARE) need not wait for this transaction
    (tests/test_worker_row_locks_pg.py)."""
    if not ids:
        return {}
    stmt = (
        select(RecordRow)
        .where(RecordRow.id.in_(sorted(set(ids))))
        .order_by(RecordRow.id)
        .with_for_update(key_share=not deleting)
        .execution_options(populate_existing=True)
    )
    return {r.id: r for r in session.scalars(stmt)}


def page(
    session: Session,
    query: RecordQuery,
    reading: Visibility,
    *,
    limit: int,
    after: tuple[float, str] | None,
) -> list[tuple[RecordRow, list[RelationRow]]]:
    """Newest first, stable order (created_at, id) with keyset pagination; each row with
    every outgoing edge `reading` may see (read in the same statement)."""
    shape = filter_shape(query, dialect_of(session))
    stmt = _page_statement(shape, after is not None, reading.scopes is not None)
    params = {
        **filter_params(query),
        **visibility_params(reading),
        "limit": limit,
        "edge_limit": EVERY_EDGE,
    }
    if after is not None:
        params["after_created"], params["after_id"] = after
    return [(row, edges_of(row.id, edges)) for row, edges in session.execute(stmt, params)]


@cache
def _page_statement(shape: FilterShape, paged: bool, scoped: bool) -> Select[Any]:
    """Built once per filter shape (whether a cursor is given, whether the reader is held
    to some scopes)."""
    edges = edges_column(shape.dialect, scoped)
    stmt = select(RecordRow, edges).where(*bound_clauses(shape))
    if paged:
        created = bindparam("after_created", type_=Double)
        rid: Any = bindparam("after_id")
        stmt = stmt.where(
            or_(
                RecordRow.created_at < created,
                and_(RecordRow.created_at == created, RecordRow.id < rid),
            )
        )
    return stmt.order_by(RecordRow.created_at.desc(), RecordRow.id.desc()).limit(bindparam("limit"))


def remove_record(session: Session, record_id: str) -> None:
    session.execute(delete(RecordRow).where(RecordRow.id == record_id))


def reload(session: Session, record_id: str) -> RecordRow | None:
    """The row as stored now (after Core UPDATEs the identity map may be stale)."""
    stmt = (
        select(RecordRow).where(RecordRow.id == record_id).execution_options(populate_existing=True)
    )
    return session.scalars(stmt).one_or_none()


def set_payload(session: Session, record_id: str, payload: StoredJson, now: float) -> None:
    """The payload replaced; the stored event time, read from the payload when NULL, is
    cleared with it (models.RecordRow.occurred_at)."""
    stmt = (
        update(RecordRow)
        .where(RecordRow.id == record_id)
        .values(payload=payload, updated_at=now, occurred_at=None)
        .execution_options(synchronize_session=False)
    )
    session.execute(stmt)


def set_fields(session: Session, row: RecordRow, **values: object) -> None:
    """Update a stored record's columns now (one UPDATE, seen by the statements that
    follow) and `row`, attached or not, to match without marking it changed. A new
    payload clears the stored event time, as `set_payload` does."""
    if "payload" in values:
        values.setdefault("occurred_at", None)
    stmt = (
        update(RecordRow)
        .where(RecordRow.id == row.id)
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    session.execute(stmt)
    for name, value in values.items():
        set_committed_value(row, name, value)


def bulk_insert(session: Session, rows: Sequence[Mapping[str, object]]) -> None:
    """Insert many record rows at once (bulk loads and benchmarks): no tags, provenance
    rows or audit entries. PostgreSQL gets COPY, SQLite one executemany."""
    if not rows:
        return
    rows = [_with_event_time(row) for row in rows]
    if dialect_of(session) != "postgresql":
        session.execute(insert(RecordRow), rows)
        return
    columns = [c.name for c in RecordRow.__table__.columns]
    json_columns = {c.name for c in RecordRow.__table__.columns if isinstance(c.type, JSON)}
    raw = session.connection().connection.driver_connection
    assert raw is not None
    with raw.cursor().copy(f"COPY records ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(
                [json_codec.dumps(row.get(c)) if c in json_columns else row.get(c) for c in columns]
            )


def _with_event_time(row: Mapping[str, Any]) -> Mapping[str, Any]:
    if "occurred_at" in row:
        return row
    return {**row, "occurred_at": occurred_at(row["type"], row["payload"], row["created_at"])}


def set_status(session: Session, ids: list[str], status: str, now: float) -> None:
    stmt = (
        update(RecordRow)
        .where(RecordRow.id.in_(list(ids)))
        .values(status=status, updated_at=now)
        .execution_options(synchronize_session=False)
    )
    session.execute(stmt)
