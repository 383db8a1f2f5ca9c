"""A real OpenAI-compatible /v1/chat/completions server on loopback, for the LLM client
and consolidation's triple extraction.

Its "model" is deterministic: it reads the numbered episodes of the user message and
answers, for each, the facts its summary spells as `subject | predicate | object`
(several separated by `;`). Each call takes the next behaviour of `script`, then
`default`: a good answer, one wrapped in prose and a code fence, a verbatim text
(malformed, empty, oversized …), an HTTP error status (with Retry-After), or a hang.
Every request is recorded with its arrival time and Authorization header.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from app.config import Settings
from tests.conftest import make_settings


@dataclass(frozen=True)
class Behaviour:
    kind: Literal["good", "prose", "text", "status", "hang"]
    text: str = ""  # kind "text": the answer's content, verbatim
    status: int = 200  # kind "status"
    retry_after: str | None = None
    hang_s: float = 0.0  # kind "hang": then a good answer (if the client still listens)
    usage: bool = True  # report usage.total_tokens


GOOD = Behaviour("good")
PROSE = Behaviour("prose")
MALFORMED = Behaviour("text", text='[{"episode": 1, "subject": "alice", "predicate": ')
PROSE_ONLY = Behaviour("text", text="I could not find any durable facts worth keeping here.")
EMPTY = Behaviour("text", text="[]")
SERVER_ERROR = Behaviour("status", status=500)


def text(content: str) -> Behaviour:
    return Behaviour("text", text=content)


def oversized(chars: int) -> Behaviour:
    """A well-formed answer longer than `chars` characters."""
    one = {"episode": 1, "subject": "padding", "predicate": "is", "object": "x" * 80}
    return text(json.dumps([one] * (chars // 100 + 2)))


def rate_limited(retry_after: str) -> Behaviour:
    return Behaviour("status", status=429, retry_after=retry_after)


def hang(seconds: float) -> Behaviour:
    return Behaviour("hang", hang_s=seconds)


def facts_of(summary: str) -> list[tuple[str, str, str]]:
    facts = []
    for part in summary.split(";"):
        fields = [f.strip() for f in part.split("|")]
        if len(fields) == 3 and all(fields):
            facts.append((fields[0], fields[1], fields[2]))
    return facts


def episodes_of(body: dict[str, Any]) -> list[str]:
    """The summaries a chat request carries, in their numbered order."""
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    data, _ = json.JSONDecoder().raw_decode(user, user.index("{"))
    return [e["summary"] for e in sorted(data["episodes"], key=lambda e: e["episode"])]


def good_answer(body: dict[str, Any]) -> str:
    triples = [
        {"episode": n, "subject": s, "predicate": p, "object": o}
        for n, summary in enumerate(episodes_of(body), start=1)
        for s, p, o in facts_of(summary)
    ]
    return json.dumps(triples)


@dataclass
class FakeLLM:
    url: str = ""
    script: list[Behaviour] = field(default_factory=list)  # consumed first, one per call
    default: Behaviour = GOOD
    requests: list[dict[str, Any]] = field(default_factory=list)
    times: list[float] = field(default_factory=list)  # time.monotonic() of each arrival
    auth_headers: list[str | None] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_behaviour(self) -> Behaviour:
        with self.lock:
            return self.script.pop(0) if self.script else self.default

    def batches(self) -> list[list[str]]:
        """The episode summaries of every request received, request by request."""
        return [episodes_of(body) for body in self.requests]


def _content(behaviour: Behaviour, body: dict[str, Any]) -> str:
    if behaviour.kind == "text":
        return behaviour.text
    answer = good_answer(body)
    if behaviour.kind == "prose":
        return f"Here are the facts I found:\n```json\n{answer}\n```\nLet me know if [more] helps."
    return answer


def completion(behaviour: Behaviour, body: dict[str, Any]) -> dict[str, Any]:
    content = _content(behaviour, body)
    out: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fake"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
    }
    if behaviour.usage:
        prompt = sum(len(m["content"]) for m in body["messages"]) // 4
        done = len(content) // 4
        out["usage"] = {
            "prompt_tokens": prompt,
            "completion_tokens": done,
            "total_tokens": prompt + done,
        }
    return out


def _handler(state: FakeLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with state.lock:
                state.requests.append(body)
                state.times.append(time.monotonic())
                state.auth_headers.append(self.headers.get("Authorization"))
            if self.path != "/v1/chat/completions":
                return self._send(404, {"error": {"message": "not found"}})
            behaviour = state.next_behaviour()
            if behaviour.kind == "status":
                headers = {"Retry-After": behaviour.retry_after} if behaviour.retry_after else {}
                return self._send(behaviour.status, {"error": {"message": "nope"}}, headers)
            if behaviour.kind == "hang" and state.stop.wait(behaviour.hang_s):
                return None  # the server is shutting down
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self._send(200, completion(behaviour, body))
            return None

        def _send(
            self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
        ) -> None:
            raw = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextlib.contextmanager
def serve_fake_llm() -> Iterator[FakeLLM]:
    state = FakeLLM()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.stop.set()
        server.shutdown()
        server.server_close()


def llm_settings(db_url: str, fake: FakeLLM, **llm: Any) -> Settings:
    """Test settings whose LLM is `fake`: fast retries and timeouts unless overridden."""
    cfg = {
        "base_url": fake.url,
        "model": "fake-extractor",
        "api_key": "sk-llm-test",
        "timeout_s": 5.0,
        "max_retries": 2,
        "backoff_s": 0.001,
        **llm,
    }
    return make_settings(db_url, llm=cfg)
