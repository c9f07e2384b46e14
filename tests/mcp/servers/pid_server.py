"""A real SDK server over stdio whose tool says its process id: to kill it by pid."""

import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("pid", log_level="WARNING")


@server.tool()
def pid() -> str:
    """The server's process id."""
    return str(os.getpid())


if __name__ == "__main__":
    server.run("stdio")
