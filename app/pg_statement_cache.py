"""psycopg converts a statement's `%(name)s` placeholders to PostgreSQL's `$n` in Python
and keeps the conversion only for statements of up to MAX_CACHED_STATEMENT_LENGTH bytes
(4,096): a longer one is parsed again on every call. Membrane's statements are built once
per shape, their values parameters, so they are few however large; the hot ones had been
kept short to fit (the no-query retrieve's 5,041 bytes had cost 2 M of its 16 M
instructions a request), until a query retrieve across scopes took its entity-name
look-up into its BM25 statement (~5,000 bytes): the limit is raised for them all."""

from __future__ import annotations

from psycopg import _queries

STATEMENT_CACHE_BYTES = 16_384


def widen() -> None:
    """Keep the conversion of statements up to STATEMENT_CACHE_BYTES (idempotent)."""
    if _queries.MAX_CACHED_STATEMENT_LENGTH < STATEMENT_CACHE_BYTES:
        _queries.MAX_CACHED_STATEMENT_LENGTH = STATEMENT_CACHE_BYTES
