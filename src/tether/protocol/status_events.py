"""A session's events about its state rather than its conversation: a model call retried or
still waiting, a notice, the context compacted, an error. Part of the `Event` union
(`events.py`)."""

from __future__ import annotations

from typing import Final, Literal

from tether.protocol.record import Record


class ModelRetry(Record):
    """A model call failed in a way worth retrying; the next attempt starts after `delay_s`.

    `status`: The HTTP status of the failure; None when none came back. `in_stream`: the
    failure was an error event inside a 200 stream."""

    __slots__ = ("attempt", "delay_s", "in_stream", "kind", "max_attempts", "reason", "status")
    kind: Final[Literal["model_retry"]]
    attempt: Final[int]
    max_attempts: Final[int]
    delay_s: Final[float]
    reason: Final[str]
    status: Final[int | None]
    in_stream: Final[bool]

    def __init__(
        self,
        *,
        attempt: int,
        max_attempts: int,
        delay_s: float,
        reason: str,
        kind: Literal["model_retry"] = "model_retry",
        status: int | None = None,
        in_stream: bool = False,
    ) -> None:
        self.kind = kind
        self.attempt = attempt
        self.max_attempts = max_attempts
        self.delay_s = delay_s
        self.reason = reason
        self.status = status
        self.in_stream = in_stream


class ModelWaiting(Record):
    """The model endpoint has sent nothing for `waited_s` seconds; the attempt is given up (and
    retried) once that reaches `limit_s`."""

    __slots__ = ("kind", "limit_s", "pings_only", "waited_s")
    kind: Final[Literal["model_waiting"]]
    waited_s: Final[float]
    limit_s: Final[float]
    pings_only: Final[bool]
    """The endpoint sent keep-alives (pings) meanwhile, nothing of an answer."""

    def __init__(
        self,
        *,
        waited_s: float,
        limit_s: float,
        kind: Literal["model_waiting"] = "model_waiting",
        pings_only: bool = False,
    ) -> None:
        self.kind = kind
        self.waited_s = waited_s
        self.limit_s = limit_s
        self.pings_only = pings_only


class Notice(Record):
    __slots__ = ("blocked_reason", "for_client", "kept", "kind", "level", "message", "said_by")
    kind: Final[Literal["notice"]]
    level: Final[Literal["info", "warning"]]
    message: Final[str]
    said_by: Final[str]
    """A hook's `systemMessage`: the hook that says it (`PreToolUse:Bash`, `Stop`); else ""."""
    blocked_reason: Final[str | None]
    """A UserPromptSubmit hook dropped the prompt, for this reason (the message says so in
    Claude Code's words); None for any other notice."""
    kept: Final[bool]
    """The prompt a hook stopped (`continue: false`) is kept in the conversation."""
    for_client: Final[bool]
    """A program driving tether over stream-json gets a line for it; False for what Claude
    Code tells such a program by other means (a hook's stop: the result's terminal_reason),
    still told on stderr and to a person at a terminal."""

    def __init__(
        self,
        *,
        message: str,
        kind: Literal["notice"] = "notice",
        level: Literal["info", "warning"] = "info",
        said_by: str = "",
        blocked_reason: str | None = None,
        kept: bool = False,
        for_client: bool = True,
    ) -> None:
        self.kind = kind
        self.kept = kept
        self.for_client = for_client
        self.level = level
        self.message = message
        self.said_by = said_by
        self.blocked_reason = blocked_reason

    @property
    def told(self) -> str:
        """The message as the user is shown it: a hook's named, in Claude Code's words."""
        return f"{self.said_by} says: {self.message}" if self.said_by else self.message


class StatusChanged(Record):
    """What the session is busy with, as Claude Code's `status` line says it: `requesting`
    (a request to the model goes out), `compacting` (a summary is being written), and None
    when a compaction is over (`compact_result` saying how it went)."""

    __slots__ = ("compact_result", "kind", "status")
    kind: Final[Literal["status"]]
    status: Final[Literal["requesting", "compacting"] | None]
    compact_result: Final[Literal["success", "failed"] | None]

    def __init__(
        self,
        *,
        status: Literal["requesting", "compacting"] | None,
        compact_result: Literal["success", "failed"] | None = None,
        kind: Literal["status"] = "status",
    ) -> None:
        self.kind = kind
        self.status = status
        self.compact_result = compact_result


class ContextCompacted(Record):
    """The earlier conversation was replaced by a summary (a `Notice` says it in words)."""

    __slots__ = ("kind", "pre_tokens", "trigger")
    kind: Final[Literal["context_compacted"]]
    trigger: Final[Literal["auto", "manual"]]
    pre_tokens: Final[int]
    """The context's size before, as last measured (or estimated)."""

    def __init__(
        self,
        *,
        trigger: Literal["auto", "manual"],
        pre_tokens: int,
        kind: Literal["context_compacted"] = "context_compacted",
    ) -> None:
        self.kind = kind
        self.trigger = trigger
        self.pre_tokens = pre_tokens


class ErrorOccurred(Record):
    __slots__ = ("kind", "message")
    kind: Final[Literal["error"]]
    message: Final[str]

    def __init__(self, *, message: str, kind: Literal["error"] = "error") -> None:
        self.kind = kind
        self.message = message


class PromptWithdrawn(Record):
    """The turn's prompt (its `TurnStarted.prompt`) was taken back out of the session, refused
    as too long for the model's window: the conversation goes on without it, as the session
    file says. `taken`: "unsaved", never written to the file (refused before it was sent),
    or "withdrawn", written (it was sent, and the endpoint refused it) and marked there as
    taken back. `reason`: the refusal, its first line."""

    __slots__ = ("kind", "prompt", "reason", "taken")
    kind: Final[Literal["prompt_withdrawn"]]
    prompt: Final[str]
    taken: Final[Literal["unsaved", "withdrawn"]]
    reason: Final[str]

    def __init__(
        self,
        *,
        prompt: str,
        taken: Literal["unsaved", "withdrawn"],
        reason: str,
        kind: Literal["prompt_withdrawn"] = "prompt_withdrawn",
    ) -> None:
        self.kind = kind
        self.prompt = prompt
        self.taken = taken
        self.reason = reason
