"""What one hook's exit code and output mean, under Claude Code's contract.

- Exit 0: stdout that is a JSON object is a decision; for UserPromptSubmit and SessionStart, other
  stdout is context for the model; for other events plain text is ignored (Claude Code only logs
  it), but output that starts like JSON and is not a valid object is reported.
- Exit 2: block, stderr is the reason (for events with nothing to block: an error for the user).
- Any other exit, a timeout, a signal, unreadable output: an error for the user, or a block when
  the hook is fail-closed.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar, cast

from tether import bounded_json
from tether.hooks.command import HookRun
from tether.hooks.spec import (
    PLAIN_STDOUT_IS_CONTEXT,
    UNBLOCKABLE_EVENTS,
    ElicitAction,
    HookEventName,
    HookOutcome,
    HookSpec,
    PermissionDecision,
    UpdatedOutput,
)
from tether.shown_urls import shown_url
from tether.slotted import replaced

_EXCERPT_CHARS = 300
_T = TypeVar("_T")
_EXPECTED: dict[type, str] = {bool: "true or false", str: "a string", dict: "an object"}

APPLIED_FIELDS: dict[HookEventName, frozenset[str]] = {
    "PreToolUse": frozenset(
        {"permissionDecision", "permissionDecisionReason", "updatedInput", "additionalContext"}
    ),
    "PostToolUse": frozenset({"additionalContext", "updatedToolOutput", "updatedMCPToolOutput"}),
    "PostToolUseFailure": frozenset({"additionalContext"}),
    "PostToolBatch": frozenset({"additionalContext"}),
    "UserPromptSubmit": frozenset({"additionalContext"}),
    "SessionStart": frozenset({"additionalContext"}),
    "SubagentStart": frozenset({"additionalContext"}),
    "Stop": frozenset({"additionalContext"}),
    "SubagentStop": frozenset({"additionalContext"}),
    "PermissionRequest": frozenset({"decision"}),
    "Elicitation": frozenset({"action", "content"}),
    "ElicitationResult": frozenset({"action", "content"}),
    "UserPromptExpansion": frozenset({"additionalContext"}),
    "Setup": frozenset({"additionalContext"}),
    "PermissionDenied": frozenset({"retry"}),
}
"""The `hookSpecificOutput` fields tether applies, per event. Claude Code defines more
(`sessionTitle`, `initialUserMessage`, `watchPaths`, `updatedPermissions`...): a hook answering
one of those, or a field of another event, gets an error saying it was ignored."""


def outcome_of(spec: HookSpec, run: HookRun) -> HookOutcome:
    """The outcome of one finished hook."""
    label = describe(spec)
    if run.timed_out and spec.callback_id is not None and spec.event == "PreToolUse":
        # As Claude Code: a client that does not answer in time may be gone, and the call it
        # was asked about is not run on its silence (a command hook's timeout is only shown).
        return HookOutcome(
            blocked=True,
            reason=f"{label} did not answer within its timeout ({spec.timeout_s:g} s; the "
            "client may be unreachable); the tool call was not run",
        )
    if run.failure is not None:
        return failed(spec, f"{label} {run.failure}{_stderr_note(run.stderr)}")
    if run.exit_code == 2:
        reason = run.stderr.strip() or f"{label} exited with status 2"
        if spec.event == "PreToolUse" and _plain_command(spec):
            # Claude Code's words: the command named, its stderr as written (not stripped).
            reason = f"[{spec.command}]: {run.stderr or 'No stderr output'}"
        if spec.event in UNBLOCKABLE_EVENTS:
            return HookOutcome(errors=(f"{label}: {reason}",))
        return HookOutcome(blocked=True, reason=reason)
    if run.exit_code != 0:
        return failed(spec, f"{label} exited with status {run.exit_code}{_stderr_note(run.stderr)}")
    outcome = _read_stdout(spec, run.stdout, label)
    if outcome.blocked and spec.event in UNBLOCKABLE_EVENTS:
        blocked = (f"{label}: {outcome.reason}",)
        return replaced(outcome, blocked=False, reason=None, errors=blocked)
    return outcome


def _plain_command(spec: HookSpec) -> bool:
    """A command hook of the settings (not an SDK callback, an http, prompt or agent hook)."""
    return spec.callback_id is None and spec.prompt is None and spec.url is None


def failed(spec: HookSpec, message: str) -> HookOutcome:
    """A hook that did not do its job: a block when fail-closed, otherwise an error to show."""
    if spec.fail_closed and spec.event not in UNBLOCKABLE_EVENTS:
        return HookOutcome(blocked=True, reason=f"{message} (the hook is fail-closed)")
    return HookOutcome(errors=(message,))


def describe(spec: HookSpec) -> str:
    """`PreToolUse hook "./check.sh"`: how a hook is named in messages."""
    if spec.callback_id is not None:
        return f"{spec.event} hook callback {spec.callback_id}"
    if spec.prompt is not None:
        prompt = " ".join(spec.prompt.split())
        prompt = prompt if len(prompt) <= 60 else prompt[:57] + "..."
        return f'{spec.event} {"agent" if spec.agent else "prompt"} hook "{prompt}"'
    if spec.url is not None:
        return f"{spec.event} http hook {shown_url(spec.url)}"
    command = " ".join(spec.command.split())
    if len(command) > 60:
        command = command[:57] + "..."
    return f'{spec.event} hook "{command}"'


def is_ignored_text(spec: HookSpec, run: HookRun) -> bool:
    """Whether a successful hook printed plain text that its event ignores."""
    text = run.stdout.strip()
    return (
        run.failure is None
        and run.exit_code == 0
        and bool(text)
        and spec.event not in PLAIN_STDOUT_IS_CONTEXT
        and _json_object(text) is None
        and text[0] not in "{["
    )


def _read_stdout(spec: HookSpec, stdout: str, label: str) -> HookOutcome:
    text = stdout.strip()
    if not text:
        return HookOutcome()
    data = _json_object(text)
    if data is not None:
        try:
            return _decision(spec.event, data, label)
        except _BadOutput as e:
            return failed(spec, f"{label} printed invalid hook output: {e}")
    if spec.event in PLAIN_STDOUT_IS_CONTEXT:
        return HookOutcome(additional_context=(text,), plain_context=(text,))
    if text[0] in "{[":
        return failed(spec, f"{label} printed output that is not a JSON object: {_excerpt(text)}")
    return HookOutcome()


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        # Bounded: a deeply nested answer would make the parser recurse past Python's limit.
        data = bounded_json.loads(text)
    except ValueError:
        return None
    return cast(dict[str, Any], data) if isinstance(data, dict) else None


class _BadOutput(ValueError):
    pass


def _decision(event: HookEventName, data: dict[str, Any], label: str) -> HookOutcome:
    """Read the JSON output fields Claude Code defines; unknown fields are ignored."""
    keep_going = _field(data, "continue", bool)
    stop_reason = _field(data, "stopReason", str)
    system_message = _field(data, "systemMessage", str)
    _field(data, "suppressOutput", bool)
    decision = _field(data, "decision", str)
    reason = _field(data, "reason", str)
    specific = _field(data, "hookSpecificOutput", dict)

    blocked = False
    permission: PermissionDecision | None = None
    updated: dict[str, Any] | None = None
    contexts: list[str] = []
    messages = [system_message] if system_message else []
    stop = keep_going is False
    errors: list[str] = []
    output: UpdatedOutput | None = None
    action: ElicitAction | None = None
    content: dict[str, Any] | None = None
    retry = False

    if decision == "block":
        blocked = True
        if event == "PreToolUse":
            permission = "deny"
    elif decision == "approve":
        # The older PreToolUse spelling of "allow"; elsewhere it never meant anything.
        if event == "PreToolUse":
            permission = "allow"
    elif decision is not None:
        raise _BadOutput(f'"decision" must be "block", not {decision!r}')

    if specific is not None:
        specific = cast(dict[str, Any], specific)
        named = specific.get("hookEventName")
        if named is not None and named != event:
            raise _BadOutput(f"hookSpecificOutput.hookEventName is {named!r}, not {event!r}")
        unapplied = sorted(
            set(specific) - APPLIED_FIELDS.get(event, frozenset()) - {"hookEventName"}
        )
        if unapplied:
            # Loud, not silent: a redaction or a title the hook counts on would not happen.
            # The rest of the answer still applies.
            names = ", ".join(f"hookSpecificOutput.{name}" for name in unapplied)
            errors.append(
                f"{label} answered {names}, which tether does not apply to {event}; ignored"
            )
        context = _field(specific, "additionalContext", str, "hookSpecificOutput.")
        if context and "additionalContext" in APPLIED_FIELDS.get(event, frozenset()):
            contexts.append(context)
        if event == "PreToolUse":
            permission = _permission(specific) or permission
            explained = _field(specific, "permissionDecisionReason", str, "hookSpecificOutput.")
            updated = _field(specific, "updatedInput", dict, "hookSpecificOutput.")
            if permission == "deny":
                blocked = True
                reason = explained or reason
            elif permission == "ask" and explained:
                messages.append(explained)
        elif event == "PostToolUse":
            output = _updated_output(specific)
        elif event == "PermissionRequest":
            permission, updated, reason, interrupt = _permission_request(specific, reason)
            blocked = blocked or permission == "deny"
            stop = stop or interrupt
        elif event in ("Elicitation", "ElicitationResult"):
            action, content = _elicitation(specific)
        elif event == "PermissionDenied":
            retry = _field(specific, "retry", bool, "hookSpecificOutput.") is True

    return HookOutcome(
        blocked=blocked,
        reason=(reason or f"blocked by {label}") if blocked else None,
        permission_decision=permission,
        updated_input=updated,
        additional_context=tuple(contexts),
        system_messages=tuple(messages),
        stop=stop,
        stop_reason=stop_reason if stop else None,
        updated_output=output,
        elicit_action=action,
        elicit_content=content,
        errors=tuple(errors),
        retry=retry,
    )


def _updated_output(specific: dict[str, Any]) -> UpdatedOutput | None:
    """PostToolUse's replacement of the output the model reads: `updatedToolOutput` (any
    tool) over `updatedMCPToolOutput` (MCP tools only), as Claude Code; how a value reads to
    the model is the gate's to judge, by the tool it replaces."""
    for key in ("updatedToolOutput", "updatedMCPToolOutput"):
        if specific.get(key) is not None:
            return UpdatedOutput(field=key, value=specific[key])
    return None


def _permission(specific: dict[str, Any]) -> PermissionDecision | None:
    value = _field(specific, "permissionDecision", str, "hookSpecificOutput.")
    if value is None:
        return None
    if value not in ("allow", "deny", "ask"):
        raise _BadOutput(
            f'hookSpecificOutput.permissionDecision must be "allow", "deny" or "ask", not {value!r}'
        )
    return value


def _permission_request(
    specific: dict[str, Any], reason: str | None
) -> tuple[PermissionDecision | None, dict[str, Any] | None, str | None, bool]:
    """PermissionRequest's `decision: {behavior, updatedInput, message, interrupt}`."""
    decision = _field(specific, "decision", dict, "hookSpecificOutput.")
    if decision is None:
        return None, None, reason, False
    decision = cast(dict[str, Any], decision)
    prefix = "hookSpecificOutput.decision."
    behavior = _field(decision, "behavior", str, prefix)
    if behavior not in ("allow", "deny"):
        raise _BadOutput(f'{prefix}behavior must be "allow" or "deny", not {behavior!r}')
    updated = _field(decision, "updatedInput", dict, prefix)
    message = _field(decision, "message", str, prefix)
    interrupt = _field(decision, "interrupt", bool, prefix) or False
    return cast(PermissionDecision, behavior), updated, message or reason, interrupt


def _field(data: dict[str, Any], key: str, kind: type[_T], prefix: str = "") -> _T | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, kind):
        expected = _EXPECTED.get(kind, kind.__name__)
        raise _BadOutput(f'"{prefix}{key}" must be {expected}, not {json.dumps(value)[:80]}')
    return value


def _stderr_note(stderr: str) -> str:
    text = stderr.strip()
    return f": {_excerpt(text)}" if text else ""


def _excerpt(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _EXCERPT_CHARS else text[: _EXCERPT_CHARS - 3] + "..."


ELICIT_ACTIONS: tuple[ElicitAction, ...] = ("accept", "decline", "cancel")


def _elicitation(specific: dict[str, Any]) -> tuple[ElicitAction | None, dict[str, Any] | None]:
    """An Elicitation or ElicitationResult hook's answer: `action`, and `content` (the form's
    values) for accept."""
    action = _field(specific, "action", str, "hookSpecificOutput.")
    content = _field(specific, "content", dict, "hookSpecificOutput.")
    if action is not None and action not in ELICIT_ACTIONS:
        expected = ", ".join(f'"{a}"' for a in ELICIT_ACTIONS)
        raise _BadOutput(f"hookSpecificOutput.action must be {expected}, not {action!r}")
    if action != "accept":
        content = None  # the form's values go with accept only (as the MCP answer takes them)
    return action, cast(dict[str, Any] | None, content)
