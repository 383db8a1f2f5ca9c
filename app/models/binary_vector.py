"""pgvector's `vector` column, its values sent to PostgreSQL in binary form.

pgvector's SQLAlchemy type writes each vector as text, '[0.0123,-0.0456,...]': 0.17 ms of
Python for 384 dimensions, once per query vector of a search and once per vector the
embedding worker stores (a batch of 128: ~22 ms of the worker's CPU), and the server
parses the floats back. Here a vector travels as `vector_recv` reads it: two 16-bit
words (dimensions, unused) and the float4s, big-endian (0.6 µs). The parameter's type is
left for PostgreSQL to infer from the statement (the column written, or the other side
of a distance operator), so no type id need be looked up per database: the extension's
type has a different one in each. Values read back keep pgvector's text form, except
those read as `vector_send` (`VectorBinary.decoded`: the same layout)."""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import psycopg
from pgvector.sqlalchemy import Vector
from psycopg.adapt import Dumper
from psycopg.pq import Format
from sqlalchemy import Dialect


class VectorBinary(bytes):
    """A vector in pgvector's binary form (`vector_recv`)."""

    @staticmethod
    def of(values: Sequence[float] | np.ndarray) -> VectorBinary:
        arr = np.asarray(values, dtype=">f4")
        if arr.ndim != 1:
            raise ValueError(f"a vector has one dimension, not {arr.ndim}")
        return VectorBinary(struct.pack(">HH", arr.shape[0], 0) + arr.tobytes())

    @staticmethod
    def decoded(raw: bytes) -> np.ndarray[Any, np.dtype[np.float32]]:
        """The float32 vector of the same form as `vector_send` writes it."""
        return np.frombuffer(raw, dtype=">f4", offset=4).astype(np.float32)


class _VectorBinaryDumper(Dumper):
    format = Format.BINARY
    oid = 0  # unknown: PostgreSQL infers `vector` from where the parameter stands

    def dump(self, obj: Any) -> bytes:
        return obj  # type: ignore[no-any-return]  # a VectorBinary: bytes already


# On psycopg's global map, which every new connection copies.
psycopg.adapters.register_dumper(VectorBinary, _VectorBinaryDumper)


class BinaryVector(Vector):
    """`pgvector.sqlalchemy.Vector`, bound in binary form on psycopg."""

    cache_ok = True

    def bind_processor(self, dialect: Dialect) -> Callable[[Any], Any] | None:
        if dialect.name != "postgresql" or dialect.driver != "psycopg":
            return super().bind_processor(dialect)  # type: ignore[no-any-return]

        def process(value: Any) -> VectorBinary | None:
            return None if value is None else VectorBinary.of(value)

        return process
