"""MCP: configured servers, their connections, and calls to their tools."""
