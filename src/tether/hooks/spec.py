"""What a hook is and what firing one yields: the event names, one configured command hook, and
the combined outcome the loop acts on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from tether.slotted import Slotted

HookEventName = Literal[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "PostCompact",
    "Notification",
    "PermissionRequest",
    "SubagentStart",
    "WorktreeCreate",
    "WorktreeRemove",
    "TaskCompleted",
    "TeammateIdle",
    "PostToolBatch",
    "Elicitation",
    "ElicitationResult",
    "UserPromptExpansion",
    "StopFailure",
    "PermissionDenied",
    "TaskCreated",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "ConfigChange",
    "Setup",
]

HOOK_EVENTS: tuple[HookEventName, ...] = get_args(HookEventName)

PermissionDecision = Literal["allow", "deny", "ask"]
ElicitAction = Literal["accept", "decline", "cancel"]
"""An answer to an MCP server's form (Elicitation and ElicitationResult hooks)."""

MATCH_FIELDS: dict[HookEventName, str] = {
    "PreToolUse": "tool_name",
    "PostToolUse": "tool_name",
    "PostToolUseFailure": "tool_name",
    "PermissionRequest": "tool_name",
    "SessionStart": "source",
    "SessionEnd": "reason",
    "PreCompact": "trigger",
    "PostCompact": "trigger",
    "Notification": "notification_type",
    "SubagentStop": "agent_type",
    "SubagentStart": "agent_type",
    "Elicitation": "mcp_server_name",
    "ElicitationResult": "mcp_server_name",
    "UserPromptExpansion": "command_name",
    "StopFailure": "error",
    "PermissionDenied": "tool_name",
    "InstructionsLoaded": "load_reason",
    "FileChanged": "file_path",
    "ConfigChange": "source",
    "Setup": "trigger",
}
"""The payload field a matcher is compared with, per event. Events missing here (UserPromptSubmit,
Stop, TaskCreated, CwdChanged...) ignore matchers: every hook configured for them runs. A
FileChanged matcher names the files watched (`.envrc|.env`), compared with the file's name."""

UNBLOCKABLE_EVENTS: frozenset[HookEventName] = frozenset(
    {
        "SessionStart",
        "SessionEnd",
        "PostCompact",
        "Notification",
        "SubagentStart",
        "WorktreeRemove",
        "StopFailure",
        "PermissionDenied",
        "InstructionsLoaded",
        "CwdChanged",
        "FileChanged",
        "Setup",
    }
)
"""Events with nothing to block: an exit 2 or a fail-closed failure becomes an error shown to the
user, as in Claude Code."""

PLAIN_STDOUT_IS_CONTEXT: frozenset[HookEventName] = frozenset(
    {"UserPromptSubmit", "UserPromptExpansion", "SessionStart", "Setup"}
)
"""Events whose plain (non-JSON) stdout on exit 0 is added to the model's context."""

ENV_FILE_EVENTS: frozenset[HookEventName] = frozenset(
    {"SessionStart", "Setup", "CwdChanged", "FileChanged"}
)
"""Events whose hooks get `CLAUDE_ENV_FILE`: what they export there reaches later Bash
commands (direnv-like set-ups), as in Claude Code."""

DEFAULT_TIMEOUT_S = 60.0
"""A client's callback hook's timeout when it names none (the Agent SDK's default)."""

COMMAND_TIMEOUT_S = 600.0
"""A command hook's timeout when it names none, as in Claude Code; see `command_timeout_s`."""
PROMPT_TIMEOUT_S = 30.0
"""A prompt hook's timeout when it names none (Claude Code's)."""
AGENT_TIMEOUT_S = 60.0
"""An agent hook's timeout when it names none (Claude Code's)."""


def command_timeout_s(event: HookEventName) -> float:
    """Claude Code's default timeout of a command hook for `event`: 600 s, 30 s for
    UserPromptSubmit (the user waits for it before anything happens)."""
    return 30.0 if event == "UserPromptSubmit" else COMMAND_TIMEOUT_S


@dataclass(frozen=True, kw_only=True)
class HookSpec:
    """One configured command hook."""

    event: HookEventName
    matcher: str
    """Empty or `*`: everything; `Edit|Write`: exact names; anything else: a regular expression
    searched in the subject (tool name, source, trigger...)."""
    command: str
    """A shell command line, run by bash with the hook input as JSON on stdin; empty for a
    callback hook."""
    callback_id: str | None = None
    """Set for a hook an SDK client registered: the client runs its callback with the hook
    input, and its answer is read exactly as a command hook's JSON output is."""
    timeout_s: float = DEFAULT_TIMEOUT_S
    fail_closed: bool = False
    """A crash, timeout, missing script or unreadable output blocks instead of passing."""
    run_async: bool = False
    """`"async": true`: a command hook that goes on in the background, not waited for (its
    timeout still applies); a hook can also ask for it by printing `{"async": true}` first.
    What it says once it ends reaches the model with its next request (`tether.hooks.late`)."""
    async_rewake: bool = False
    """`"asyncRewake": true` (implies `run_async`): should it exit with code 2, its stderr (its
    stdout when stderr is empty) wakes the model, as a turn of its own when none runs."""
    source: str
    """Where it was configured, e.g. `.claude/settings.json: hooks.PreToolUse[0].hooks[1]`."""
    prompt: str | None = None
    """Set for a `prompt` or `agent` hook: what the judging model is asked, `$ARGUMENTS`
    standing for the hook input (see `tether.hooks.judged`)."""
    agent: bool = False
    """An `agent` hook: a subagent that may read the workspace judges, not one model call."""
    model: str | None = None
    """The model a prompt or agent hook asks for; None: the session's."""
    url: str | None = None
    """Set for an `http` hook: where the hook input is POSTed (`tether.hooks.http_hook`)."""
    headers: tuple[tuple[str, str], ...] = ()
    """An http hook's extra headers, `$VAR` references as written."""
    allowed_env: tuple[str, ...] = ()
    """The variables an http hook's headers may be filled from (`allowedEnvVars`)."""
    env: tuple[tuple[str, str], ...] = ()
    """More variables for its process: a plugin's hooks get `CLAUDE_PLUGIN_ROOT` and
    `CLAUDE_PLUGIN_DATA`."""

    @property
    def key(self) -> str:
        """What makes two configured hooks the same hook (run once): the command, the url, or
        the callback."""
        if self.callback_id is not None:
            return f"callback {self.callback_id}"
        return f"http {self.url}" if self.url is not None else self.command


class HookOutcome(Slotted):
    """What the matching hooks of one event decided, combined. The empty outcome changes
    nothing."""

    __slots__ = (
        "additional_context",
        "blocked",
        "elicit_action",
        "elicit_content",
        "errors",
        "permission_decision",
        "plain_context",
        "reason",
        "retry",
        "said_by",
        "stop",
        "stop_reason",
        "system_messages",
        "updated_input",
        "updated_output",
    )
    blocked: Final[bool]
    """Exit 2, `decision: "block"`, `permissionDecision: "deny"`, or a fail-closed failure."""
    reason: Final[str | None]
    """Why it was blocked, for the model (for UserPromptSubmit: for the user)."""
    permission_decision: Final[PermissionDecision | None]
    """PreToolUse and PermissionRequest only; deny beats ask beats allow."""
    updated_input: Final[dict[str, Any] | None]
    """PreToolUse and PermissionRequest only: the tool input to use instead; the last hook (in
    configuration order) that gave one wins."""
    additional_context: Final[tuple[str, ...]]
    """Text for the model, in configuration order."""
    plain_context: Final[tuple[str, ...]]
    """Those of `additional_context` a hook printed as plain text, not as JSON's
    `additionalContext` (Claude Code tells the model the two apart)."""
    system_messages: Final[tuple[str, ...]]
    """Text for the user."""
    said_by: Final[str]
    """Who says `system_messages`, as Claude Code names it to the user: the event and what
    its matcher matched (`PreToolUse:Bash`, `Stop`); set by `HookRunner.fire`."""
    stop: Final[bool]
    """`continue: false`: end the turn now, whatever else was decided."""
    stop_reason: Final[str | None]
    """For the user, with `stop`."""
    errors: Final[tuple[str, ...]]
    """Non-blocking problems for the user: exit codes other than 0 and 2, unreadable output,
    timeouts and crashes of hooks that are not fail-closed."""
    updated_output: Final[UpdatedOutput | None]
    """PostToolUse only: the output the model reads instead of the tool's; the last hook that
    gave one wins."""
    elicit_action: Final[ElicitAction | None]
    """Elicitation and ElicitationResult only: the answer to the MCP server's form (with
    `elicit_content` for accept); the last hook that gave one wins."""
    elicit_content: Final[dict[str, Any] | None]
    retry: Final[bool]
    """PermissionDenied only: the model is told it may try the denied call again."""

    def __init__(
        self,
        blocked: bool = False,
        reason: str | None = None,
        permission_decision: PermissionDecision | None = None,
        updated_input: dict[str, Any] | None = None,
        additional_context: tuple[str, ...] = (),
        system_messages: tuple[str, ...] = (),
        stop: bool = False,
        stop_reason: str | None = None,
        errors: tuple[str, ...] = (),
        updated_output: UpdatedOutput | None = None,
        elicit_action: ElicitAction | None = None,
        elicit_content: dict[str, Any] | None = None,
        retry: bool = False,
        said_by: str = "",
        plain_context: tuple[str, ...] = (),
    ) -> None:
        self.said_by = said_by
        self.plain_context = plain_context
        self.blocked = blocked
        self.reason = reason
        self.permission_decision = permission_decision
        self.updated_input = updated_input
        self.additional_context = additional_context
        self.system_messages = system_messages
        self.stop = stop
        self.stop_reason = stop_reason
        self.errors = errors
        self.updated_output = updated_output
        self.elicit_action = elicit_action
        self.elicit_content = elicit_content
        self.retry = retry


class UpdatedOutput(Slotted):
    """A PostToolUse hook's replacement of a tool's output, as it answered it."""

    __slots__ = ("field", "value")
    field: Final[Literal["updatedToolOutput", "updatedMCPToolOutput"]]
    value: Final[Any]
    """Text, or an MCP tool result (`{"content": [...], "isError": ...}`)."""

    def __init__(
        self, field: Literal["updatedToolOutput", "updatedMCPToolOutput"], value: Any
    ) -> None:
        self.field = field
        self.value = value


class HookActivity(Slotted):
    """A hook starting or ending, for front ends that report hooks as they run (the SDK's
    `hook_started` and `hook_response` messages)."""

    __slots__ = ("exit_code", "hook_id", "outcome", "spec", "stderr", "stdout", "subject")
    hook_id: Final[str]
    spec: Final[HookSpec]
    subject: Final[str | None]
    """What the matcher was compared with (a tool name, a source...), if anything."""
    outcome: Final[HookOutcome | None]
    """None when it starts; what it decided when it ended."""
    exit_code: Final[int | None]
    stdout: Final[str]
    stderr: Final[str]

    def __init__(
        self,
        hook_id: str,
        spec: HookSpec,
        subject: str | None,
        outcome: HookOutcome | None = None,
        exit_code: int | None = None,
        stdout: str = "",
        stderr: str = "",
    ) -> None:
        self.hook_id = hook_id
        self.spec = spec
        self.subject = subject
        self.outcome = outcome
        self.exit_code = exit_code
        self.stdout = stdout
        self.stderr = stderr
