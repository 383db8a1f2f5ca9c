"""How often one request's call path enters a service module, and how many repository
calls it makes (issue 28's count): an in-process app on a fresh SQLite store, a profiler
hook in every thread, one request of each kind after a warm-up.

An *entry* is a call into a function of the module from code outside it (a router, a
dependency, another domain's service); calls between the module's own functions are not
entries. A *repository call* is a call into any `*repository` module from outside it.

    python bench/service_entries.py
"""

from __future__ import annotations

import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.migrate import upgrade

APP_DIR = str(Path(__file__).resolve().parents[1] / "app")
WATCHED = {"retrieve": "retrieve/service.py", "capture": "capture/service.py"}


class CallCounter:
    """A profiler hook, installed in every thread before the app starts (a thread's hook
    is set when it starts) and counting only while `active`."""

    def __init__(self) -> None:
        self.active = False
        self.entries: Counter[str] = Counter()
        self.repository_calls: Counter[str] = Counter()

    def __call__(self, frame: FrameType, event: str, _arg: Any) -> None:
        if not self.active or event != "call" or frame.f_back is None:
            return
        callee = frame.f_code.co_filename
        caller = frame.f_back.f_code.co_filename
        if callee == caller or not callee.startswith(APP_DIR):
            return
        relative = callee[len(APP_DIR) + 1 :]
        if relative in WATCHED.values():
            self.entries[relative] += 1
        if relative.endswith("repository.py"):
            self.repository_calls[f"{relative}:{frame.f_code.co_name}"] += 1


HOOK = CallCounter()


def counted(request: Callable[[], Any]) -> tuple[Counter[str], Counter[str]]:
    HOOK.entries.clear()
    HOOK.repository_calls.clear()
    HOOK.active = True
    try:
        request()
    finally:
        HOOK.active = False
    return Counter(HOOK.entries), Counter(HOOK.repository_calls)


def capture_of(text: str) -> dict[str, object]:
    return {"source": "bench", "source_kind": "event", "scope": "s", "content": text}


def main() -> None:
    folder = tempfile.mkdtemp(prefix="membrane-entries-")
    url = f"sqlite:///{folder}/membrane.db"
    upgrade(url)
    settings = Settings(
        _env_file=None,
        database_url=url,
        scheduler={"enabled": False},
        embedding={"provider": "none", "worker_enabled": False},
    )
    threading.setprofile(HOOK)
    sys.setprofile(HOOK)
    with TestClient(create_app(settings)) as client:
        for i in range(20):
            body = capture_of(f"Caroline met Mel at the lake, visit {i}.")
            client.post("/v1/capture", json=body).raise_for_status()
        capture = capture_of("Mel painted a sunrise over the lake.")
        retrieve = {"query": "who painted the lake", "scopes": ["s"], "limit": 10}
        for _ in range(3):  # warm caches and lazy imports
            client.post("/v1/capture", json=capture).raise_for_status()
            client.post("/v1/retrieve", json=retrieve).raise_for_status()
        runs = {
            "capture": counted(lambda: client.post("/v1/capture", json=capture)),
            "retrieve": counted(lambda: client.post("/v1/retrieve", json=retrieve)),
        }
    sys.setprofile(None)
    for name, (entries, repository_calls) in runs.items():
        module = WATCHED[name]
        print(f"{name}: enters app/{module} {entries[module]} times; ", end="")
        print(f"{sum(repository_calls.values())} repository calls")
        for call, n in sorted(repository_calls.items()):
            print(f"    {n} x {call}")


if __name__ == "__main__":
    main()
