"""Backups of a store and their checks: `membrane backup`, `membrane restore` and
`membrane verify` (SQLite: the online backup API; PostgreSQL: pg_dump / pg_restore)."""
