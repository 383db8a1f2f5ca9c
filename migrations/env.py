"""Alembic environment: the URL comes from settings, or from config.attributes
("connection" for an open connection, "url" for an explicit URL) when called from code.

app.migrate passes the connection that holds the migration lock. Run by the `alembic`
command line instead, this opens its own connection and takes the same lock on it, so
migrations never race whatever starts them (app/migrate.py)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from app.config import get_settings
from app.db import make_engine
from app.migrate import migration_lock
from app.models import Base

config = context.config
target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    settings = get_settings()
    url = config.attributes.get("url") or settings.database_url
    engine = make_engine(url, settings.database)  # keyed when MEMBRANE_ENCRYPTION_KEY is set
    try:
        with migration_lock(engine) as conn:
            _run(conn)
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise SystemExit("Offline (SQL script) migrations are not supported; run against a database.")
run_online()
