"""Records as MCP resources: `membrane://records/{record_id}` reads GET /v1/records/{id}
as the caller (same trust as the get_record tool and REST)."""

from __future__ import annotations

from urllib.parse import quote

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS

from app.mcp.tools import ClientFactory, McpContext, problem_of, problem_text

RECORD_URI = "membrane://records/{record_id}"
RESOURCE_NOT_FOUND = -32002  # the MCP specification's code for an unknown resource


def add_resources(server: MCPServer, clients: ClientFactory) -> None:
    @server.resource(
        RECORD_URI,
        name="record",
        title="Memory record",
        description="One memory record (JSON) with its relations and audit trail, as "
        "GET /v1/records/{record_id} answers it for your key: 404 outside your scopes or "
        "well above your ceiling, 403 one level above it.",
        mime_type="application/json",
    )
    async def record(record_id: str, ctx: McpContext) -> str:
        async with clients(ctx) as client:
            response = await client.get(f"/v1/records/{quote(record_id, safe='')}")
        if response.is_success:
            return response.text
        problem = problem_of(response)
        raise MCPError(
            code=_code(response.status_code), message=problem_text(problem), data=problem
        )


def _code(status: int) -> int:
    if status == 404:
        return RESOURCE_NOT_FOUND
    return INVALID_PARAMS if status < 500 else INTERNAL_ERROR
