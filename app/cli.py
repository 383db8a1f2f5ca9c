"""`membrane`: one command for everything Membrane runs (the console script of the package).

    membrane serve                  the API (as `python -m app.serve`)
    membrane worker                 embedding, consolidation and scheduled jobs
    membrane migrate [upgrade|downgrade] [REV]
    membrane mcp --url URL          an MCP server on stdio, talking to a Membrane
    membrane export --url URL -o F  NDJSON of a store (admin key)
    membrane import F --url URL     load an export; a second import changes nothing
    membrane forget --scope S …     delete what a scope (types, tags, entity) remembers
    membrane keys create …          a new API key and the MEMBRANE_API_KEYS holding it
    membrane backup PATH            a consistent copy of the configured store, verified
    membrane restore PATH           a backup back into the configured store
    membrane verify PATH|URL        a backup's (or a database's) integrity, schema, counts

Settings come from the environment and `.env` as for the service; the client commands
(mcp, export, import) take `--url` / `--api-key` or MEMBRANE_URL / MEMBRANE_API_KEY."""

from __future__ import annotations

import argparse
import json
import logging
import os
import secrets
import shlex
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from app.backup.cli import add_backup_commands
from app.enums import Sensitivity
from app.security import hash_key

DEFAULT_URL = "http://127.0.0.1:8080"
DEFAULT_CEILING = Sensitivity.low.value
KEY_HINT = (
    "membrane: the key goes in --api-key or the variable MEMBRANE_API_KEY ({given}); the "
    "service must list its SHA-256 in MEMBRANE_API_KEYS (membrane keys create makes both)"
)


def main(argv: Sequence[str] | None = None) -> None:
    parser = _parser()
    args, rest = parser.parse_known_args(argv)
    if args.command != "mcp" and rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    handler: Callable[[argparse.Namespace, list[str]], None] = args.handler
    handler(args, rest)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="membrane", description="Membrane: memory for AI agents.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve = commands.add_parser(
        "serve", aliases=["api"], help="serve the API (settings from the environment)"
    )
    serve.set_defaults(handler=_serve)
    worker = commands.add_parser("worker", help="run embedding, consolidation and jobs")
    worker.set_defaults(handler=_worker)
    migrate = commands.add_parser("migrate", help="migrate the database (under a lock)")
    migrate.add_argument("action", nargs="?", default="upgrade", choices=["upgrade", "downgrade"])
    migrate.add_argument("revision", nargs="?", help="target revision (head / base by default)")
    migrate.set_defaults(handler=_migrate)
    mcp = commands.add_parser(
        "mcp",
        help="an MCP server on stdio for a Membrane at --url",
        description="An MCP server on stdio; `membrane mcp --help` lists its options.",
        add_help=False,
    )
    mcp.set_defaults(handler=_mcp)
    _add_export(commands)
    _add_import(commands)
    _add_forget(commands)
    _add_keys(commands)
    add_backup_commands(commands)
    return parser


def _client_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--url",
        default=os.environ.get("MEMBRANE_URL", DEFAULT_URL),
        help="the Membrane service (env MEMBRANE_URL; default %(default)s)",
    )
    parser.add_argument(
        "--api-key",
        default=os.environ.get("MEMBRANE_API_KEY", ""),
        help="an admin API key (env MEMBRANE_API_KEY)",
    )


def _add_export(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    export = commands.add_parser("export", help="write a store as NDJSON (admin key)")
    _client_options(export)
    export.add_argument("-o", "--output", required=True, help="the NDJSON file to write")
    export.add_argument("--scope", action="append", default=[], help="only this scope (repeat)")
    export.add_argument("--type", action="append", default=[], help="only this type (repeat)")
    export.add_argument("--created-after", help="ISO-8601: records created after this")
    export.add_argument("--created-before", help="ISO-8601: records created before this")
    export.add_argument("--embeddings", action="store_true", help="include the records' embeddings")
    export.add_argument(
        "--consistency-token",
        default=os.environ.get("MEMBRANE_CONSISTENCY_TOKEN"),
        help="a write's consistency_token (env MEMBRANE_CONSISTENCY_TOKEN): with read "
        "replicas, export only from one that holds that write",
    )
    export.set_defaults(handler=_export)


def _add_import(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    load = commands.add_parser("import", help="load an NDJSON export (admin key)")
    _client_options(load)
    load.add_argument("file", help="an NDJSON file written by `membrane export`")
    load.set_defaults(handler=_import)


def _add_forget(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    forget = commands.add_parser(
        "forget",
        help="forget what a scope remembers (POST /v1/forget)",
        description="Deletes every matching record the key may write, with its edges and "
        "vectors, and prints the counts. Without --scope the key must be an admin's.",
    )
    _client_options(forget)
    forget.add_argument("--scope", help="the scope to forget in")
    forget.add_argument("--type", action="append", default=[], help="only this type (repeat)")
    forget.add_argument("--tag", action="append", default=[], help="records with ALL these tags")
    forget.add_argument("--created-after", help="ISO-8601: records created at or after this")
    forget.add_argument("--created-before", help="ISO-8601: records created before this")
    forget.add_argument("--entity", help="an entity record's id: it and what is about it")
    forget.add_argument("--erase", action="store_true", help="also erase content from the audit")
    forget.add_argument("--dry-run", action="store_true", help="count only; change nothing")
    forget.add_argument("--rationale", help="kept in each delete audit entry")
    forget.add_argument("--idempotency-key", help="a retry with the same key replays")
    forget.set_defaults(handler=_forget)


def _add_keys(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    keys = commands.add_parser("keys", help="make API keys")
    actions = keys.add_subparsers(dest="keys_action", required=True, metavar="ACTION")
    create = actions.add_parser(
        "create",
        help="a new random key and the MEMBRANE_API_KEYS that holds it",
        description="Prints two shell lines: `export MEMBRANE_API_KEY=…` (the key, shown "
        "once: clients send it) and `export MEMBRANE_API_KEYS='[…]'` (the service's list, "
        "holding only the key's SHA-256, after the entries already in MEMBRANE_API_KEYS). "
        'Paste them, or: eval "$(membrane keys create …)". Restart the service after.',
    )
    create.add_argument("--actor", required=True, help="the actor id its writes are audited as")
    create.add_argument(
        "--max-sensitivity",
        choices=[s.value for s in Sensitivity],
        help=f"its trust ceiling: records above it are invisible (default {DEFAULT_CEILING})",
    )
    create.add_argument("--scope", action="append", default=[], help="a scope it may use")
    create.add_argument(
        "--role",
        action="append",
        choices=["read", "write", "admin"],
        help="a role (repeat; default read; admin implies read and write)",
    )
    create.add_argument(
        "--json", action="store_true", help="print {key, entry} as one JSON object instead"
    )
    create.set_defaults(handler=_keys_create)


def _serve(_args: argparse.Namespace, _rest: list[str]) -> None:
    from app import serve

    serve.main()


def _worker(_args: argparse.Namespace, _rest: list[str]) -> None:
    from app import worker

    worker.main()


def _migrate(args: argparse.Namespace, _rest: list[str]) -> None:
    from app import migrate

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    migrate.main([args.action] + ([args.revision] if args.revision else []))


def _mcp(_args: argparse.Namespace, rest: list[str]) -> None:
    from app.mcp import stdio

    stdio.main(rest, prog="membrane mcp")


def _export(args: argparse.Namespace, _rest: list[str]) -> None:
    from app.transfer import client

    bar = ProgressBar("export", unit="lines")
    filters = {
        "scope": args.scope,
        "type": args.type,
        "created_after": args.created_after,
        "created_before": args.created_before,
        "include_embeddings": args.embeddings,
    }
    with _refusals_exit(args.url, args.api_key):
        summary = client.export_to_file(
            args.url,
            args.api_key,
            args.output,
            filters=filters,
            progress=bar.update,
            consistency_token=args.consistency_token,
        )
    bar.finish()
    print(json.dumps(summary, indent=2))


def _import(args: argparse.Namespace, _rest: list[str]) -> None:
    from app.transfer import client

    total = os.path.getsize(args.file)
    bar = ProgressBar("import", total=total, unit="bytes")
    with _refusals_exit(args.url, args.api_key):
        summary = client.import_file(args.url, args.api_key, args.file, progress=bar.update)
    bar.finish()
    print(json.dumps(summary, indent=2))


def _forget(args: argparse.Namespace, _rest: list[str]) -> None:
    from app.forget import client

    body = {
        "scope": args.scope,
        "types": args.type,
        "tags": args.tag,
        "created_after": args.created_after,
        "created_before": args.created_before,
        "entity": args.entity,
        "erase": args.erase,
        "dry_run": args.dry_run,
        "rationale": args.rationale,
    }
    body = {k: v for k, v in body.items() if v not in (None, [], False)}
    with _refusals_exit(args.url, args.api_key):
        counts = client.forget(args.url, args.api_key, body, args.idempotency_key)
    print(json.dumps(counts, indent=2))


@contextmanager
def _refusals_exit(url: str, api_key: str) -> Iterator[None]:
    """A refusal or an unreachable service ends the command with its reasons (exit 1),
    not a traceback: an import's bad lines are listed one per line, a refused key says
    where the key goes."""
    import httpx

    from app.transfer.client import TransferError

    try:
        yield
    except TransferError as exc:
        print(file=sys.stderr)
        problem = exc.problem if isinstance(exc.problem, dict) else {}
        for error in problem.get("errors", [])[:50]:
            print(f"  line {error.get('line')}: {error.get('msg')}", file=sys.stderr)
        if exc.status in (401, 403):
            given = "none was given" if not api_key else "the one given was refused"
            print(KEY_HINT.format(given=given), file=sys.stderr)
        raise SystemExit(f"membrane: {exc}") from None
    except httpx.TransportError as exc:
        raise SystemExit(f"membrane: cannot reach {url}: {exc}") from None


def _keys_create(args: argparse.Namespace, _rest: list[str]) -> None:
    key = "mbr_" + secrets.token_urlsafe(32)
    entry = {
        "key_sha256": hash_key(key),
        "actor_id": args.actor,
        "max_sensitivity": args.max_sensitivity or DEFAULT_CEILING,
        "scopes": args.scope,
        "roles": args.role or ["read"],
    }
    _check_entry(entry)
    if args.json:
        print(json.dumps({"key": key, "entry": entry}))
        return
    kept = _configured_keys()
    for note in _defaulted(args):
        print(f"membrane: {note}", file=sys.stderr)
    if kept:
        print(
            f"membrane: kept the {len(kept)} entries already in MEMBRANE_API_KEYS", file=sys.stderr
        )
    scopes = f"scopes {json.dumps(args.scope)}" if args.scope else "every scope"
    print(f"# {json.dumps(args.actor)}: roles {', '.join(entry['roles'])}; ceiling "
          f"{entry['max_sensitivity']}; {scopes}. The key is shown once.")  # fmt: skip
    print(f"export MEMBRANE_API_KEY={shlex.quote(key)}")
    listed = json.dumps([*kept, entry], separators=(",", ":"))
    print(f"export MEMBRANE_API_KEYS={shlex.quote(listed)}")
    print("# Restart the service after setting MEMBRANE_API_KEYS; clients send the header "
          "Authorization: Bearer $MEMBRANE_API_KEY.")  # fmt: skip


def _check_entry(entry: dict[str, object]) -> None:
    from pydantic import ValidationError

    from app.config import ApiPrincipal

    try:
        ApiPrincipal.model_validate(entry)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise SystemExit(f"membrane: {first['loc'][0]}: {first['msg']}") from None


def _defaulted(args: argparse.Namespace) -> list[str]:
    """What `keys create` chose because it was not asked, so that no one finds out later."""
    notes = []
    if args.role is None:
        notes.append("no --role given: read only (--role write, --role admin for more)")
    if args.max_sensitivity is None:
        notes.append(
            f"no --max-sensitivity given: {DEFAULT_CEILING}; records above {DEFAULT_CEILING} "
            "are invisible to this key (hyper sees everything)"
        )
    return notes


def _configured_keys() -> list[object]:
    """The entries of MEMBRANE_API_KEYS in this environment (none when unset or unreadable)."""
    try:
        entries = json.loads(os.environ.get("MEMBRANE_API_KEYS") or "[]")
    except ValueError:
        raise SystemExit("membrane: MEMBRANE_API_KEYS is not JSON; unset it or fix it") from None
    if not isinstance(entries, list):
        raise SystemExit("membrane: MEMBRANE_API_KEYS is not a JSON list; unset it or fix it")
    return entries


class ProgressBar:
    """A one-line progress bar on stderr (a count, or a fraction when the total is known),
    redrawn at most four times a second."""

    def __init__(self, label: str, total: int | None = None, unit: str = "") -> None:
        self.label, self.total, self.unit = label, total, unit
        self.done = 0
        self.started = self._drawn = time.monotonic()

    def update(self, done: int) -> None:
        self.done = done
        now = time.monotonic()
        if now - self._drawn >= 0.25:
            self._drawn = now
            self._draw(now)

    def finish(self) -> None:
        self._draw(time.monotonic())
        print(file=sys.stderr)

    def _draw(self, now: float) -> None:
        elapsed = max(now - self.started, 1e-9)
        rate = f"{self.done / elapsed:,.0f} {self.unit}/s"
        if self.total:
            share = min(self.done / self.total, 1.0)
            bar = "#" * int(30 * share) + "." * (30 - int(30 * share))
            text = f"{self.label} [{bar}] {share:4.0%} {rate}"
        else:
            text = f"{self.label} {self.done:,} {self.unit} {rate}"
        print(f"\r{text} {elapsed:.0f}s  ", end="", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
