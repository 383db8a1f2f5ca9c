"""`python -m app.serve`: run the API with the configured host, port and worker count."""

from __future__ import annotations

import logging

import uvicorn

from app.config import get_settings

log = logging.getLogger("membrane.serve")


def main() -> None:
    settings = get_settings()
    host = settings.host
    if settings.open_mode and host not in ("127.0.0.1", "localhost", "::1"):
        log.warning("no API keys configured: open mode binds to 127.0.0.1 only (asked: %s)", host)
        host = "127.0.0.1"
    if settings.workers > 1 and settings.database_url.startswith("sqlite"):
        log.warning(
            "%d workers on SQLite: writes from all of them share one lock", settings.workers
        )
    uvicorn.run(
        "app.main:app",
        host=host,
        port=settings.port,
        workers=settings.workers,
        log_level=settings.log_level,
    )


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    main()
