"""SQLAlchemy's compiled-statement cache with a look-up by identity in front of it.

Every execution finds its statement's compiled form in the engine's cache under a key
built around the statement's cache key: a nested tuple as large as the statement, which
the look-up hashes again on every call (tuples do not keep their hash). For the hot
statements, which are built once and so keep one memoized cache key, that hashing was
the most costly step left of running them: 66 µs an execution for the lexical search of
an all-scope retrieve, 264 µs of each such retrieve and 50 of a retrieve without a query
(in process, 2,000 records on SQLite; DESIGN.md §9).

`IdentityFirstCache` remembers, for each statement cache key it has answered, the
compiled form by the identity of that key. SQLAlchemy builds the look-up key as
(dialect, statement key, column keys, schema map?, executemany?) (sql/elements.py,
`_compile_w_cache`); the fast path reads it only when it has that shape, keeps a strong
reference to the statement key it matched (so its identity cannot be reused while
remembered), and forgets everything once it holds more than `IDENTITIES` entries
(statements built per call carry a new key each time and never match by identity).
Any other key takes the ordinary LRU path, which stays the cache of record."""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import Engine
from sqlalchemy.util import LRUCache

IDENTITIES = 2000

_KEY_SHAPE = 5  # (dialect, statement key, column keys, schema map?, executemany?)


class IdentityFirstCache(LRUCache[Any, Any]):
    def __init__(self, capacity: int) -> None:
        super().__init__(capacity)
        # (id of statement key, id of dialect, column keys, schema map?, executemany?)
        # -> (statement key, dialect, compiled)
        self._by_identity: dict[tuple[Any, ...], tuple[Any, Any, Any]] = {}

    def get(self, key: Any, default: Any = None) -> Any:
        short = _short_key(key)
        if short is not None:
            hit = self._by_identity.get(short)
            if hit is not None and hit[0] is key[1] and hit[1] is key[0]:
                return hit[2]
        found = super().get(key, default)
        if short is not None and found is not default:
            self._remember(short, key, found)
        return found

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        short = _short_key(key)
        if short is not None:
            self._remember(short, key, value)

    def clear(self) -> None:
        self._by_identity.clear()
        super().clear()

    def _remember(self, short: tuple[Any, ...], key: Any, compiled: Any) -> None:
        if len(self._by_identity) >= IDENTITIES:
            self._by_identity.clear()
        self._by_identity[short] = (key[1], key[0], compiled)


def _short_key(key: Any) -> tuple[Any, ...] | None:
    """The identity key of a look-up key of the expected shape, else None."""
    if type(key) is not tuple or len(key) != _KEY_SHAPE or type(key[1]) is not tuple:
        return None
    return (id(key[1]), id(key[0]), key[2], key[3], key[4])


def find_compiled_by_identity(engine: Engine) -> None:
    """Put the identity look-up in front of `engine`'s compiled cache (same capacity)."""
    current = engine._compiled_cache
    if not isinstance(current, LRUCache) or isinstance(current, IdentityFirstCache):
        return  # caching switched off (query_cache_size=0), or in place already
    engine._compiled_cache = IdentityFirstCache(current.capacity)
