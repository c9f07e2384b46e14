"""Hooks: the in-process event bus and its built-in handlers, and external command hooks with
Claude Code's contract (JSON on stdin, exit codes, JSON decisions on stdout)."""

from tether.hooks.builtin import BuiltinHandlers, BuiltinSettings, builtin_handlers
from tether.hooks.bus import ALL, EventBus
from tether.hooks.config import HooksConfig, client_hooks, parse_hooks, read_hooks
from tether.hooks.runner import CallbackFailed, HookCallback, HookRunner, combine
from tether.hooks.spec import (
    HOOK_EVENTS,
    HookActivity,
    HookEventName,
    HookOutcome,
    HookSpec,
    PermissionDecision,
    UpdatedOutput,
)

__all__ = [
    "ALL",
    "HOOK_EVENTS",
    "BuiltinHandlers",
    "BuiltinSettings",
    "CallbackFailed",
    "EventBus",
    "HookActivity",
    "HookCallback",
    "HookEventName",
    "HookOutcome",
    "HookRunner",
    "HookSpec",
    "HooksConfig",
    "PermissionDecision",
    "UpdatedOutput",
    "builtin_handlers",
    "client_hooks",
    "combine",
    "parse_hooks",
    "read_hooks",
]
