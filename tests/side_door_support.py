"""Principals of the side-door probe (issue 36): keys of different ceilings and scopes,
and two keys sharing one actor id."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from app.config import ApiPrincipal
from tests.conftest import KeySpec, make_settings, principals

RW = ["read", "write"]
# name: (key, actor, ceiling, scopes, roles)
SIDE_KEYS: dict[str, KeySpec] = {
    "low_a": ("low-a-key", "low-a", "low", ["project:a"], RW),
    "medium_b": ("medium-b-key", "medium-b", "medium", ["project:b"], RW),
    "scoped_admin": ("scoped-admin-key", "scoped-admin", "low", ["project:a"], [*RW, "admin"]),
    "twin_hyper": ("twin-hyper-key", "twin", "hyper", [], RW),
    "twin_low": ("twin-low-key", "twin", "low", [], RW),
}


def side_principals() -> list[ApiPrincipal]:
    return principals(SIDE_KEYS)


def side_auth(name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {SIDE_KEYS[name][0]}"}


def side_client(
    db_url: str, make_client: Callable[..., TestClient], **overrides: Any
) -> TestClient:
    settings = make_settings(db_url, api_keys=principals() + side_principals(), **overrides)
    return make_client(settings)
