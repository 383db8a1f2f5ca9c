"""Process-local caches that belong to one database: a value per engine, created on first
use and dropped with the engine (tests and tools open many databases in one process)."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

from sqlalchemy import Engine
from sqlalchemy.orm import Session

T = TypeVar("T")


class PerEngine(Generic[T]):
    def __init__(self, factory: Callable[[], T]) -> None:
        self._factory = factory
        self._values: weakref.WeakKeyDictionary[Engine, T] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def of(self, session: Session) -> T:
        engine = session.get_bind().engine
        with self._lock:
            value = self._values.get(engine)
            if value is None:
                value = self._values[engine] = self._factory()
            return value
