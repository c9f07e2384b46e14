"""What a front end knows of a session's `/name` commands: the custom commands' facts, and
the commands that make the message to send."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final

from tether.slotted import Slotted

PromptCommand = Callable[[str], Awaitable[str]]
"""A `/name args` command that makes the message to send (an MCP server's prompt)."""


class CommandInfo(Slotted):
    """A custom command's facts a front end acts on."""

    __slots__ = ("argument_hint", "description", "model", "source")
    source: Final[str]
    """Where it is defined, as UserPromptExpansion hooks are told (`projectSettings`,
    `userSettings`, `plugin`)."""
    model: Final[str | None]
    """The model its `model:` front matter names, for the turn it starts."""
    description: Final[str]
    argument_hint: Final[str]
    """What its arguments are (`argument-hint`), shown beside it in the slash menu."""

    def __init__(
        self, source: str, model: str | None = None, description: str = "", argument_hint: str = ""
    ) -> None:
        self.source = source
        self.model = model
        self.description = description
        self.argument_hint = argument_hint
