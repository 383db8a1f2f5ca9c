"""Placeholder router: filled in by its issue."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter()
