"""A small synchronous client for OpenAI-compatible chat completions
(POST {base_url}/chat/completions: OpenAI, vLLM, Ollama, llama.cpp, LiteLLM, …).

Each attempt is bounded by `timeout_s` (connect, each read, and the whole body once the
headers came), and by a cap on the answer's size. 408/409/425/429/5xx answers, transport
errors and timeouts are retried with exponential backoff (a server's Retry-After wins
when longer); anything else raises LLMError at once. A Budget caps the calls and tokens
of one run and refuses calls once spent.
"""

from __future__ import annotations

import contextlib
import email.utils
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType

import httpx

from app.config import LLMSettings
from app.http_client import api_client

log = logging.getLogger("membrane.llm")

RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
MAX_BACKOFF_S = 30.0
CHARS_PER_TOKEN = 4  # the estimate when a server reports no usage
MIN_RESPONSE_BYTES = 1 << 20

Message = dict[str, str]


class LLMError(RuntimeError):
    """A chat call failed (after retries) or answered something unusable. `reason` is a
    short code for logs and audit entries: unreachable, timeout, http_<status>,
    bad_response, oversized or budget."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class BudgetExhausted(LLMError):
    """The run's budget of calls or tokens is spent: no call was made."""

    def __init__(self, message: str) -> None:
        super().__init__("budget", message)


@dataclass(frozen=True)
class ChatAnswer:
    text: str
    total_tokens: int  # the server's usage.total_tokens, else an estimate


class Budget:
    """What one run may spend: calls, and tokens (the server's usage, else ~chars/4 of
    prompt and answer). A call is refused once either is used up; the call that crosses
    the token limit finishes (its tokens are only known afterwards). A failed call counts
    as a call and costs no tokens."""

    def __init__(self, max_calls: int, max_tokens: int) -> None:
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self.calls = 0
        self.tokens = 0

    @property
    def exhausted(self) -> bool:
        return self.calls >= self.max_calls or self.tokens >= self.max_tokens

    def admit(self) -> None:
        """Take one call, or raise BudgetExhausted."""
        if self.exhausted:
            raise BudgetExhausted(
                f"LLM budget spent: {self.calls}/{self.max_calls} calls, "
                f"{self.tokens}/{self.max_tokens} tokens."
            )
        self.calls += 1

    def charge(self, tokens: int) -> None:
        self.tokens += max(0, tokens)


def estimate_tokens(messages: Sequence[Message], answer: str) -> int:
    chars = sum(len(m.get("content", "")) for m in messages) + len(answer)
    return max(1, chars // CHARS_PER_TOKEN)


class ChatClient:
    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str = "",
        timeout_s: float = 30.0,
        max_retries: int = 3,
        backoff_s: float = 0.5,
        max_response_bytes: int = 8 * MIN_RESPONSE_BYTES,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.model = model
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_response_bytes = max_response_bytes
        self._client = api_client(
            base_url, api_key=api_key, timeout_s=timeout_s, transport=transport
        )

    @classmethod
    def from_settings(
        cls, cfg: LLMSettings, *, transport: httpx.BaseTransport | None = None
    ) -> ChatClient:
        # JSON may escape a character into six bytes; an answer the parser would refuse
        # as oversized is still read whole, anything far larger is cut off here.
        limit = max(MIN_RESPONSE_BYTES, 8 * cfg.max_answer_chars)
        return cls(
            base_url=cfg.base_url,
            model=cfg.model,
            api_key=cfg.api_key,
            timeout_s=cfg.timeout_s,
            max_retries=cfg.max_retries,
            backoff_s=cfg.backoff_s,
            max_response_bytes=limit,
            transport=transport,
        )

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def complete(
        self, messages: Sequence[Message], *, max_tokens: int, budget: Budget | None = None
    ) -> ChatAnswer:
        """One chat completion (with retries). Raises BudgetExhausted before sending when
        `budget` is spent, LLMError when the call fails or answers something unusable."""
        if budget is not None:
            budget.admit()
        body: dict[str, object] = {
            "model": self.model,
            "messages": list(messages),
            "max_tokens": max_tokens,
            "temperature": 0,
        }
        answer = _answer(self._post_with_retries(body), messages)
        if budget is not None:
            budget.charge(answer.total_tokens)
        return answer

    def _post_with_retries(self, body: dict[str, object]) -> bytes:
        attempt = 0
        while True:
            try:
                status, raw, retry_after = self._post(body)
            except httpx.TimeoutException as exc:
                if attempt >= self.max_retries:
                    raise LLMError("timeout", f"LLM endpoint timed out: {exc!r}") from exc
                delay = self._delay(attempt, None)
            except httpx.TransportError as exc:
                if attempt >= self.max_retries:
                    raise LLMError("unreachable", f"LLM endpoint unreachable: {exc!r}") from exc
                delay = self._delay(attempt, None)
            else:
                if status < 400:
                    return raw
                if status not in RETRY_STATUSES or attempt >= self.max_retries:
                    text = raw[:300].decode("utf-8", "replace")
                    raise LLMError(f"http_{status}", f"LLM endpoint answered {status}: {text}")
                delay = self._delay(attempt, retry_after)
            log.warning("LLM call failed, retry %d in %.2f s", attempt + 1, delay)
            time.sleep(delay)
            attempt += 1

    def _post(self, body: dict[str, object]) -> tuple[int, bytes, str | None]:
        """One attempt: status, body (at most max_response_bytes) and Retry-After."""
        with self._client.stream("POST", "chat/completions", json=body) as response:
            deadline = time.monotonic() + self.timeout_s
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > self.max_response_bytes:
                    raise LLMError(
                        "oversized", f"LLM answer exceeds {self.max_response_bytes} bytes."
                    )
                if time.monotonic() > deadline:
                    raise httpx.ReadTimeout("the answer's body took too long")
                chunks.append(chunk)
            return response.status_code, b"".join(chunks), response.headers.get("Retry-After")

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        """Exponential backoff; a server's Retry-After (seconds or an HTTP date) wins
        when it is longer."""
        delay = self.backoff_s * 2.0**attempt
        wait = _retry_after_s(retry_after)
        if wait is not None:
            delay = max(delay, wait)
        return min(delay, MAX_BACKOFF_S)


def _retry_after_s(value: str | None) -> float | None:
    if not value:
        return None
    with contextlib.suppress(ValueError):
        return max(0.0, float(value))
    with contextlib.suppress(TypeError, ValueError, IndexError):
        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - time.time())
    return None


def _answer(raw: bytes, messages: Sequence[Message]) -> ChatAnswer:
    """The first choice's text and the tokens the call cost."""
    try:
        data = json.loads(raw)
        content = data["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise LLMError("bad_response", f"Unexpected /chat/completions answer: {exc!r}") from exc
    if content is None:  # a refusal or a tool call: no text
        content = ""
    if not isinstance(content, str):
        raise LLMError("bad_response", "The answer's message content is not text.")
    usage = data.get("usage") if isinstance(data, dict) else None
    total = usage.get("total_tokens") if isinstance(usage, dict) else None
    if not isinstance(total, int) or isinstance(total, bool) or total < 0:
        total = estimate_tokens(messages, content)
    return ChatAnswer(text=content, total_tokens=total)
