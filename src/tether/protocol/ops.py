"""Operations that flow into a session."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tether.protocol.messages import ImageBlock, TextBlock


class _Op(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)


class UserInput(_Op):
    kind: Literal["user_input"] = "user_input"
    text: str
    content: tuple[TextBlock | ImageBlock, ...] = Field(
        default=(),
        description="The message as the user gave it, when it holds more than text (images), "
        "in its order; `text` is its text (what hooks and titles read). Empty: just `text`.",
    )
    uuid: str | None = Field(
        default=None,
        description="The uuid its entry in the session file takes (a client that names its "
        "messages finds them there, and rewinds files to them); None: a new one.",
    )


class Interrupt(_Op):
    """Stop the running turn: cancel the stream and tools, answer every pending call."""

    kind: Literal["interrupt"] = "interrupt"


class PermissionChange(_Op):
    """One permission update a client answers with (Claude Code's `PermissionUpdate`): rules
    added, replaced or removed (`Tool` or `Tool(content)`) for one behavior, a mode, or
    directories added to or removed from those the file tools may use. `destination`:
    `session`, `cliArg`, or a settings file to keep it in (`localSettings`...)."""

    type: Literal[
        "addRules",
        "replaceRules",
        "removeRules",
        "setMode",
        "addDirectories",
        "removeDirectories",
    ]
    destination: str = "session"
    behavior: Literal["allow", "deny", "ask"] = "allow"
    rules: tuple[str, ...] = ()
    directories: tuple[str, ...] = ()
    mode: str | None = None


class PermissionAnswer(_Op):
    """The user's answer to a `PermissionAsked` event."""

    kind: Literal["permission_answer"] = "permission_answer"
    request_id: str
    choice: Literal["allow_once", "allow_always", "deny"]
    message: str | None = None
    message_whole: bool = Field(
        default=False,
        description="With a deny: `message` is all the model reads (an SDK client's, as Claude "
        "Code passes it), not the user's words after tether's own sentence.",
    )
    updated_input: dict[str, Any] | None = Field(
        default=None, description="Run the call with this input instead (an allow only)."
    )
    stop: bool = Field(
        default=False,
        description="With a deny: stop the agent that asked (a subagent's run; the session's "
        "agent is stopped by interrupting the turn).",
    )
    changes: tuple[PermissionChange, ...] = Field(
        default=(),
        description="Permission updates to apply before the call runs (an allow only): they "
        "hold from the next decision on; those for a settings file are kept as well.",
    )


class SetPermissionMode(_Op):
    """Switch the permission mode for the calls that follow (`default`, `acceptEdits`...)."""

    kind: Literal["set_permission_mode"] = "set_permission_mode"
    mode: str


class SetModel(_Op):
    """Use another model from the next model call on; None goes back to the session's default."""

    kind: Literal["set_model"] = "set_model"
    model: str | None = None


class Compact(_Op):
    """Compact the context now (`/compact [focus]`)."""

    kind: Literal["compact"] = "compact"
    focus: str | None = None


class Shutdown(_Op):
    kind: Literal["shutdown"] = "shutdown"


Op = Annotated[
    UserInput | Interrupt | PermissionAnswer | SetPermissionMode | SetModel | Compact | Shutdown,
    Field(discriminator="kind"),
]
