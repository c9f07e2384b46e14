"""Hooks: the in-process event bus and its built-in handlers, and external command hooks with
Claude Code's contract (JSON on stdin, exit codes, JSON decisions on stdout)."""

from tether.hooks.builtin import BuiltinHandlers, BuiltinSettings, builtin_handlers
from tether.hooks.bus import ALL, EventBus
from tether.hooks.config import HooksConfig, parse_hooks, read_hooks
from tether.hooks.runner import HookRunner, combine
from tether.hooks.spec import (
    HOOK_EVENTS,
    HookEventName,
    HookOutcome,
    HookSpec,
    PermissionDecision,
)

__all__ = [
    "ALL",
    "HOOK_EVENTS",
    "BuiltinHandlers",
    "BuiltinSettings",
    "EventBus",
    "HookEventName",
    "HookOutcome",
    "HookRunner",
    "HookSpec",
    "HooksConfig",
    "PermissionDecision",
    "builtin_handlers",
    "combine",
    "parse_hooks",
    "read_hooks",
]
