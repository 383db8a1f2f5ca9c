"""The compiled-statement cache's look-up by identity (app/compiled_cache.py): a statement
built once is found again without hashing its cache key, answers stay those of
SQLAlchemy's own cache, and what it remembers stays bounded."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import bindparam, select

from app import compiled_cache
from app.compiled_cache import IdentityFirstCache
from app.models import RecordRow
from tests.conftest import app_state, auth

A = auth("admin")


class Part:
    """A statement-key element that counts how often it is hashed."""

    def __init__(self) -> None:
        self.hashed = 0

    def __hash__(self) -> int:
        self.hashed += 1
        return 7

    def __eq__(self, other: object) -> bool:
        return other is self


def _key(part: Part, dialect: object = "sqlite", columns: tuple[str, ...] = ()) -> Any:
    return (dialect, ("select", part), columns, False, False)


def test_a_key_seen_before_is_found_by_identity_without_hashing() -> None:
    cache = IdentityFirstCache(10)
    part = Part()
    key = _key(part)
    cache[key] = "compiled"
    hashed = part.hashed
    # SQLAlchemy builds a new outer tuple per execution around the statement's memoized key
    for _ in range(3):
        assert cache.get((key[0], key[1], (), False, False)) == "compiled"
    assert part.hashed == hashed


def test_an_equal_key_of_another_identity_takes_the_ordinary_path() -> None:
    cache = IdentityFirstCache(10)
    part = Part()
    cache[_key(part)] = "compiled"
    other = ("sqlite", ("select", part), (), False, False)  # equal, new inner tuple
    assert cache.get(other) == "compiled"
    assert cache.get(_key(part, dialect="postgresql")) is None  # another dialect
    assert cache.get(_key(part, columns=("a",))) is None  # other column keys
    assert cache.get("not a tuple key", "default") == "default"


def test_an_ordinary_hit_is_remembered_by_identity() -> None:
    cache = IdentityFirstCache(10)
    part = Part()
    stored = ("sqlite", ("select", part), (), False, False)
    cache[stored] = "compiled"
    later = ("sqlite", ("select", part), (), False, False)  # equal to `stored`, not it
    assert cache.get(later) == "compiled"  # hashed once, then remembered by identity
    hashed = part.hashed
    assert cache.get(("sqlite", later[1], (), False, False)) == "compiled"
    assert part.hashed == hashed


def test_what_it_remembers_stays_bounded_and_clear_forgets_it() -> None:
    cache = IdentityFirstCache(10_000)
    parts = [Part() for _ in range(compiled_cache.IDENTITIES + 5)]
    for i, part in enumerate(parts):
        cache[_key(part)] = f"compiled {i}"
    assert len(cache._by_identity) <= compiled_cache.IDENTITIES
    assert cache.get(_key(parts[0])) == "compiled 0"  # still in the LRU cache
    cache.clear()
    assert not cache._by_identity
    assert cache.get(_key(parts[1])) is None


def test_the_service_runs_its_statements_through_it(client: TestClient) -> None:
    engine = app_state(client).db.engine
    assert isinstance(engine._compiled_cache, IdentityFirstCache)
    body = {"source_kind": "event", "source": "t", "summary": "Alice moved to Paris"}
    r = client.post("/v1/capture", json=body, headers=A)
    assert r.status_code == 201, r.text
    rid = r.json()["primary_record"]["id"]
    for _ in range(3):  # the same statement object: found by identity after the first
        got = client.get(f"/v1/records/{rid}", headers=A)
        assert got.status_code == 200 and got.json()["id"] == rid
    stmt = select(RecordRow.id, RecordRow.type).where(RecordRow.id == bindparam("rid"))
    with engine.connect() as conn:
        first = conn.execute(stmt, {"rid": rid}).all()
        again = conn.execute(stmt, {"rid": "no-such-id"}).all()
    assert first == [(rid, "episodic")]
    assert again == []  # the cached form takes the new value
