#!/usr/bin/env python
"""The image's HEALTHCHECK. In a container that serves the API (`python -m app.serve`
runs in it) the check is `GET /healthz` on the loopback, over HTTPS when the server has
a certificate (MEMBRANE_TLS__CERT_FILE; not verified: it names the service, not the
loopback). A worker or migration container has no HTTP endpoint, so its process being
alive (the container stops when it exits) is all there is to check, and the check
passes. Exit 0: healthy, 1: not."""

from __future__ import annotations

import itertools
import os
import ssl
import sys
import urllib.request
from pathlib import Path


def serves_api() -> bool:
    """Whether a `python -m app.serve` process runs in this container (its PID space)."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:  # the process ended while we looked
            continue
        if any(a == b"-m" and b == b"app.serve" for a, b in itertools.pairwise(argv)):
            return True
    return False


def main() -> int:
    if not serves_api():
        return 0
    port = os.environ.get("MEMBRANE_PORT", "8080")
    context = None
    scheme = "http"
    if os.environ.get("MEMBRANE_TLS__CERT_FILE"):
        scheme, context = "https", ssl._create_unverified_context()
    url = f"{scheme}://127.0.0.1:{port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=3, context=context) as answer:
            ok = bool(answer.status == 200)
    except OSError as exc:
        print(f"{url}: {exc}", file=sys.stderr)
        return 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
