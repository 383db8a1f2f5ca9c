"""A minimal HTTP/1.1 keep-alive client for load generation: one connection per simulated
client, no pool. httpx's shared pool cost ~16 ms of client CPU per request at 256
concurrent clients on this 2-core machine — the load generator, not the service, became
the bottleneck and the latency it reported was its own queueing."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse


@dataclass
class RawResponse:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class RawConnection:
    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        parsed = urlparse(url)
        self.host = parsed.hostname or "127.0.0.1"
        self.port = parsed.port or 80
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        self.prefix = f"Host: {self.host}:{self.port}\r\n{extra}"
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, body: Any = None, timeout: float = 10.0
    ) -> RawResponse:
        try:
            return await asyncio.wait_for(self._exchange(method, path, body), timeout)
        except BaseException:
            await self.close()  # a half-read response must not leak into the next one
            raise

    async def _exchange(self, method: str, path: str, body: Any) -> RawResponse:
        if self.reader is not None and self.reader.at_eof():
            await self.close()  # the server closed it while idle: a client reconnects
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        payload = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\n{self.prefix}Content-Length: {len(payload)}\r\n"
        if payload:
            head += "Content-Type: application/json\r\n"
        self.writer.write(head.encode() + b"\r\n" + payload)
        await self.writer.drain()
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionResetError("the server closed the connection")
        headers: dict[str, str] = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        data = await self.reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return RawResponse(int(status_line.split()[1]), headers, data)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None
            self.reader = None
