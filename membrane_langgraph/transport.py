"""The HTTP side of the store: one `Call` is one REST request, sent with the caller's API
key and trust narrowing headers, retried on what a retry can fix (a lost connection, 429,
503) after the service's Retry-After. A write carries one Idempotency-Key for all its
tries, so a retry whose first try did land answers the first answer again and writes
nothing. Store operations are generators of calls (app-free, I/O-free); `drive` and
`adrive` run them with httpx's sync and async clients."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx

T = TypeVar("T")
RETRIED_STATUSES = (429, 502, 503, 504)
MAX_RETRY_WAIT_S = 10.0


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    params: Sequence[tuple[str, str | int | float]] = ()
    body: Any = None
    # Writes only: the Idempotency-Key every try of this call carries.
    idempotency_key: str | None = None

    @classmethod
    def write(cls, path: str, body: Any) -> Call:
        return cls("POST", path, body=body, idempotency_key=f"langgraph-{uuid.uuid4().hex}")


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


Operation = Generator[Call, Answer, T]


class MembraneError(RuntimeError):
    """The service refused a call (its RFC 9457 problem document is `problem`)."""

    def __init__(self, call: Call, answer: Answer) -> None:
        problem = answer.body if isinstance(answer.body, dict) else {}
        detail = problem.get("detail") or problem.get("title") or f"HTTP {answer.status}"
        super().__init__(f"{call.method} {call.path}: {answer.status} {detail}")
        self.status = answer.status
        self.problem = problem


def expect(call: Call, answer: Answer, *allowed: int) -> Answer:
    """`answer` when it succeeded or its status is allowed; MembraneError otherwise."""
    if answer.ok or answer.status in allowed:
        return answer
    raise MembraneError(call, answer)


@dataclass(frozen=True)
class Connection:
    """Where and as whom: base URL, API key, trust narrowing, retry budget."""

    base_url: str
    api_key: str | None = None
    max_sensitivity: str | None = None
    scopes: Sequence[str] | None = None
    timeout_s: float = 30.0
    tries: int = 4
    headers: dict[str, str] = field(default_factory=dict)
    # httpx transports of your own (TLS settings, proxies, a fault injector in tests)
    transport: httpx.BaseTransport | None = None
    async_transport: httpx.AsyncBaseTransport | None = None

    def default_headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json", **self.headers}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        if self.max_sensitivity:
            headers["X-Membrane-Max-Sensitivity"] = self.max_sensitivity
        if self.scopes is not None:
            headers["X-Membrane-Scopes"] = ",".join(self.scopes)
        return headers

    def client(self) -> httpx.Client:
        return httpx.Client(
            base_url=self.base_url,
            headers=self.default_headers(),
            timeout=self.timeout_s,
            transport=self.transport,
        )

    def async_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=self.base_url,
            headers=self.default_headers(),
            timeout=self.timeout_s,
            transport=self.async_transport,
        )


def _request(call: Call) -> dict[str, Any]:
    headers = {"Idempotency-Key": call.idempotency_key} if call.idempotency_key else {}
    request: dict[str, Any] = {
        "method": call.method,
        "url": call.path,
        "params": list(call.params),
        "headers": headers,
    }
    if call.body is not None:
        request["json"] = call.body
    return request


def _answer(response: httpx.Response) -> Answer:
    try:
        body = response.json() if response.content else None
    except ValueError:
        body = response.text
    return Answer(response.status_code, body)


def _wait_s(response: httpx.Response | None, attempt: int) -> float:
    """The service's Retry-After when it gave one, else a short growing pause."""
    header = response.headers.get("Retry-After") if response is not None else None
    try:
        wait = float(header) if header is not None else 0.2 * 2**attempt
    except ValueError:
        wait = 0.2 * 2**attempt
    return min(wait, MAX_RETRY_WAIT_S)


def send(client: httpx.Client, call: Call, tries: int) -> Answer:
    for attempt in range(tries):
        response: httpx.Response | None = None
        try:
            response = client.request(**_request(call))
        except httpx.TransportError:
            if attempt == tries - 1:
                raise
        else:
            if response.status_code not in RETRIED_STATUSES or attempt == tries - 1:
                return _answer(response)
        time.sleep(_wait_s(response, attempt))
    raise AssertionError("unreachable: the last try returns or raises")


async def asend(client: httpx.AsyncClient, call: Call, tries: int) -> Answer:
    for attempt in range(tries):
        response: httpx.Response | None = None
        try:
            response = await client.request(**_request(call))
        except httpx.TransportError:
            if attempt == tries - 1:
                raise
        else:
            if response.status_code not in RETRIED_STATUSES or attempt == tries - 1:
                return _answer(response)
        await asyncio.sleep(_wait_s(response, attempt))
    raise AssertionError("unreachable: the last try returns or raises")


def drive(operation: Operation[T], client: httpx.Client, tries: int) -> T:
    """Run an operation's calls one after the other; its result."""
    try:
        call = next(operation)
        while True:
            call = operation.send(send(client, call, tries))
    except StopIteration as done:
        result: T = done.value
        return result


async def adrive(operation: Operation[T], client: httpx.AsyncClient, tries: int) -> T:
    try:
        call = next(operation)
        while True:
            call = operation.send(await asend(client, call, tries))
    except StopIteration as done:
        result: T = done.value
        return result
