"""`MembraneStore`: LangGraph's long-term memory store (`langgraph.store.base.BaseStore`)
backed by a Membrane service over HTTP, sync and async. docs/langgraph.md maps each
operation to the REST calls it makes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import httpx
from langgraph.store.base import (
    BaseStore,
    GetOp,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchOp,
    TTLConfig,
    validate_op_namespace,
)

from membrane_langgraph import operations
from membrane_langgraph.transport import Connection, Operation, adrive, drive


class MembraneStore(BaseStore):
    """Long-term memory for LangGraph graphs, kept by Membrane.

    `MembraneStore("http://127.0.0.1:8080", api_key=...)`; `max_sensitivity` and `scopes`
    narrow every request's trust (X-Membrane-Max-Sensitivity, X-Membrane-Scopes: a store
    narrowed to scopes sees and writes only those namespaces); `sensitivity` is the
    sensitivity of the records puts write; `ttl` is LangGraph's TTLConfig (default_ttl,
    refresh_on_read, omit_expired); `tries` bounds the tries of one call (a lost connection,
    429 and 503 are retried, writes with their Idempotency-Key); `transport` and
    `async_transport` are httpx transports of your own. Use it as a context manager, or `close()` /
    `aclose()` it, to release its connections."""

    supports_ttl = True

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        max_sensitivity: str | None = None,
        scopes: Sequence[str] | None = None,
        sensitivity: str | None = None,
        ttl: TTLConfig | None = None,
        timeout_s: float = 30.0,
        tries: int = 4,
        transport: httpx.BaseTransport | None = None,
        async_transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.connection = Connection(
            base_url=base_url.rstrip("/"),
            api_key=api_key,
            max_sensitivity=max_sensitivity,
            scopes=list(scopes) if scopes is not None else None,
            timeout_s=timeout_s,
            tries=tries,
            transport=transport,
            async_transport=async_transport,
        )
        self.ttl_config = ttl
        omit_expired = bool(ttl.get("omit_expired", False)) if ttl else False
        self.options = operations.Options(sensitivity=sensitivity, omit_expired=omit_expired)
        self._client: httpx.Client | None = None
        self._async_client: httpx.AsyncClient | None = None

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """The ops in order, one after the other: a read sees the batch's earlier writes."""
        if self._client is None:
            self._client = self.connection.client()
        client, tries = self._client, self.connection.tries
        return [drive(self._operation(op), client, tries) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        if self._async_client is None:
            self._async_client = self.connection.async_client()
        client, tries = self._async_client, self.connection.tries
        return [await adrive(self._operation(op), client, tries) for op in ops]

    def _operation(self, op: Op) -> Operation[Any]:
        validate_op_namespace(op)
        if isinstance(op, GetOp):
            return operations.get(op, self.options)
        if isinstance(op, PutOp):
            return operations.put(op, self.options)
        if isinstance(op, SearchOp):
            return operations.search(op, self.options)
        if isinstance(op, ListNamespacesOp):
            return operations.list_namespaces(op)
        raise TypeError(f"unknown store operation: {op!r}")

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    async def aclose(self) -> None:
        self.close()
        if self._async_client is not None:
            await self._async_client.aclose()
            self._async_client = None

    def __enter__(self) -> MembraneStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> MembraneStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
