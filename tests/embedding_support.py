"""A real OpenAI-compatible /v1/embeddings server on loopback (bag-of-words vectors), for
tests of the openai provider and of the worker process. Loaded as a pytest plugin."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.conftest import make_settings

DIM = 384  # the pgvector column of the migrated test databases is vector(384)


def bag_of_words(text: str) -> list[float]:
    vec = [0.0] * DIM
    for word in re.findall(r"\w+", text.lower()):
        vec[int(hashlib.sha1(word.encode()).hexdigest(), 16) % DIM] += 1.0
    return vec


@dataclass
class FakeOpenAI:
    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    fail_next: list[int] = field(default_factory=list)  # statuses to answer first
    auth_headers: list[str | None] = field(default_factory=list)


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    state = FakeOpenAI(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append(body)
            state.auth_headers.append(self.headers.get("Authorization"))
            if self.path != "/v1/embeddings":
                return self._send(404, {"error": "not found"})
            if state.fail_next:
                return self._send(state.fail_next.pop(0), {"error": "try again"})
            data = [
                {"object": "embedding", "index": i, "embedding": bag_of_words(text)}
                for i, text in enumerate(body["input"])
            ]
            data.reverse()  # clients must order by index
            self._send(200, {"object": "list", "data": data, "model": body["model"]})

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            raw = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()


def openai_settings(db_url: str, fake: FakeOpenAI, **embedding: Any) -> Any:
    cfg = {
        "provider": "openai",
        "base_url": fake.url,
        "model": "fake-bow",
        "dimension": DIM,
        "api_key": "sk-test",
        "worker_enabled": False,
        **embedding,
    }
    return make_settings(db_url, embedding=cfg)
