"""`python -m app.migrate [upgrade|downgrade] [REV]`: apply migrations to the configured DB."""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import command
from alembic.config import Config

ROOT = Path(__file__).resolve().parents[1]


def alembic_config(url: str | None = None) -> Config:
    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(ROOT / "migrations"))
    if url is not None:
        cfg.attributes["url"] = url
    return cfg


def upgrade(url: str | None = None, revision: str = "head") -> None:
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str | None = None, revision: str = "base") -> None:
    command.downgrade(alembic_config(url), revision)


def main(argv: list[str]) -> None:
    action = argv[0] if argv else "upgrade"
    if action == "upgrade":
        upgrade(revision=argv[1] if len(argv) > 1 else "head")
    elif action == "downgrade":
        downgrade(revision=argv[1] if len(argv) > 1 else "base")
    else:
        raise SystemExit(f"unknown action {action!r}: use upgrade or downgrade")


if __name__ == "__main__":
    main(sys.argv[1:])
