"""Membrane over the Model Context Protocol (official `mcp` SDK).

One tool layer (app/mcp/tools.py): every tool or resource read is one REST call, made
as the MCP caller, so keys, trust ceilings, scopes, rate limits, load shedding and
validation are the REST endpoint's own. Two transports feed it a client:
- streamable HTTP at /mcp inside the service (app/mcp/http.py): the caller's bearer key
  and narrowing headers are forwarded to the app in process;
- stdio, `python -m app.mcp --url URL --api-key KEY` (app/mcp/stdio.py): calls a
  Membrane base URL over HTTP.
This package touches no database.
"""
