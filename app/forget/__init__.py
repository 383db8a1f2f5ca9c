"""Forgetting on request: POST /v1/forget (docs/memory-that-stays-true.md)."""
