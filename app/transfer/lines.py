"""Reading an export file line by line, and the checks a line passes on its own.

A line is refused when it is not UTF-8, holds text no store can hold, is not one JSON
object, names no known `kind`, or breaks its kind's schema. The checks that need other
lines or the database (duplicates, references, trust, counts) are app/transfer/service.py's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import IO, Any

from pydantic import BaseModel, ValidationError

from app.text_guard import body_problem
from app.transfer.schemas import LINE

MAX_LINE_BYTES = 16 * 1024 * 1024  # one record: its 10 MiB body limit, plus its columns
KINDS = ("header", "record", "relation", "provenance", "entity_term", "audit", "embedding", "end")


@dataclass(frozen=True)
class BadLine:
    line: int
    msg: str
    type: str


def numbered_lines(source: IO[bytes]) -> Iterator[tuple[int, bytes | None]]:
    """(line number, bytes) for every non-blank line; None for a line over the limit
    (read past without keeping it)."""
    number = 0
    while True:
        raw = source.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):
                raw = source.readline(MAX_LINE_BYTES)
            yield number, None
            continue
        if raw.strip():
            yield number, raw


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_line(number: int, raw: bytes | None) -> BaseModel | BadLine:
    """The line as its kind's model, or why it is refused."""
    if raw is None:
        return BadLine(number, f"line longer than {MAX_LINE_BYTES} bytes", "too_long")
    problem = body_problem(raw)
    if problem is not None:
        return BadLine(number, problem.replace("body", "line", 1), "unstorable_text")
    try:
        value = json.loads(raw, parse_constant=_no_constants)
    except (ValueError, RecursionError) as exc:
        return BadLine(number, f"invalid JSON: {exc}", "json_invalid")
    if not isinstance(value, dict):
        return BadLine(number, "a line must be a JSON object", "not_an_object")
    kind = value.get("kind")
    if kind not in KINDS:
        known = ", ".join(KINDS)
        return BadLine(number, f"unknown kind {kind!r} (known: {known})", "unknown_kind")
    try:
        model: BaseModel = LINE.validate_python(value)
    except ValidationError as exc:
        return BadLine(number, first_error(exc), "schema_violation")
    return model


def first_error(exc: ValidationError) -> str:
    """The first three errors of a tagged union's validation, each with where it is."""
    errors = exc.errors()
    messages = []
    for err in errors[:3]:
        where = ".".join(str(p) for p in err.get("loc", ())[1:])  # [0] is the union tag
        messages.append(f"{where}: {err.get('msg', '')}" if where else str(err.get("msg", "")))
    more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
    return "; ".join(messages) + more


def dump(line: Mapping[str, object]) -> bytes:
    """One line of the file: compact JSON, `kind` first, newline-terminated."""
    return json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
