"""`python -m app.mcp` (and `membrane mcp`): the MCP server over stdio, for agents that
launch their tools as subprocesses. Every tool call is a REST call to a running Membrane
(`--url`, env MEMBRANE_URL) with one API key (`--api-key`, env MEMBRANE_API_KEY), so the
key's trust, scopes and rate limit apply exactly as for any REST client; optional
narrowing headers lower its ceiling or scopes further for this agent. Logs go to stderr
(stdout carries the protocol)."""

from __future__ import annotations

import argparse
import logging
import os
import sys

import anyio
import httpx

from app.mcp.backends import remote_clients
from app.mcp.server import build_server
from app.replicas import TokenKeeper

DEFAULT_URL = "http://127.0.0.1:8080"
SENSITIVITIES = ("public", "low", "medium", "high", "hyper")


def parser(prog: str = "python -m app.mcp") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="Membrane's MCP server over stdio; tool calls go to a Membrane REST API.",
    )
    p.add_argument(
        "--url",
        default=os.environ.get("MEMBRANE_URL", DEFAULT_URL),
        help=f"Membrane base URL (env MEMBRANE_URL; default {DEFAULT_URL})",
    )
    p.add_argument(
        "--api-key",
        default=os.environ.get("MEMBRANE_API_KEY"),
        help="API key sent as a bearer token (env MEMBRANE_API_KEY; none in open mode)",
    )
    p.add_argument(
        "--max-sensitivity",
        choices=SENSITIVITIES,
        help="narrow the key's sensitivity ceiling (X-Membrane-Max-Sensitivity)",
    )
    p.add_argument("--scopes", help="narrow the key's scopes, comma-separated (X-Membrane-Scopes)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per REST call (default 60)")
    p.add_argument(
        "--log-level",
        default="warning",
        choices=("debug", "info", "warning", "error"),
        help="stderr log level (default warning)",
    )
    return p


def headers_for(args: argparse.Namespace) -> dict[str, str]:
    headers = {"User-Agent": "membrane-mcp/0.1.0"}
    if args.api_key:
        headers["Authorization"] = f"Bearer {args.api_key}"
    if args.max_sensitivity:
        headers["X-Membrane-Max-Sensitivity"] = args.max_sensitivity
    if args.scopes:
        headers["X-Membrane-Scopes"] = args.scopes
    return headers


async def serve(args: argparse.Namespace) -> None:
    keeper = TokenKeeper()  # read-your-writes across this agent's tool calls (replicas)
    async with httpx.AsyncClient(
        base_url=args.url.rstrip("/"),
        headers=headers_for(args),
        timeout=args.timeout,
        event_hooks=keeper.hooks(),
    ) as client:
        await build_server(remote_clients(client)).run_stdio_async()


def main(argv: list[str] | None = None, prog: str = "python -m app.mcp") -> None:
    """Parse `argv` (default: the command line) and serve MCP on stdin/stdout until the
    client closes them."""
    args = parser(prog).parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(),
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    anyio.run(serve, args)
