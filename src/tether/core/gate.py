"""Whether a tool call may run: PreToolUse hooks, then the permission rules, then the user.

The loop asks the gate before each call and tells it after; the gate never runs a tool itself.
A deny from the settings is final: neither a hook's "allow" nor the user can override it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import tether.permissions as policy
from tether.core.denied_hooks import tell_denied
from tether.core.gate_after import post_batch_hooks, post_tool_hooks
from tether.core.gate_types import Approval, Asker, Precheck, RuleSources, denied_text
from tether.core.gate_types import pre_hook_words as _pre_hook_words
from tether.core.gate_updates import apply_changes, with_rule_edited
from tether.core.lifecycle import surface
from tether.core.permission_race import first_decision
from tether.hooks import HookOutcome, HookSpec
from tether.permissions import (
    Decision,
    Mode,
    PermissionContext,
    RuleKind,
    load_rules,
)
from tether.protocol import (
    DenialSource,
    Event,
    Notice,
    PermissionAsked,
    PermissionChange,
    PermissionDenial,
    ToolResultBlock,
    ToolUseBlock,
)
from tether.slotted import replaced
from tether.tools.registry import ToolOutcome

if TYPE_CHECKING:
    from tether.hooks import HookRunner


@dataclass
class ToolGate:
    permissions: PermissionContext
    sources: RuleSources = field(default_factory=RuleSources)
    hooks: HookRunner | None = None
    remember: Callable[[str], None] | None = None
    """Persists an 'always allow' rule (to the project's local settings file)."""
    remembered: list[str] = field(default_factory=list[str])
    """The rules `remember` kept in this session (listed as the project's, not the session's)."""
    shell_cwd: Callable[[], Path] | None = None
    """Where the next Bash command starts: relative paths in it are judged from there."""
    subagent: dict[str, str] = field(default_factory=dict[str, str])
    """In a subagent's gate: its `agent_id` and `agent_type`, given to its tool hooks so
    they can tell whose call it is."""
    plan_exit: str | None = None
    """How this session leaves plan mode, added to a plan-mode denial (a teammate's: its
    plan to the lead, as a plan_approval_request)."""
    read_only_as: str | None = None
    """What this session is when it only reads for good (a read-only agent type's teammate,
    "a read-only Explore agent"): its denials say so, not plan mode, which it is not in."""
    keep_rule: Callable[[RuleKind, str], None] | None = None
    """Persists a rule a client's permission update asks to keep (as 'always allow' answers
    are kept)."""
    parent: ToolGate | None = None
    """In a subagent's gate: the gate of the agent that started it."""
    notify_on_ask: bool = True
    """A person is asked: PermissionRequest hooks fire, then Notification hooks, before the
    question. False when a program answers (the SDK's): it is asked while those hooks fire."""
    _turn_grants: list[str] = field(default_factory=list[str])
    _bash_context: tuple[Path, PermissionContext, PermissionContext] | None = None

    async def authorize(
        self,
        call: ToolUseBlock,
        emit: Callable[[Event], None],
        ask: Asker | None,
        *,
        precheck: Precheck | None = None,
    ) -> Approval:
        """Hooks, then the rules, then the user; `precheck` runs before the user is asked, so
        that a call which could not run anyway is answered with its error instead."""
        tool_input = dict(call.input)
        hook = HookOutcome()
        if self.hooks is not None and self.hooks.has("PreToolUse"):
            hook = await self.hooks.fire(
                "PreToolUse",
                {
                    **self.subagent,
                    "tool_name": call.name,
                    "tool_input": tool_input,
                    "tool_use_id": call.id,
                },
                match=call.name,
            )
            surface(hook, emit)
            if hook.updated_input is not None:
                tool_input = dict(hook.updated_input)
            if hook.blocked or hook.permission_decision == "deny":
                reason = hook.reason or "a PreToolUse hook blocked this call"
                said = f"PreToolUse:{call.name} hook error: {reason}"  # Claude Code's words
                denied = self._deny(call, tool_input, said, "hook")
                return replaced(denied, **_pre_hook_words(call, hook))
        approval = await self._decide(call, tool_input, hook, emit, ask, precheck)
        approval = await tell_denied(self.hooks, self.subagent, call, approval, emit)
        return replaced(approval, **_pre_hook_words(call, hook))

    async def _decide(
        self,
        call: ToolUseBlock,
        tool_input: dict[str, Any],
        hook: HookOutcome,
        emit: Callable[[Event], None],
        ask: Asker | None,
        precheck: Precheck | None,
    ) -> Approval:
        decision = policy.decide(call.name, tool_input, self._context_for(call.name))
        if decision.behavior == "deny" and decision.plan_mode and ask is not None:
            # Plan mode asks whoever can answer (Claude Code's contract), rather than refusing.
            problem = precheck(tool_input) if precheck is not None else None
            if problem is not None:
                return Approval(False, tool_input, problem)
            return await self._ask(call, tool_input, decision, emit, ask)
        if decision.behavior == "deny":
            by: DenialSource = "rule" if decision.rule else "mode"
            said = denied_text(decision)
            if decision.plan_mode and self.read_only_as:
                said = (
                    f"Permission denied: {self.read_only_as} runs only read-only tools "
                    f"({call.name} is not)"
                )
            if decision.plan_mode and self.plan_exit:
                said = f"{said}. {self.plan_exit}"
            return self._deny(call, tool_input, said, by)
        if decision.behavior == "allow" and hook.permission_decision != "ask":
            return Approval(True, tool_input)
        if hook.permission_decision == "allow":
            return Approval(True, tool_input)
        problem = precheck(tool_input) if precheck is not None else None
        if problem is not None:
            return Approval(False, tool_input, problem)
        return await self._ask(call, tool_input, decision, emit, ask)

    async def _ask(
        self,
        call: ToolUseBlock,
        tool_input: dict[str, Any],
        decision: Decision,
        emit: Callable[[Event], None],
        ask: Asker | None,
    ) -> Approval:
        if self.permissions.mode == "dontAsk":
            why = "not allowed by any rule (dontAsk mode)"
            message = f"Permission denied: {why}: {decision.reason}"
            return self._deny(call, tool_input, message, "mode")
        suggestion = (
            None
            if decision.plan_mode
            else policy.suggest_rule(call.name, tool_input, self.permissions)
        )
        offered = (
            []
            if decision.plan_mode
            else policy.permission_suggestions(
                call.name, tool_input, self._context_for(call.name), suggestion
            )
        )
        if ask is None or self.notify_on_ask:
            answered = await self._permission_hooks(call, tool_input, offered, emit)
            if answered is not None:
                return answered
        if ask is None:
            why = "not allowed without asking, and nobody can be asked here"
            message = f"Permission denied: {why}: {decision.reason}"
            return self._deny(call, tool_input, message, "mode")
        request = PermissionAsked(
            request_id=uuid.uuid4().hex[:12],
            call_id=call.id,
            tool=call.name,
            input=tool_input,
            reason=decision.reason,
            suggestion=suggestion,
            suggestions=offered,
            by_mode=decision.plan_mode,
        )
        if self.notify_on_ask and self.hooks is not None and self.hooks.has("Notification"):
            surface(
                await self.hooks.fire(
                    "Notification",
                    {
                        "message": f"tether needs your permission to use {call.name}",
                        "notification_type": "permission_prompt",
                    },
                ),
                emit,
            )
        if self.notify_on_ask or self.hooks is None or not self.hooks.has("PermissionRequest"):
            answer = await ask(request)
        else:  # a program answers: asked while the hooks fire (see `permission_race`)
            hooks = self._permission_hooks(call, tool_input, offered, emit)
            answer = await first_decision(ask(request), hooks)
            if isinstance(answer, Approval):
                return answer
        if answer.choice == "deny":
            extra = f": {answer.message}" if answer.message else ""
            said = answer.message if answer.message_whole and answer.message else None
            return self._deny(call, tool_input, said or f"The user denied this call{extra}", "user")
        if answer.choice == "allow_always" and request.suggestion:
            self.allow_always(request.suggestion)
        if answer.changes:
            self.apply_changes(answer.changes, emit)
        if answer.updated_input is not None and dict(answer.updated_input) != tool_input:
            # An SDK client sends the input back even when it keeps it: only a change counts.
            return Approval(True, dict(answer.updated_input), user_modified=True)
        return Approval(True, tool_input)

    async def _permission_hooks(
        self,
        call: ToolUseBlock,
        tool_input: dict[str, Any],
        offered: list[dict[str, Any]],
        emit: Callable[[Event], None],
    ) -> Approval | None:
        """PermissionRequest hooks, fired where the user would be asked: their allow (with
        the input to use) or deny answers the question in the user's place; None when they
        leave it to the user."""
        if self.hooks is None or not self.hooks.has("PermissionRequest"):
            return None
        payload = {
            **self.subagent,
            "tool_name": call.name,
            "tool_input": tool_input,
            "permission_suggestions": offered,
        }
        hook = await self.hooks.fire("PermissionRequest", payload, match=call.name)
        surface(hook, emit)
        if hook.permission_decision == "deny":
            reason = hook.reason or "a PermissionRequest hook denied this call"
            return self._deny(call, tool_input, f"Denied by hook: {reason}", "hook")
        if hook.permission_decision == "allow":
            updated = hook.updated_input
            return Approval(True, dict(updated) if updated is not None else tool_input)
        return None

    def _context_for(self, tool: str) -> PermissionContext:
        """Bash paths are judged from the shell's directory; the context for it is rebuilt only
        when that directory or the rules change, not on every call."""
        if self.shell_cwd is None or tool != "Bash":
            return self.permissions
        cwd = self.shell_cwd()
        cached = self._bash_context
        if cached is None or cached[0] != cwd or cached[1] is not self.permissions:
            cached = (cwd, self.permissions, replace(self.permissions, cwd=cwd))
            self._bash_context = cached
        return cached[2]

    def read_denied(self, path: Path) -> bool:
        """Whether the rules forbid reading `path`: Grep and Glob leave such files out."""
        if not self.permissions.rules.of("deny", "Read"):
            return False
        return policy.decide("Read", {"file_path": str(path)}, self.permissions).behavior == "deny"

    def allow_always(self, rule: str) -> None:
        """Add an allow rule for the rest of the session and, if configured, for good."""
        self.sources.extra_allow.append(rule)
        self._rebuild()
        if self.remember is not None:
            self.remember(rule)
            self.remembered.append(rule)

    def apply_changes(
        self, changes: Sequence[PermissionChange], emit: Callable[[Event], None] | None = None
    ) -> None:
        """A client's permission updates, for the rest of the session (a subagent's answer
        counts for its parent too): rules of any behavior, directories; those for a settings
        file are kept as well."""
        if self.parent is not None:
            self.parent.apply_changes(changes, emit)
        applied = apply_changes(
            self.sources.session,
            self.permissions.additional_dirs,
            changes,
            base=self.permissions.workspace,
        )
        self.permissions = replace(self.permissions, additional_dirs=applied.directories)
        self._rebuild()
        for problem in applied.problems:
            if emit is not None:
                emit(Notice(level="warning", message=problem))
        if self.parent is None:
            for kind, rule in applied.saved:
                if self.keep_rule is not None:
                    self.keep_rule(kind, rule)

    def add_layer(self, path: Path, data: Mapping[str, Any]) -> None:
        """Rules of one more settings layer, for the rest of the session, over the others (a
        client's `apply_flag_settings`); its deny rules are final like any other's."""
        self.sources.layers = (*self.sources.layers, (path, data))
        self._rebuild()

    def edit_rule(self, path: Path, kind: RuleKind, rule: str, *, add: bool) -> None:
        """The user's own edit of one rule of a settings file (`/permissions add|remove`),
        for the rest of the session (see `gate_updates.with_rule_edited`)."""
        self.sources.layers = with_rule_edited(self.sources.layers, path, kind, rule, add=add)
        self._rebuild()

    def set_mode(self, mode: Mode) -> None:
        """Switch the permission mode for the calls that follow."""
        self.permissions = replace(self.permissions, mode=mode)

    def grant_for_turn(self, rules: Sequence[str]) -> None:
        """Allow rules until the turn ends (a skill's `allowed-tools`); deny rules still win."""
        self._turn_grants.extend(r for r in rules if r not in self._turn_grants)
        self._rebuild()

    def for_subagent(
        self,
        *,
        shell_cwd: Callable[[], Path] | None,
        read_only: bool,
        mode: str | None = None,
        agent_id: str = "",
        agent_type: str = "",
        hooks: Sequence[HookSpec] = (),
    ) -> ToolGate:
        """The gate of a subagent started by this gate's agent: the same rules and hooks, and
        `hooks` of its own (its definition's, for its calls only); grants of its own, starting
        from this turn's (they end with the subagent); its own shell directory; plan mode when
        `read_only`, else `mode` (a programmatic agent's own) unless this gate is in plan mode or
        bypasses permissions (as Claude Code: the parent's bypass wins; plan mode is kept). An
        'always allow' answered for one of its calls is added here too (and saved), so it holds
        for the rest of the session."""
        permissions = self.permissions
        if read_only:
            permissions = replace(permissions, mode="plan")
        elif mode is not None and permissions.mode not in ("plan", "bypassPermissions"):
            permissions = replace(permissions, mode=cast(Mode, mode))
        sources = replace(
            self.sources,
            extra_allow=list(self.sources.extra_allow),
            extra_deny=list(self.sources.extra_deny),
            session={kind: list(rules) for kind, rules in self.sources.session.items()},
        )
        return ToolGate(
            permissions=permissions,
            sources=sources,
            hooks=self.hooks.with_specs(hooks) if self.hooks is not None and hooks else self.hooks,
            remember=self.allow_always,
            shell_cwd=shell_cwd,
            subagent={"agent_id": agent_id, "agent_type": agent_type} if agent_id else {},
            parent=self,
            notify_on_ask=self.notify_on_ask,
            _turn_grants=list(self._turn_grants),
        )

    def end_turn(self) -> None:
        if self._turn_grants:
            self._turn_grants.clear()
            self._rebuild()

    def _rebuild(self) -> None:
        rules = load_rules(
            self.sources.layers,
            seed_yaml=self.sources.seed_yaml,
            seed_allow=self.sources.seed_allow,
            extra_allow=[*self.sources.extra_allow, *self._turn_grants],
            extra_deny=self.sources.extra_deny,
            session=self.sources.session,
        )
        self.permissions = replace(self.permissions, rules=rules)

    async def after(
        self, call: ToolUseBlock, outcome: ToolOutcome, emit: Callable[[Event], None]
    ) -> tuple[ToolOutcome, tuple[str, ...]]:
        """PostToolUse / PostToolUseFailure hooks on the call as it ran; returns the outcome
        the model reads (a hook may replace the output) and what they said for the model
        (context, or the reason of a block), kept apart from the result."""
        return await post_tool_hooks(self.hooks, self.subagent, call, outcome, emit)

    async def after_batch(
        self,
        calls: Sequence[ToolUseBlock],
        results: Sequence[ToolResultBlock],
        emit: Callable[[Event], None],
    ) -> tuple[str, ...]:
        """PostToolBatch hooks, once every call of a response is answered, before the next
        model call (see `gate_after.post_batch_hooks`)."""
        return await post_batch_hooks(self.hooks, self.subagent, calls, results, emit)

    def denies(self, call: ToolUseBlock) -> bool:
        """Whether the rules deny the call outright (no hook runs, nobody is asked)."""
        decision = policy.decide(call.name, dict(call.input), self._context_for(call.name))
        return decision.behavior == "deny"

    def _deny(
        self,
        call: ToolUseBlock,
        tool_input: dict[str, Any],
        message: str,
        decided_by: DenialSource,
    ) -> Approval:
        denial = PermissionDenial(
            tool_name=call.name,
            tool_use_id=call.id,
            tool_input=tool_input,
            reason=message,
            decided_by=decided_by,
        )
        return Approval(False, tool_input, message, denial)
