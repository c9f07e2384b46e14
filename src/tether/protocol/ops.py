"""Operations that flow into a session."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Op(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)


class UserInput(_Op):
    kind: Literal["user_input"] = "user_input"
    text: str


class Interrupt(_Op):
    """Stop the running turn: cancel the stream and tools, answer every pending call."""

    kind: Literal["interrupt"] = "interrupt"


class PermissionAnswer(_Op):
    """The user's answer to a `PermissionAsked` event."""

    kind: Literal["permission_answer"] = "permission_answer"
    request_id: str
    choice: Literal["allow_once", "allow_always", "deny"]
    message: str | None = None


class Compact(_Op):
    """Compact the context now (`/compact [focus]`)."""

    kind: Literal["compact"] = "compact"
    focus: str | None = None


class Shutdown(_Op):
    kind: Literal["shutdown"] = "shutdown"


Op = Annotated[
    UserInput | Interrupt | PermissionAnswer | Compact | Shutdown, Field(discriminator="kind")
]
