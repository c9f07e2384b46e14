"""Firing an event: pick the matching hooks, run them in parallel, combine what they decided."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import os
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from tether.hooks.command import Background, HookRun, run_command
from tether.hooks.http_hook import run_http
from tether.hooks.judged import HookJudge, run_judged
from tether.hooks.late import LateOutput
from tether.hooks.matcher import file_names, matches
from tether.hooks.output import outcome_of
from tether.hooks.spec import (
    ENV_FILE_EVENTS,
    MATCH_FIELDS,
    HookActivity,
    HookEventName,
    HookOutcome,
    HookSpec,
    PermissionDecision,
)
from tether.protocol.tool_names import claude_code_name, tool_spellings
from tether.slotted import replaced

PERMISSION_ORDER: tuple[PermissionDecision, ...] = ("deny", "ask", "allow")
"""Strongest first: what several hooks' permission decisions combine to."""

EFFORT_EVENTS = frozenset(
    {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "Stop", "SubagentStop"}
)
"""The events whose input carries `effort`, as Claude Code's do: those of a tool call or a stop,
not the session's own (SessionStart, UserPromptSubmit, PreCompact...)."""

MODE_EVENTS = frozenset(
    {
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PostToolBatch",
        "PermissionRequest",
        "PermissionDenied",
        "Stop",
        "SubagentStop",
        "UserPromptSubmit",
        "UserPromptExpansion",
        "Elicitation",
        "ElicitationResult",
        "TaskCreated",
        "TaskCompleted",
        "TeammateIdle",
    }
)
"""The events whose input carries `permission_mode`, as Claude Code's do: those that act within
a turn under a mode. The session's own (SessionStart, SessionEnd, PreCompact, PostCompact,
Notification, SubagentStart, StopFailure, the file and config events) carry none."""

HookCallback = Callable[[str, dict[str, Any], str | None], Awaitable[dict[str, Any]]]
"""Runs a client's hook callback: (callback id, hook input, tool use id) -> the hook's output
as a JSON object; raises `CallbackFailed` when the client reports a failure."""


class CallbackFailed(Exception):
    """A client's hook callback failed; the message is the client's."""


class HookRunner:
    """The configured command hooks of one session."""

    def __init__(
        self,
        specs: Sequence[HookSpec],
        *,
        session_id: str,
        transcript_path: str,
        cwd: Path,
        project_dir: Path,
        permission_mode: Callable[[], str],
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.specs = tuple(specs)
        self._session_id = session_id
        self._transcript_path = transcript_path
        self._cwd = cwd
        self._current_cwd: Callable[[], Path] | None = None
        self._permission_mode = permission_mode
        self.env: Mapping[str, str] = {
            **(os.environ if env is None else env),
            "CLAUDE_PROJECT_DIR": str(project_dir),
            "TETHER_PROJECT_DIR": str(project_dir),
        }
        self.background_tasks: Callable[[], list[dict[str, Any]]] = list
        """What runs in the background (Claude Code's summaries), for Stop and SubagentStop
        inputs; shared with subagents' runners (the session's, as Claude Code scopes it)."""
        self.judge: HookJudge | None = None
        """Runs prompt and agent hooks (a model call, a subagent); without one they fail."""
        self.callback: HookCallback | None = None
        """Runs callback hooks (those an SDK client registered); without one they fail."""
        self.watchers: list[Callable[[HookActivity], None]] = []
        """Told of every hook as it starts and as it ends."""
        self.env_file: Path | None = None
        """Given to SessionStart, Setup, CwdChanged and FileChanged hooks as `CLAUDE_ENV_FILE`
        (see `tether.hooks.env_file`)."""
        self.background = Background()
        """Hooks that went on in the background (`async`); shared with subagents' runners,
        stopped by `aclose`."""
        self.late = LateOutput()
        """What those hooks said once they ended, for the model (shared as `background`)."""
        self.effort: Callable[[], str | None] = lambda: None
        """The effort level the session's requests carry now (after any downgrade for the
        model; None: none), given as Claude Code's `effort` to the hooks of a tool call or a
        stop (`EFFORT_EVENTS`)."""
        self.prompt_id: str | None = None
        """The user prompt under way (a UUID), given to every hook until the next one, as
        Claude Code's `prompt_id`: a hook's output can be joined to the prompt it served."""

    @property
    def cwd(self) -> Path:
        """Where hooks run, and the `cwd` of their input: the session's current directory
        (`follow_cwd`), as Claude Code's hooks see it after a `cd` in Bash; the directory
        given at the start while it is not a directory any more."""
        if self._current_cwd is not None:
            current = self._current_cwd()
            if current.is_dir():
                return current
        return self._cwd

    def follow_cwd(self, current: Callable[[], Path]) -> None:
        """Take the session's current directory from `current` from now on."""
        self._current_cwd = current

    def with_specs(self, specs: Sequence[HookSpec]) -> HookRunner:
        """A runner for a subagent: these hooks and `specs` after them; the rest shared (who
        watches, who judges, the environment)."""
        runner = copy.copy(self)
        runner.specs = (*self.specs, *specs)
        return runner

    def has(self, event: HookEventName) -> bool:
        """Whether any hook is configured for `event` (to skip building its payload)."""
        return any(spec.event == event for spec in self.specs)

    def matching(
        self, event: HookEventName, payload: Mapping[str, Any], match: str | None = None
    ) -> tuple[HookSpec, ...]:
        """The hooks that run for this event, in configuration order. The subject matchers are
        compared with is `match`, else the event's usual payload field (`tool_name`, `source`,
        `trigger`...); a tool by any of its names (`tether.protocol.tool_names`). The same
        command configured twice (say in user and project settings) runs once, fail-closed if
        either says so."""
        field = MATCH_FIELDS.get(event)
        if match is None and field is not None:
            value = payload.get(field)
            match = value if isinstance(value, str) else None
        # A tool is matched by any of its names: `Agent` (Claude Code's) matches tether's Task.
        subjects = tool_spellings(match) if field == "tool_name" and match else (match,)
        chosen: dict[str, HookSpec] = {}
        for spec in self.specs:
            if spec.event != event:
                continue
            if event == "FileChanged":
                if match not in file_names(spec.matcher):
                    continue
            elif field is not None and not any(matches(spec.matcher, s) for s in subjects):
                continue
            first = chosen.setdefault(spec.key, spec)
            if spec.fail_closed and not first.fail_closed:
                chosen[spec.key] = dataclasses.replace(first, fail_closed=True)
        return tuple(chosen.values())

    def hook_input(self, event: HookEventName, payload: Mapping[str, Any]) -> dict[str, Any]:
        """The JSON object a hook reads on stdin; a tool is named as Claude Code names it
        (`Agent` for tether's Task), as a hook written for Claude Code tests it."""
        prompt = {"prompt_id": self.prompt_id} if self.prompt_id is not None else {}
        return {
            "session_id": self._session_id,
            "transcript_path": self._transcript_path,
            "cwd": str(self.cwd),
            **prompt,
            **({"permission_mode": self._permission_mode()} if event in MODE_EVENTS else {}),
            "hook_event_name": event,
            **_named_as_claude_code(payload),
            **(self._in_flight() if event in ("Stop", "SubagentStop") else {}),
            **self._effort(event),
        }

    def _effort(self, event: HookEventName) -> dict[str, Any]:
        level = self.effort() if event in EFFORT_EVENTS else None
        return {"effort": {"level": level}} if level is not None else {}

    def _in_flight(self) -> dict[str, Any]:
        # tether schedules no wakeups (Claude Code's session crons): always none.
        return {"background_tasks": self.background_tasks(), "session_crons": []}

    async def fire(
        self, event: HookEventName, payload: Mapping[str, Any], *, match: str | None = None
    ) -> HookOutcome:
        """Run every matching hook at once and combine their outcomes (see `combine`). A
        cancellation stops every hook's process group."""
        specs = self.matching(event, payload, match)
        if not specs:
            return HookOutcome()
        stdin = self.encode_input(event, payload)
        field = MATCH_FIELDS.get(event)
        subject = match if match is not None else payload.get(field) if field else None
        async with asyncio.TaskGroup() as group:
            tasks = [
                group.create_task(
                    self._watched(spec, stdin, subject if isinstance(subject, str) else None)
                )
                for spec in specs
            ]
        outcome = combine(event, [task.result() for task in tasks])
        if outcome.system_messages:
            said_by = f"{event}:{subject}" if isinstance(subject, str) and subject else event
            outcome = replaced(outcome, said_by=said_by)
        return outcome

    async def _watched(self, spec: HookSpec, stdin: bytes, subject: str | None) -> HookOutcome:
        """Run one hook, telling the watchers as it starts and ends (one that went on in the
        background ends when its process does)."""
        hook_id = str(uuid.uuid4())

        def landed(run: HookRun) -> None:
            self.late.landed(spec, run)
            self._ended(hook_id, spec, subject, run)

        if not self.watchers:
            return outcome_of(spec, await self.run(spec, stdin, landed=landed))
        self._tell(HookActivity(hook_id, spec, subject))
        run = await self.run(spec, stdin, landed=landed)
        if run.backgrounded:
            return outcome_of(spec, run)
        return self._ended(hook_id, spec, subject, run)

    def _ended(
        self, hook_id: str, spec: HookSpec, subject: str | None, run: HookRun
    ) -> HookOutcome:
        outcome = outcome_of(spec, run)
        self._tell(
            HookActivity(hook_id, spec, subject, outcome, run.exit_code, run.stdout, run.stderr)
        )
        return outcome

    def _tell(self, activity: HookActivity) -> None:
        for watch in self.watchers:
            watch(activity)

    def encode_input(self, event: HookEventName, payload: Mapping[str, Any]) -> bytes:
        # default=str: a Path or similar in a payload must not cost the user their hooks.
        text = json.dumps(self.hook_input(event, payload), ensure_ascii=False, default=str)
        return text.encode("utf-8")

    async def run(
        self,
        spec: HookSpec,
        stdin: bytes,
        *,
        background: bool = True,
        landed: Callable[[HookRun], None] | None = None,
    ) -> HookRun:
        """Run one hook with an encoded input (`tether hooks check` runs them one by one, and
        waits for each: `background=False` lets none go on in the background). One that goes
        on in the background is given to `landed` once it ends."""
        if spec.callback_id is not None:
            return await self._call_back(spec, spec.callback_id, stdin)
        if spec.prompt is not None:
            return await run_judged(spec, stdin, self.judge)
        if spec.url is not None:
            return await run_http(spec, stdin, self.env)
        env = {**self.env, **dict(spec.env)} if spec.env else self.env
        if spec.event in ENV_FILE_EVENTS and self.env_file is not None:
            self.env_file.parent.mkdir(parents=True, exist_ok=True)
            env = {**env, "CLAUDE_ENV_FILE": str(self.env_file)}
        return await run_command(
            spec.command,
            stdin,
            cwd=self.cwd,
            env=env,
            timeout_s=spec.timeout_s,
            background=self.background if background else None,
            detach=spec.run_async,
            landed=landed,
        )

    async def aclose(self) -> None:
        """Stop the hooks still running in the background."""
        await self.background.aclose()

    async def _call_back(self, spec: HookSpec, callback_id: str, stdin: bytes) -> HookRun:
        """A callback hook, as if it were a command: its answer is the JSON it printed, a
        failure or a timeout is a hook that did not run to a normal exit."""
        if self.callback is None:
            return HookRun(None, "", "", "could not run: no client to call back")
        hook_input = cast(dict[str, Any], json.loads(stdin))
        tool_use_id = hook_input.get("tool_use_id")
        try:
            async with asyncio.timeout(spec.timeout_s):
                answer = await self.callback(
                    callback_id, hook_input, tool_use_id if isinstance(tool_use_id, str) else None
                )
        except TimeoutError:
            return HookRun(None, "", "", f"timed out after {spec.timeout_s:g} s", timed_out=True)
        except CallbackFailed as e:
            return HookRun(None, "", "", f"failed in the client: {e}")
        return HookRun(0, json.dumps(answer, ensure_ascii=False), "")


def combine(event: HookEventName, outcomes: Sequence[HookOutcome]) -> HookOutcome:
    """One outcome from many, in configuration order: any block blocks (`_block_reason`); deny
    beats ask beats allow, and a block of a tool call is a deny; the last `updated_input` wins;
    contexts, messages and errors are concatenated; any stop stops."""
    blocked = any(o.blocked for o in outcomes)
    decisions = {o.permission_decision for o in outcomes}
    permission: PermissionDecision | None = None
    for strongest in PERMISSION_ORDER:
        if strongest in decisions:
            permission = strongest
            break
    if blocked and event in ("PreToolUse", "PermissionRequest"):
        permission = "deny"
    updated = [o.updated_input for o in outcomes if o.updated_input is not None]
    outputs = [o.updated_output for o in outcomes if o.updated_output is not None]
    answers = [o for o in outcomes if o.elicit_action is not None]
    stopped = [o for o in outcomes if o.stop]
    return HookOutcome(
        blocked=blocked,
        reason=_block_reason(event, outcomes),
        permission_decision=permission,
        updated_input=updated[-1] if updated else None,
        additional_context=tuple(c for o in outcomes for c in o.additional_context),
        plain_context=tuple(c for o in outcomes for c in o.plain_context),
        system_messages=tuple(m for o in outcomes for m in o.system_messages),
        stop=bool(stopped),
        stop_reason=_joined(o.stop_reason for o in stopped),
        errors=tuple(e for o in outcomes for e in o.errors),
        updated_output=outputs[-1] if outputs else None,
        elicit_action=answers[-1].elicit_action if answers else None,
        elicit_content=answers[-1].elicit_content if answers else None,
        retry=any(o.retry for o in outcomes),
    )


def _block_reason(event: HookEventName, outcomes: Sequence[HookOutcome]) -> str | None:
    """Why the hooks blocked. A tool call's: the last blocking hook's reason alone, in
    configuration order, as Claude Code tells it (measured: of two hooks that exit 2 it
    names the second); other events' reasons are joined by newlines."""
    reasons = [o.reason for o in outcomes if o.blocked and o.reason]
    if event == "PreToolUse" and reasons:
        return reasons[-1]
    return _joined(reasons)


def _joined(texts: Iterable[str | None]) -> str | None:
    parts = [t for t in texts if t]
    return "\n".join(parts) if parts else None


def _named_as_claude_code(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    """`payload` with its `tool_name`, and each of its `tool_calls`' (PostToolBatch), the name
    Claude Code gives the tool."""
    named = dict(payload)
    if isinstance(tool := payload.get("tool_name"), str):
        named["tool_name"] = claude_code_name(tool)
    calls: object = payload.get("tool_calls")
    if isinstance(calls, list):
        named["tool_calls"] = [
            {**call, "tool_name": claude_code_name(call["tool_name"])}
            if isinstance(call, dict) and isinstance(call.get("tool_name"), str)
            else call
            for call in cast(list[Any], calls)
        ]
    return named
