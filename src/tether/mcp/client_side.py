"""What tether answers when a server asks the client something: its roots (the directories it
may work in), elicitation (a question for the user) and sampling (a completion from the
session's model). A capability is declared only when the session gives an answer for it, so a
server that needs one offers the tools that use it only then.

The session (`tether.cli.mcp_client_side`) decides how: who is asked, what is allowed. This
module holds plain records, so that nothing here needs the SDK.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

ElicitAction = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True)
class Elicitation:
    """A server's question (`elicitation/create`): a form to fill, or a page to open."""

    server: str
    message: str
    schema: dict[str, Any] = field(default_factory=lambda: dict[str, Any]())
    """The form's JSON schema (`requestedSchema`): an object of primitive properties."""
    url: str | None = None
    """A URL-mode request's page (then `schema` is empty)."""
    elicitation_id: str | None = None
    """A URL-mode request's id (its completion is announced under it)."""


@dataclass(frozen=True)
class Elicited:
    """The answer: `accept` with the form's `content`, `decline`, or `cancel`."""

    action: ElicitAction
    content: dict[str, Any] | None = None


@dataclass(frozen=True)
class SamplingRequest:
    """A server's request for a completion (`sampling/createMessage`), its messages as text."""

    server: str
    messages: tuple[tuple[Literal["user", "assistant"], str], ...]
    max_tokens: int
    system: str | None = None


@dataclass(frozen=True)
class Sampled:
    """The completion: its text, the model that wrote it, and why it stopped."""

    text: str
    model: str
    stop_reason: Literal["endTurn", "maxTokens"] = "endTurn"


class Refused(Exception):
    """A request the client will not answer; its message is the server's error."""


Elicit = Callable[[Elicitation], Awaitable[Elicited]]
Sample = Callable[[SamplingRequest], Awaitable[Sampled]]


@dataclass
class ClientSide:
    """The session's answers to its servers. `roots` may change while connected: see
    `McpManager.set_roots`, which tells the servers (`notifications/roots/list_changed`)."""

    roots: tuple[Path, ...] = ()
    elicit: Elicit | None = None
    sample: Sample | None = None
