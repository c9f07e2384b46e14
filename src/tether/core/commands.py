"""What a front end knows of a session's `/name` commands: the custom commands' facts, and
the commands that make the message to send."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

PromptCommand = Callable[[str], Awaitable[str]]
"""A `/name args` command that makes the message to send (an MCP server's prompt)."""


@dataclass(frozen=True)
class CommandInfo:
    """A custom command's facts a front end acts on."""

    source: str
    """Where it is defined, as UserPromptExpansion hooks are told (`projectSettings`,
    `userSettings`, `plugin`)."""
    model: str | None = None
    """The model its `model:` front matter names, for the turn it starts."""
    description: str = ""
    argument_hint: str = ""
    """What its arguments are (`argument-hint`), shown beside it in the slash menu."""
