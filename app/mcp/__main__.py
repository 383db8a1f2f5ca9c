"""`python -m app.mcp`: the stdio MCP server (see app/mcp/stdio.py)."""

from app.mcp.stdio import main

if __name__ == "__main__":
    main()
