"""SQLite encrypted at rest with SQLCipher (MEMBRANE_ENCRYPTION_KEY).

With a key, every SQLite connection is opened by SQLCipher's driver (the `sqlcipher3`
package, `pip install 'membrane[encryption]'`) and keyed before its first statement, so the
database file, its WAL and its shared-memory index hold only ciphertext. Without a usable
SQLCipher the service refuses to open the database rather than write plain data.

A key is a passphrase (SQLCipher derives the page key with PBKDF2, about 0.15 s per new
connection), or `raw:` followed by 64 hex digits, a 256-bit key used as it is."""

from __future__ import annotations

import importlib
import re
from types import ModuleType
from typing import Any

RAW_KEY = re.compile(r"^raw:([0-9a-fA-F]{64})$")


class EncryptionError(RuntimeError):
    """The database cannot be opened as configured; the message is for the operator."""


def sqlcipher_dbapi() -> ModuleType:
    """SQLCipher's DB-API module, or EncryptionError when it cannot be loaded."""
    try:
        return importlib.import_module("sqlcipher3.dbapi2")
    except ImportError as exc:
        raise EncryptionError(
            "MEMBRANE_ENCRYPTION_KEY is set but SQLCipher is not usable "
            f"({exc}); install it with `pip install 'membrane[encryption]'` "
            "(refusing to write an unencrypted database)"
        ) from None


def key_pragma(key: str) -> str:
    """The PRAGMA that keys a connection: a raw key as a blob literal, a passphrase as a
    string literal (quotes doubled, so any passphrase is one literal)."""
    raw = RAW_KEY.match(key)
    if raw is not None:
        return f"PRAGMA key = \"x'{raw.group(1)}'\""
    return "PRAGMA key = '" + key.replace("'", "''") + "'"


def apply_key(dbapi_conn: Any, key: str) -> None:
    """Key a fresh connection and prove the key opens the file: SQLCipher only notices a
    wrong key when it first reads a page."""
    cur = dbapi_conn.cursor()
    try:
        cur.execute("PRAGMA cipher_log_level = NONE")  # our message says it; no stderr noise
        cur.execute(key_pragma(key))
        try:
            cur.execute("SELECT count(*) FROM sqlite_master").fetchall()
        except Exception as exc:  # the driver's DatabaseError: "file is not a database"
            raise EncryptionError(
                "the SQLite database cannot be opened with MEMBRANE_ENCRYPTION_KEY: the key "
                "is wrong, or the file is not an encrypted Membrane database "
                f"({exc})"
            ) from None
    finally:
        cur.close()


def plain_file_problem(exc: BaseException) -> str:
    """What to tell the operator when a plain connection cannot read the file."""
    return (
        "the SQLite database cannot be read without a key: it is encrypted (set "
        f"MEMBRANE_ENCRYPTION_KEY) or not a SQLite database ({exc})"
    )
