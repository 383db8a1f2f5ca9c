"""A tiny in-process Prometheus registry (counters, histograms, gauges) and the text
exposition format 0.0.4. Enough for this service; no prometheus_client dependency."""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Sequence

LabelValues = tuple[str, ...]
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
DEFAULT_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(names: Sequence[str], values: Sequence[str], extra: str = "") -> str:
    parts = [f'{n}="{_escape(v)}"' for n, v in zip(names, values, strict=True)]
    if extra:
        parts.append(extra)
    return "{" + ",".join(parts) + "}" if parts else ""


def _number(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value)) if not float(value).is_integer() else str(int(value))


def gauge_lines(
    name: str,
    help_text: str,
    label_names: Sequence[str],
    samples: Iterable[tuple[LabelValues, float]],
) -> list[str]:
    """Exposition lines of a gauge whose values are computed at scrape time."""
    return sample_lines(name, help_text, "gauge", label_names, samples)


def sample_lines(
    name: str,
    help_text: str,
    kind: str,
    label_names: Sequence[str],
    samples: Iterable[tuple[LabelValues, float]],
) -> list[str]:
    """Exposition lines of a metric of `kind` (gauge, counter) read at scrape time."""
    lines = [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]
    lines += [f"{name}{_labels(label_names, lv)} {_number(v)}" for lv, v in samples]
    return lines


class Counter:
    def __init__(self, name: str, help_text: str, labels: Sequence[str] = ()) -> None:
        self.name, self.help, self.label_names = name, help_text, tuple(labels)
        self._values: dict[LabelValues, float] = {}
        self._lock = threading.Lock()

    def inc(self, *labels: str, amount: float = 1.0) -> None:
        with self._lock:
            self._values[labels] = self._values.get(labels, 0.0) + amount

    def value(self, *labels: str) -> float:
        return self._values.get(labels, 0.0)

    def lines(self) -> list[str]:
        with self._lock:
            items = sorted(self._values.items())
        out = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} counter"]
        out += [f"{self.name}{_labels(self.label_names, lv)} {_number(v)}" for lv, v in items]
        return out


class Histogram:
    def __init__(
        self,
        name: str,
        help_text: str,
        labels: Sequence[str] = (),
        buckets: Sequence[float] = DEFAULT_BUCKETS,
    ) -> None:
        self.name, self.help, self.label_names = name, help_text, tuple(labels)
        self.buckets = tuple(sorted(buckets))
        # per label set: cumulative-free bucket counts, then sum and count
        self._data: dict[LabelValues, tuple[list[int], float, int]] = {}
        self._lock = threading.Lock()

    def observe(self, value: float, *labels: str) -> None:
        with self._lock:
            counts, total, n = self._data.get(labels, ([0] * len(self.buckets), 0.0, 0))
            for i, bound in enumerate(self.buckets):
                if value <= bound:
                    counts[i] += 1
                    break
            self._data[labels] = (counts, total + value, n + 1)

    def count(self, *labels: str) -> int:
        return self._data.get(labels, ([], 0.0, 0))[2]

    def lines(self) -> list[str]:
        with self._lock:
            items = sorted((lv, (list(c), s, n)) for lv, (c, s, n) in self._data.items())
        out = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} histogram"]
        for lv, (counts, total, n) in items:
            running = 0
            for bound, c in zip(self.buckets, counts, strict=True):
                running += c
                le = _labels(self.label_names, lv, f'le="{_number(bound)}"')
                out.append(f"{self.name}_bucket{le} {running}")
            le = _labels(self.label_names, lv, 'le="+Inf"')
            out.append(f"{self.name}_bucket{le} {n}")
            out.append(f"{self.name}_sum{_labels(self.label_names, lv)} {_number(total)}")
            out.append(f"{self.name}_count{_labels(self.label_names, lv)} {n}")
        return out


HTTP_REQUESTS = Counter(
    "membrane_http_requests_total",
    "HTTP requests by method, route and status.",
    ("method", "route", "status"),
)
HTTP_LATENCY = Histogram(
    "membrane_http_request_duration_seconds",
    "HTTP request latency by method, route and status.",
    ("method", "route", "status"),
)
JOB_RUNS = Counter(
    "membrane_job_runs_total", "Background job runs by job and outcome.", ("job", "status")
)
JOB_DURATION = Histogram(
    "membrane_job_duration_seconds",
    "Background job run duration.",
    ("job",),
    buckets=(0.1, 0.5, 1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 900.0, 3600.0),
)
PROCESS_METRICS: tuple[Counter | Histogram, ...] = (
    HTTP_REQUESTS,
    HTTP_LATENCY,
    JOB_RUNS,
    JOB_DURATION,
)


def render_process_metrics() -> list[str]:
    lines: list[str] = []
    for metric in PROCESS_METRICS:
        lines += metric.lines()
    return lines
