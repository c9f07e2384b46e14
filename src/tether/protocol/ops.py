"""Operations that flow into a session."""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from tether.protocol.messages import ImageBlock, TextBlock
from tether.protocol.record import Record, Tagged


class _Op(Record):
    __slots__ = ()


class UserInput(_Op):
    """`content`: The message as the user gave it, when it holds more than text (images), in its
    order; `text` is its text (what hooks and titles read). Empty: just `text`.

    `uuid`: The uuid its entry in the session file takes (a client that names its messages
    finds them there, and rewinds files to them); None: a new one.

    `typed`: What the user typed, when the message stands for it (`/name args` expanded to a
    command's or a skill's body): the session's title, as in Claude Code. None: `text`."""

    __slots__ = ("content", "kind", "text", "typed", "uuid")
    kind: Final[Literal["user_input"]]
    text: Final[str]
    content: Final[tuple[TextBlock | ImageBlock, ...]]
    uuid: Final[str | None]
    typed: Final[str | None]

    def __init__(
        self,
        *,
        text: str,
        kind: Literal["user_input"] = "user_input",
        content: tuple[TextBlock | ImageBlock, ...] = (),
        uuid: str | None = None,
        typed: str | None = None,
    ) -> None:
        self.kind = kind
        self.text = text
        self.content = content
        self.uuid = uuid
        self.typed = typed


class Interrupt(_Op):
    """Stop the running turn: cancel the stream and tools, answer every pending call."""

    __slots__ = ("kind",)
    kind: Final[Literal["interrupt"]]

    def __init__(self, *, kind: Literal["interrupt"] = "interrupt") -> None:
        self.kind = kind


class PermissionChange(_Op):
    """One permission update a client answers with (Claude Code's `PermissionUpdate`): rules
    added, replaced or removed (`Tool` or `Tool(content)`) for one behavior, a mode, or
    directories added to or removed from those the file tools may use. `destination`:
    `session`, `cliArg`, or a settings file to keep it in (`localSettings`...)."""

    __slots__ = ("behavior", "destination", "directories", "mode", "rules", "type")
    type: Final[
        Literal[
            "addRules",
            "replaceRules",
            "removeRules",
            "setMode",
            "addDirectories",
            "removeDirectories",
        ]
    ]
    destination: Final[str]
    behavior: Final[Literal["allow", "deny", "ask"]]
    rules: Final[tuple[str, ...]]
    directories: Final[tuple[str, ...]]
    mode: Final[str | None]

    def __init__(
        self,
        *,
        type: Literal[
            "addRules",
            "replaceRules",
            "removeRules",
            "setMode",
            "addDirectories",
            "removeDirectories",
        ],
        destination: str = "session",
        behavior: Literal["allow", "deny", "ask"] = "allow",
        rules: tuple[str, ...] = (),
        directories: tuple[str, ...] = (),
        mode: str | None = None,
    ) -> None:
        self.type = type
        self.destination = destination
        self.behavior = behavior
        self.rules = rules
        self.directories = directories
        self.mode = mode


class PermissionAnswer(_Op):
    """The user's answer to a `PermissionAsked` event.

    `message_whole`: With a deny: `message` is all the model reads (an SDK client's, as Claude
    Code passes it), not the user's words after tether's own sentence.

    `updated_input`: Run the call with this input instead (an allow only).

    `stop`: With a deny: stop the agent that asked (a subagent's run; the session's agent is
    stopped by interrupting the turn).

    `changes`: Permission updates to apply before the call runs (an allow only): they hold
    from the next decision on; those for a settings file are kept as well."""

    __slots__ = (
        "changes",
        "choice",
        "kind",
        "message",
        "message_whole",
        "request_id",
        "stop",
        "updated_input",
    )
    kind: Final[Literal["permission_answer"]]
    request_id: Final[str]
    choice: Final[Literal["allow_once", "allow_always", "deny"]]
    message: Final[str | None]
    message_whole: Final[bool]
    updated_input: Final[dict[str, Any] | None]
    stop: Final[bool]
    changes: Final[tuple[PermissionChange, ...]]

    def __init__(
        self,
        *,
        request_id: str,
        choice: Literal["allow_once", "allow_always", "deny"],
        kind: Literal["permission_answer"] = "permission_answer",
        message: str | None = None,
        message_whole: bool = False,
        updated_input: dict[str, Any] | None = None,
        stop: bool = False,
        changes: tuple[PermissionChange, ...] = (),
    ) -> None:
        self.kind = kind
        self.request_id = request_id
        self.choice = choice
        self.message = message
        self.message_whole = message_whole
        self.updated_input = updated_input
        self.stop = stop
        self.changes = changes


class SetPermissionMode(_Op):
    """Switch the permission mode for the calls that follow (`default`, `acceptEdits`...)."""

    __slots__ = ("kind", "mode")
    kind: Final[Literal["set_permission_mode"]]
    mode: Final[str]

    def __init__(
        self, *, mode: str, kind: Literal["set_permission_mode"] = "set_permission_mode"
    ) -> None:
        self.kind = kind
        self.mode = mode


class SetModel(_Op):
    """Use another model from the next model call on; None goes back to the session's default."""

    __slots__ = ("kind", "model")
    kind: Final[Literal["set_model"]]
    model: Final[str | None]

    def __init__(
        self, *, kind: Literal["set_model"] = "set_model", model: str | None = None
    ) -> None:
        self.kind = kind
        self.model = model


class Compact(_Op):
    """Compact the context now (`/compact [focus]`). With `at` (an index of what is sent,
    `Session.sent_messages`, where a user's prompt starts), only one part is summarised, as
    the rewind menu's choices: `part="before"` the messages before it, `part="from"` it and
    every message after it but the newest reply."""

    __slots__ = ("at", "focus", "kind", "part")
    kind: Final[Literal["compact"]]
    focus: Final[str | None]
    at: Final[int | None]
    part: Final[Literal["before", "from"]]

    def __init__(
        self,
        *,
        kind: Literal["compact"] = "compact",
        focus: str | None = None,
        at: int | None = None,
        part: Literal["before", "from"] = "before",
    ) -> None:
        self.kind = kind
        self.focus = focus
        self.at = at
        self.part = part


class Shutdown(_Op):
    __slots__ = ("kind",)
    kind: Final[Literal["shutdown"]]

    def __init__(self, *, kind: Literal["shutdown"] = "shutdown") -> None:
        self.kind = kind


Op = Annotated[
    UserInput | Interrupt | PermissionAnswer | SetPermissionMode | SetModel | Compact | Shutdown,
    Tagged("kind"),
]
