"""Text that no store can hold, found before anything parses or stores it (pure).

PostgreSQL refuses U+0000 in text and jsonb, and an unpaired UTF-16 surrogate cannot be
encoded as UTF-8 by either store. SQLite would keep a NUL, so without this check the two
stores would answer the same request differently (201 here, 500 there). Refusing such text
at the edge, for every path, query, header and JSON body, gives one 422 on both.
"""

from __future__ import annotations

import json
import re
from typing import Any

# In valid UTF-8 JSON, a NUL or a surrogate can only arrive as a \u escape: only bodies
# containing one need a full parse. Deep nesting also needs one (the parser's recursion
# limit would otherwise surface as an undocumented 400).
_SUSPECT_ESCAPE = re.compile(rb"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})")
_SURROGATE = re.compile("[\ud800-\udfff]")
_MANY_BRACKETS = 256


def text_problem(text: str, where: str) -> str | None:
    """Why `text` cannot be stored, or None."""
    if "\x00" in text:
        return f"{where}: NUL characters (U+0000) are not accepted."
    if _SURROGATE.search(text):
        return f"{where}: unpaired UTF-16 surrogates are not accepted."
    return None


def body_problem(body: bytes) -> str | None:
    """Why a JSON request body cannot be accepted, or None (malformed JSON is left to the
    framework's own validation, which answers 422 with the position)."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"body: not valid UTF-8 (invalid byte at offset {exc.start})."
    brackets = body.count(b"[") + body.count(b"{")
    if brackets < _MANY_BRACKETS and not _SUSPECT_ESCAPE.search(body):
        return None
    try:
        value = json.loads(body)
    except RecursionError:
        return "body: JSON nested too deeply."
    except ValueError:
        return None
    return _value_problem(value)


def _value_problem(value: Any) -> str | None:
    """The first unstorable string among the keys and values of a parsed JSON document."""
    stack: list[tuple[Any, str]] = [(value, "body")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            problem = text_problem(item, where)
            if problem is not None:
                return problem
        elif isinstance(item, dict):
            for key, child in item.items():
                problem = text_problem(key, f"{where} (a key)")
                if problem is not None:
                    return problem
                stack.append((child, f"{where}.{key}"))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{i}]") for i, child in enumerate(item))
    return None
