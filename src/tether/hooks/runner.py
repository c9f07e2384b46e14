"""Firing an event: pick the matching hooks, run them in parallel, combine what they decided."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tether.hooks.command import HookRun, run_command
from tether.hooks.matcher import matches
from tether.hooks.output import outcome_of
from tether.hooks.spec import (
    MATCH_FIELDS,
    HookEventName,
    HookOutcome,
    HookSpec,
    PermissionDecision,
)

PERMISSION_ORDER: tuple[PermissionDecision, ...] = ("deny", "ask", "allow")
"""Strongest first: what several hooks' permission decisions combine to."""


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
        self.cwd = cwd
        self._permission_mode = permission_mode
        self.env: Mapping[str, str] = {
            **(os.environ if env is None else env),
            "CLAUDE_PROJECT_DIR": str(project_dir),
            "TETHER_PROJECT_DIR": str(project_dir),
        }

    def has(self, event: HookEventName) -> bool:
        """Whether any hook is configured for `event` (to skip building its payload)."""
        return any(spec.event == event for spec in self.specs)

    def matching(
        self, event: HookEventName, payload: Mapping[str, Any], match: str | None = None
    ) -> tuple[HookSpec, ...]:
        """The hooks that run for this event, in configuration order. The subject matchers are
        compared with is `match`, else the event's usual payload field (`tool_name`, `source`,
        `trigger`...). The same command configured twice (say in user and project settings)
        runs once, fail-closed if either says so."""
        field = MATCH_FIELDS.get(event)
        if match is None and field is not None:
            value = payload.get(field)
            match = value if isinstance(value, str) else None
        chosen: dict[str, HookSpec] = {}
        for spec in self.specs:
            if spec.event != event or (field is not None and not matches(spec.matcher, match)):
                continue
            first = chosen.setdefault(spec.command, spec)
            if spec.fail_closed and not first.fail_closed:
                chosen[spec.command] = dataclasses.replace(first, fail_closed=True)
        return tuple(chosen.values())

    def hook_input(self, event: HookEventName, payload: Mapping[str, Any]) -> dict[str, Any]:
        """The JSON object a hook reads on stdin."""
        return {
            "session_id": self._session_id,
            "transcript_path": self._transcript_path,
            "cwd": str(self.cwd),
            "permission_mode": self._permission_mode(),
            "hook_event_name": event,
            **payload,
        }

    async def fire(
        self, event: HookEventName, payload: Mapping[str, Any], *, match: str | None = None
    ) -> HookOutcome:
        """Run every matching hook at once and combine their outcomes (see `combine`). A
        cancellation stops every hook's process group."""
        specs = self.matching(event, payload, match)
        if not specs:
            return HookOutcome()
        stdin = self.encode_input(event, payload)
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(self.run(spec, stdin)) for spec in specs]
        runs = [task.result() for task in tasks]
        return combine(event, [outcome_of(s, r) for s, r in zip(specs, runs, strict=True)])

    def encode_input(self, event: HookEventName, payload: Mapping[str, Any]) -> bytes:
        # default=str: a Path or similar in a payload must not cost the user their hooks.
        text = json.dumps(self.hook_input(event, payload), ensure_ascii=False, default=str)
        return text.encode("utf-8")

    async def run(self, spec: HookSpec, stdin: bytes) -> HookRun:
        """Run one hook with an encoded input (`tether hooks check` runs them one by one)."""
        return await run_command(
            spec.command, stdin, cwd=self.cwd, env=self.env, timeout_s=spec.timeout_s
        )


def combine(event: HookEventName, outcomes: Sequence[HookOutcome]) -> HookOutcome:
    """One outcome from many, in configuration order: any block blocks (reasons joined by
    newlines); deny beats ask beats allow, and a block of a tool call is a deny; the last
    `updated_input` wins; contexts, messages and errors are concatenated; any stop stops."""
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
    stopped = [o for o in outcomes if o.stop]
    return HookOutcome(
        blocked=blocked,
        reason=_joined(o.reason for o in outcomes if o.blocked),
        permission_decision=permission,
        updated_input=updated[-1] if updated else None,
        additional_context=tuple(c for o in outcomes for c in o.additional_context),
        system_messages=tuple(m for o in outcomes for m in o.system_messages),
        stop=bool(stopped),
        stop_reason=_joined(o.stop_reason for o in stopped),
        errors=tuple(e for o in outcomes for e in o.errors),
    )


def _joined(texts: Iterable[str | None]) -> str | None:
    parts = [t for t in texts if t]
    return "\n".join(parts) if parts else None
