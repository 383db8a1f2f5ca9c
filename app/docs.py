"""/docs (Swagger UI) and /redoc (ReDoc) with no CDN: their scripts, styles and icon are
served from the installed `fastapi-standalone-docs` package (Swagger UI 5 and ReDoc 2
builds; only its static files are used, none of its code), under /docs-assets.

FastAPI's own pages load these from a CDN and render blank offline, so the app is built
with `docs_url=None, redoc_url=None` and `install` serves the same pages from here. The
ReDoc page leaves out the Google fonts FastAPI adds (system fonts instead)."""

from __future__ import annotations

import logging
from importlib.util import find_spec
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

log = logging.getLogger("membrane.docs")

ASSETS_PACKAGE = "fastapi_standalone_docs"
ASSETS_URL = "/docs-assets"
SWAGGER_JS = "swagger/swagger-ui-bundle.js"
SWAGGER_CSS = "swagger/swagger-ui.css"
REDOC_JS = "redoc/redoc.standalone.js"
FAVICON = "fastapi/favicon.png"


def assets_dir() -> Path | None:
    """The installed package's static folder, if it holds every asset the pages use."""
    spec = find_spec(ASSETS_PACKAGE)
    if spec is None or spec.origin is None:
        return None
    static = Path(spec.origin).parent / "static"
    needed = (SWAGGER_JS, SWAGGER_CSS, REDOC_JS, FAVICON)
    return static if all((static / name).is_file() for name in needed) else None


def install(app: FastAPI) -> None:
    """Serve /docs, /redoc and their assets (none of them in the OpenAPI document)."""
    static = assets_dir()
    if static is None or app.openapi_url is None:
        log.warning("API docs off: the %s package (its static assets) is missing", ASSETS_PACKAGE)
        return
    app.mount(ASSETS_URL, StaticFiles(directory=static), name="docs-assets")
    openapi_url = app.openapi_url

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = _root_path(request)
        return get_swagger_ui_html(
            openapi_url=root + openapi_url,
            title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{root}{ASSETS_URL}/{SWAGGER_JS}",
            swagger_css_url=f"{root}{ASSETS_URL}/{SWAGGER_CSS}",
            swagger_favicon_url=f"{root}{ASSETS_URL}/{FAVICON}",
        )

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = _root_path(request)
        return get_redoc_html(
            openapi_url=root + openapi_url,
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{root}{ASSETS_URL}/{REDOC_JS}",
            redoc_favicon_url=f"{root}{ASSETS_URL}/{FAVICON}",
            with_google_fonts=False,
        )


def _root_path(request: Request) -> str:
    return str(request.scope.get("root_path", "")).rstrip("/")
