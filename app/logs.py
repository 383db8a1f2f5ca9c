"""Log lines: JSON (one object a line, for log collectors) or text (for a terminal; `auto`,
the default, picks text when stderr is a terminal and JSON otherwise), the
request id of the request being served on every line, and one configuration for
`python -m app.serve` (handed to uvicorn as its log_config), `python -m app.worker` and
uvicorn's own loggers. Standard library only."""

from __future__ import annotations

import json
import logging
import logging.config
import sys
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Literal

LogFormat = Literal["json", "text"]
LogFormatSetting = Literal["auto", "json", "text"]

# The id of the request this code runs for. Set by the request middleware in the request's
# own task (every ASGI request runs in a task of its own, so the value never leaks into
# another request); copied into the threads that serve sync endpoints.
_request_id: ContextVar[str | None] = ContextVar("membrane_request_id", default=None)

# Fields a line carries when the code that logs it passes them in `extra=`.
EXTRA_FIELDS = ("principal", "method", "route", "path", "status", "latency_ms")
# The access line's message says these already ("GET /v1/records 200"): text omits them.
_IN_ACCESS_MESSAGE = frozenset({"method", "path", "status"})
# Loggers that log at the configured level (everything else: warnings and up).
OWN_LOGGERS = ("membrane", "uvicorn", "uvicorn.error")


def bind_request_id(request_id: str) -> None:
    _request_id.set(request_id)


def current_request_id() -> str | None:
    return _request_id.get()


class RequestIdFilter(logging.Filter):
    """Stamps the current request id on each record, in the thread and context that logs
    it (a handler's filter runs there, before any formatting)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = _request_id.get()
        return True


def rfc3339(created: float) -> str:
    """UTC, millisecond precision, `Z` suffix: 2025-01-31T12:00:00.123Z."""
    stamp = datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")
    return stamp.removesuffix("+00:00") + "Z"


def _fields(record: logging.LogRecord) -> dict[str, object]:
    out: dict[str, object] = {}
    request_id = getattr(record, "request_id", None)
    if request_id is not None:
        out["request_id"] = request_id
    for name in EXTRA_FIELDS:
        if hasattr(record, name):
            out[name] = getattr(record, name)
    return out


class JsonFormatter(logging.Formatter):
    """timestamp, level, logger, message, then request_id and the request fields when
    present, then the traceback as `exception`. Always one line."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "timestamp": rfc3339(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            **_fields(record),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, default=str)


class TextFormatter(logging.Formatter):
    """`timestamp LEVEL logger [request_id] message key=value …`, for a terminal."""

    def format(self, record: logging.LogRecord) -> str:
        fields = _fields(record)
        request_id = fields.pop("request_id", None)
        parts = [rfc3339(record.created), record.levelname, record.name]
        if request_id is not None:
            parts.append(f"[{request_id}]")
        # One record, one line: a newline in a message (a decoded path, say) is escaped.
        parts.append(record.getMessage().replace("\r", "\\r").replace("\n", "\\n"))
        parts.extend(f"{k}={v}" for k, v in fields.items() if k not in _IN_ACCESS_MESSAGE)
        text = " ".join(parts)
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        if record.stack_info:
            text += "\n" + self.formatStack(record.stack_info)
        return text


def resolved(log_format: LogFormatSetting) -> LogFormat:
    """`auto`: text for a person at a terminal, JSON for whatever reads a pipe or a file (a
    container's log collector, systemd's journal)."""
    if log_format != "auto":
        return log_format
    return "text" if sys.stderr.isatty() else "json"


def logging_config(log_format: LogFormatSetting, level: str) -> dict[str, object]:
    """A `logging.config.dictConfig` document: every line to stderr in `log_format`. The
    service's loggers (`membrane.*`) and uvicorn's log at `level`; other libraries only
    from warnings up (or at debug when `level` is debug). uvicorn's access logger is left
    without a handler: the app writes its own access line (app/request_context.py)."""
    level = level.upper()
    formatter = JsonFormatter if resolved(log_format) == "json" else TextFormatter
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": RequestIdFilter}},
        "formatters": {"membrane": {"()": formatter}},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
                "formatter": "membrane",
                "filters": ["request_id"],
            }
        },
        "root": {"level": "DEBUG" if level == "DEBUG" else "WARNING", "handlers": ["stderr"]},
        "loggers": {
            **{name: {"level": level, "propagate": True} for name in OWN_LOGGERS},
            "uvicorn.access": {"level": "WARNING", "handlers": [], "propagate": False},
        },
    }


def configure(log_format: LogFormatSetting, level: str) -> None:
    logging.config.dictConfig(logging_config(log_format, level))
