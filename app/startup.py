"""What `python -m app.serve` and `python -m app.worker` check before anything starts:
settings that parse, TLS files that load. A problem stops the process with one line on
stderr (exit status 1), not a traceback."""

from __future__ import annotations

import ssl

from pydantic import ValidationError
from pydantic_settings import SettingsError

from app.config import Settings, get_settings
from app.config_http import TlsSettings
from app.db import open_problem


def settings_or_exit() -> Settings:
    try:
        return get_settings()
    except ValidationError as exc:
        raise SystemExit(f"membrane: invalid settings: {settings_problem(exc)}") from None
    except SettingsError as exc:  # a value that is not the JSON its setting needs
        raise SystemExit(f"membrane: invalid settings: {exc} (expected JSON)") from None


def settings_problem(exc: ValidationError) -> str:
    """Every error of `exc` on one line: `MEMBRANE_A__B: message; …`."""
    parts = []
    for error in exc.errors():
        message = str(error["msg"]).removeprefix("Value error, ")
        # A rule across settings (a model validator) names its variables itself.
        parts.append(f"{_variable(error['loc'])}: {message}" if error["loc"] else message)
    return "; ".join(parts)


def _variable(loc: tuple[int | str, ...]) -> str:
    """The environment variable of a setting, then the place inside its JSON value:
    ("cors", "allow_origins") → MEMBRANE_CORS__ALLOW_ORIGINS, ("api_keys", 0, "roles") →
    MEMBRANE_API_KEYS[0].roles."""
    names: list[str] = []
    for i, part in enumerate(loc):
        if not isinstance(part, str):
            inside = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc[i:])
            return "MEMBRANE_" + "__".join(names).upper() + inside
        names.append(part)
    return "MEMBRANE_" + "__".join(names).upper()


def exit_if_database_unopenable(settings: Settings) -> None:
    problem = open_problem(settings.database_url, settings.database)
    if problem is not None:
        raise SystemExit(f"membrane: {problem}")


def tls_problem(tls: TlsSettings) -> str | None:
    """Why the configured certificate and key cannot serve TLS, or None (also when TLS is
    off)."""
    if not tls.enabled:
        return None
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(
            tls.cert_file, tls.key_file
        )
    except (OSError, ssl.SSLError) as exc:
        return (
            f"TLS certificate {tls.cert_file!r} with key {tls.key_file!r} cannot be loaded: "
            f"{exc.strerror or exc}"
        )
    return None


def exit_if_tls_unusable(tls: TlsSettings) -> None:
    problem = tls_problem(tls)
    if problem is not None:
        raise SystemExit(f"membrane: {problem}")
