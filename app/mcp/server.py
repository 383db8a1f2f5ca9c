"""The MCP server: Membrane's tools and record resources over one client factory."""

from __future__ import annotations

import logging

from mcp.server.mcpserver import MCPServer

from app.mcp.contract import api_document
from app.mcp.resources import add_resources
from app.mcp.tools import ClientFactory, build_tools

INSTRUCTIONS = """Membrane is your long-term memory.
- Before a task, `retrieve` what you know about it (facts, past episodes, skills, plans);
  `get_record` (or the resource membrane://records/{record_id}) reads one record fully.
- Remember with `capture_memory` (raw experience; Membrane types it) or a typed `ingest_*`
  tool; `capture_batch` for many items at once.
- Close the loop: `reinforce_record` what helped, `penalize_record` what misled you,
  `ingest_outcome` for how an episode ended.
- Correct knowledge with `supersede_record`, `fork_record`, `retract_record`,
  `contest_record` or `merge_records`; every change is audited. A newer fact replaces
  the one it contradicts by itself. `forget_records` wipes a scope on request.
What you can read and write is your API key's: its scopes and its sensitivity ceiling
(records one level above the ceiling come back redacted). Errors carry the service's
problem: status, title, detail and, for bad input, one line per field."""


def build_server(clients: ClientFactory) -> MCPServer:
    """Tools and resources whose REST calls go through `clients`."""
    # MCPServer() calls logging.basicConfig, which would install its own root handler
    # when none is configured yet: a handler present for the call makes it a no-op, so
    # the service's (or the stdio entry's) logging stays as configured.
    root = logging.getLogger()
    guard = logging.NullHandler()
    root.addHandler(guard)
    try:
        server: MCPServer = MCPServer(
            name="membrane",
            title="Membrane",
            version="0.1.0",
            instructions=INSTRUCTIONS,
            tools=build_tools(api_document(), clients),
            warn_on_duplicate_tools=True,
        )
    finally:
        root.removeHandler(guard)
    add_resources(server, clients)
    return server
