"""/ui: the memory browser, a static single page (HTML, vanilla JS, CSS) shipped in
app/ui/static. It calls the REST API from the browser with the key the user signs in with,
so it shows exactly what that key may see; nothing here reads the database.

Every answer carries a strict Content-Security-Policy (scripts and styles from this origin
only, no inline code, requests only to this origin), and none of these routes is in the
OpenAPI document."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, RedirectResponse, Response

from app.errors import NotFound

STATIC = Path(__file__).resolve().parent / "static"
CSP = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-cache",
}
MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}
# The files the page is made of: nothing else under /ui is served.
ASSETS = {
    path.name: path
    for path in sorted(STATIC.iterdir())
    if path.is_file() and path.suffix in MEDIA_TYPES
}

router = APIRouter(include_in_schema=False)


@router.get("/ui")
def ui_root() -> RedirectResponse:
    """To /ui/, so the page's relative URLs (assets, ../v1/…) resolve under any prefix."""
    return RedirectResponse("ui/", status_code=308, headers=HEADERS)


@router.get("/ui/")
def ui_index() -> Response:
    return _file("index.html")


@router.get("/ui/{name}")
def ui_asset(name: str) -> Response:
    return _file(name)


def _file(name: str) -> Response:
    path = ASSETS.get(name)
    if path is None:
        raise NotFound(f"No file {name!r} in the memory browser.")
    return FileResponse(path, media_type=MEDIA_TYPES[path.suffix], headers=HEADERS)
