"""A client that calls the app straight through ASGI: no test client, no server, no
socket. `bench/instructions.py --driver asgi` counts a request's instructions with it,
so that the figure is the app's own work (Starlette's test client adds ~3.3 M
instructions a request of its own: a portal thread, httpx's request and response
models).

Only what bench/latency.py's operations call: `get` and `post` (JSON bodies, query
parameters), answered with a response that has `status_code`, `headers`, `json()` and
`raise_for_status()`. The app's lifespan runs on entry and exit, as under a server.
"""

from __future__ import annotations

import asyncio
import json as jsonlib
import threading
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import unquote, urlencode

from starlette.types import ASGIApp, Message

T = TypeVar("T")


class AsgiError(RuntimeError):
    """A 4xx / 5xx answer (`raise_for_status`), or a lifespan that failed."""


@dataclass
class AsgiResponse:
    status_code: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    content: bytes = b""

    def json(self) -> Any:
        return jsonlib.loads(self.content)

    def raise_for_status(self) -> AsgiResponse:
        if self.status_code >= 400:
            raise AsgiError(f"{self.status_code}: {self.content[:500]!r}")
        return self


class AsgiClient:
    """`with AsgiClient(app) as client: client.get("/healthz")`: one event loop for the
    client's life, run on a thread of its own by one long-lived root task, as a server
    runs it. (Driven by `run_until_complete` per request, each request would be anyio's
    root task, and its worker thread for sync endpoints would end with it: a thread
    started per request, which no server pays.)"""

    def __init__(self, app: ASGIApp, host: str = "127.0.0.1") -> None:
        self.app = app
        self.host = host
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="asgi-client", daemon=True)
        self._ready = threading.Event()  # the root task runs
        self._stopped: asyncio.Event | None = None
        self._lifespan_inbox: asyncio.Queue[Message] | None = None
        self._lifespan_outbox: asyncio.Queue[Message] | None = None
        self._lifespan: asyncio.Task[None] | None = None

    def __enter__(self) -> AsgiClient:
        self._thread.start()
        self._ready.wait()
        try:
            self._submit(self._start())
        except BaseException:
            self._end_loop()  # a lifespan that failed to start leaves no thread behind
            raise
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            self._submit(self._stop())
        finally:
            self._end_loop()

    def _end_loop(self) -> None:
        stopped = self._stopped
        if stopped is not None:
            self.loop.call_soon_threadsafe(stopped.set)
        self._thread.join()
        self.loop.close()

    def _run(self) -> None:
        async def root() -> None:
            self._stopped = asyncio.Event()
            self._ready.set()
            await self._stopped.wait()

        self.loop.run_until_complete(root())

    def _submit(self, work: Coroutine[Any, Any, T]) -> T:
        if not self._ready.is_set():
            work.close()
            raise AsgiError("use the client in a `with` block (its loop is not running)")
        return asyncio.run_coroutine_threadsafe(work, self.loop).result()

    def get(self, url: str, *, params: Mapping[str, Any] | None = None) -> AsgiResponse:
        return self._call("GET", url, params, None)

    def post(
        self,
        url: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        timeout: float | None = None,  # accepted for the callers' sake; not enforced
    ) -> AsgiResponse:
        return self._call("POST", url, params, json)

    def _call(
        self, method: str, url: str, params: Mapping[str, Any] | None, body: Any
    ) -> AsgiResponse:
        payload = b"" if body is None else jsonlib.dumps(body).encode()
        return self._submit(self._request(method, url, params, payload))

    async def _request(
        self, method: str, url: str, params: Mapping[str, Any] | None, payload: bytes
    ) -> AsgiResponse:
        path, _, query = url.partition("?")
        if params:
            query = urlencode(params, doseq=True)
        headers = [(b"host", self.host.encode()), (b"user-agent", b"membrane-bench")]
        if payload:
            headers += [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
            ]
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": unquote(path),  # decoded, as servers give it; raw_path as sent
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 50000),
            "server": (self.host, 80),
            "state": {},
        }
        sent = False
        response = AsgiResponse()
        chunks: list[bytes] = []

        async def receive() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": payload, "more_body": False}
            await asyncio.Event().wait()  # the client never disconnects
            raise AssertionError("unreachable")

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                response.status_code = message["status"]
                response.headers = {k.decode(): v.decode() for k, v in message["headers"]}
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, send)
        response.content = b"".join(chunks)
        return response

    async def _start(self) -> None:
        self._lifespan_inbox = asyncio.Queue()
        self._lifespan_outbox = asyncio.Queue()
        scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
        inbox, outbox = self._lifespan_inbox, self._lifespan_outbox

        async def lifespan() -> None:
            await self.app(scope, inbox.get, outbox.put)

        self._lifespan = asyncio.create_task(lifespan())
        await self._lifespan_inbox.put({"type": "lifespan.startup"})
        await self._expect("lifespan.startup.complete")

    async def _stop(self) -> None:
        if self._lifespan is None or self._lifespan_inbox is None:
            return
        await self._lifespan_inbox.put({"type": "lifespan.shutdown"})
        await self._expect("lifespan.shutdown.complete")
        await self._lifespan

    async def _expect(self, kind: str) -> None:
        assert self._lifespan_outbox is not None
        message = await self._lifespan_outbox.get()
        if message["type"] != kind:
            raise AsgiError(f"lifespan answered {message}")
