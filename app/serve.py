"""`python -m app.serve`: run the API with the configured host, port and worker count."""

from __future__ import annotations

import logging
import signal
import sys

import uvicorn

from app import logs
from app.config import Settings
from app.migrate import prepare_schema
from app.startup import exit_if_database_unopenable, exit_if_tls_unusable, settings_or_exit

log = logging.getLogger("membrane.serve")


def main() -> None:
    settings = settings_or_exit()
    logs.configure(settings.log_format, settings.log_level)
    exit_if_tls_unusable(settings.tls)
    exit_if_database_unopenable(settings)
    host = settings.listen_host()
    if host != settings.host:
        log.warning(
            "no API keys configured: open mode binds to %s only (asked: %s)", host, settings.host
        )
    if settings.workers > 1 and settings.database_url.startswith("sqlite"):
        log.warning(
            "%d workers on SQLite: writes from all of them share one lock", settings.workers
        )
    prepare_schema(settings)  # migrate under the lock, or refuse a schema behind the code
    # uvicorn re-raises SIGTERM once it has drained; a drained stop exits 0 instead.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    uvicorn.run(
        "app.main:app",
        host=host,
        port=settings.port,
        workers=settings.workers,
        log_level=settings.log_level,
        log_config=logs.logging_config(settings.log_format, settings.log_level),
        access_log=False,  # the app writes one access line per request (app/request_context.py)
        ssl_certfile=settings.tls.cert_file or None,
        ssl_keyfile=settings.tls.key_file or None,
        timeout_graceful_shutdown=settings.shutdown_grace_s,
        timeout_keep_alive=settings.keep_alive_s,
        proxy_headers=bool(settings.trusted_proxies),
        forwarded_allow_ips=forwarded_allow_ips(settings),
    )


def forwarded_allow_ips(settings: Settings) -> str | None:
    """Whom uvicorn believes X-Forwarded-For from: the configured proxies only; with none,
    proxy headers are off (uvicorn's own default believes any client on 127.0.0.1)."""
    return ",".join(settings.trusted_proxies) or None


if __name__ == "__main__":
    main()
