"""The HTTP-facing sections of the settings (app/config.py): CORS and TLS."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field, field_validator, model_validator

# A browser's Origin: scheme://host[:port], no path and no trailing slash (one would never
# match), or "*" for any origin.
_ORIGIN = re.compile(r"^(\*|https?://[^/\s?#]+)$")


class CorsSettings(BaseModel):
    """Cross-origin requests from browsers. No allowed origins (the default): the service
    sends no CORS headers at all and browsers keep other origins out. Keys travel in the
    Authorization header, never in cookies, so credentials mode is not needed."""

    allow_origins: list[str] = Field(default_factory=list)
    allow_methods: list[str] = Field(default_factory=lambda: ["GET", "POST", "DELETE"])
    allow_headers: list[str] = Field(
        default_factory=lambda: [
            "Authorization",
            "Content-Type",
            "Idempotency-Key",
            "X-Request-ID",
            "X-Membrane-Max-Sensitivity",
            "X-Membrane-Scopes",
            "Membrane-Consistency-Token",
        ]
    )
    expose_headers: list[str] = Field(
        default_factory=lambda: [
            "X-Request-ID",
            "Retry-After",
            "Idempotent-Replayed",
            "Membrane-Consistency-Token",
        ]
    )
    max_age_s: int = Field(default=600, ge=0, le=86400)  # how long a preflight is cached

    @field_validator("allow_origins")
    @classmethod
    def _origins(cls, origins: list[str]) -> list[str]:
        for origin in origins:
            if not _ORIGIN.match(origin):
                raise ValueError(
                    f"{origin!r} is not an origin: scheme://host[:port] without a path or "
                    "trailing slash, or *"
                )
        return origins


class TlsSettings(BaseModel):
    """HTTPS served by uvicorn itself (`python -m app.serve`): PEM certificate chain and
    private key, both or neither. Neither: plain HTTP (TLS ends at a gateway)."""

    cert_file: str = ""
    key_file: str = ""

    @model_validator(mode="after")
    def _both_or_neither(self) -> TlsSettings:
        if bool(self.cert_file) != bool(self.key_file):
            raise ValueError(
                "MEMBRANE_TLS__CERT_FILE and MEMBRANE_TLS__KEY_FILE go together: set both or "
                "neither"
            )
        return self

    @property
    def enabled(self) -> bool:
        return bool(self.cert_file)
