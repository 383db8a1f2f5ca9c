"""The startup heap is frozen while the service runs (full collections skip it) and handed
back to the collector when the application stops."""

from __future__ import annotations

import gc
from pathlib import Path

from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import auth, make_settings


def test_running_app_freezes_its_startup_heap_and_releases_it_on_shutdown(
    sqlite_template: Path, tmp_path: Path
) -> None:
    target = tmp_path / "membrane.db"
    target.write_bytes(sqlite_template.read_bytes())
    gc.unfreeze()
    with TestClient(create_app(make_settings(f"sqlite:///{target}"))) as client:
        frozen = gc.get_freeze_count()
        assert frozen > 10_000  # the application's modules, models and routes
        r = client.post(
            "/v1/capture",
            json={"source": "t", "source_kind": "event", "summary": "after the freeze"},
            headers=auth("writer"),
        )
        assert r.status_code == 201
        gc.collect()  # a full collection leaves the frozen heap alone
        assert gc.get_freeze_count() > frozen // 2  # (some of it freed by refcount since)
    assert gc.get_freeze_count() == 0
