"""What the MCP servers offer, as tether hands it on: tools, prompts and resources under the
names the model sees, and each server's status. Plain frozen records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

ServerState = Literal["pending", "connected", "failed", "stopped"]
"""`pending`: still connecting (servers connect in the background)."""


@dataclass(frozen=True)
class ServerStatus:
    """How a server is doing."""

    state: ServerState
    tools: int = 0
    """How many tools it offers (0 if it never connected)."""
    error: str | None = None
    """Why it failed: the cause, with the end of its stderr for a stdio server."""
    connect_s: float | None = field(default=None, compare=False)
    """How long connecting and listing took, when it connected (not compared: it varies)."""


@dataclass(frozen=True)
class McpTool:
    """A tool of an MCP server, as the model is offered it."""

    server: str
    name: str
    """As the server calls it."""
    exposed: str
    """The name the model sees: `mcp__<server>__<tool>`, valid for the model APIs, unique."""
    description: str
    input_schema: dict[str, Any] = field(hash=False)
    """The server's JSON schema for the arguments, as it sent it."""
    read_only: bool = False
    """The server's `readOnlyHint`: it says the tool changes nothing."""
    annotations: dict[str, bool] = field(default_factory=dict[str, bool], hash=False)
    """Its hints under Claude Code's names (`readOnly`, `destructive`, `openWorld`)."""


@dataclass(frozen=True)
class McpPromptArgument:
    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True)
class McpPrompt:
    """A prompt of an MCP server; the REPL offers it as the command `/<exposed>`."""

    server: str
    name: str
    exposed: str
    """`mcp__<server>__<prompt>`, made valid and unique like a tool's name."""
    description: str
    arguments: tuple[McpPromptArgument, ...] = ()


@dataclass(frozen=True)
class McpResource:
    """A resource a server lists (read it with `McpManager.read_resource`)."""

    server: str
    uri: str
    name: str
    description: str = ""
    mime_type: str | None = None


class McpError(Exception):
    """A prompt or resource listing that cannot be had: unknown server or prompt, a server
    that is down, or the server's own error. The message names the server."""
