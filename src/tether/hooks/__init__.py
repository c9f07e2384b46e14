"""Hooks: the in-process event bus and its built-in handlers, and external command hooks with
Claude Code's contract (JSON on stdin, exit codes, JSON decisions on stdout)."""

from typing import TYPE_CHECKING, Any

from tether.hooks.builtin import BuiltinHandlers, BuiltinSettings, builtin_handlers
from tether.hooks.bus import ALL, EventBus
from tether.hooks.config import HooksConfig, client_hooks, parse_hooks, read_hooks
from tether.hooks.spec import (
    HOOK_EVENTS,
    HookActivity,
    HookEventName,
    HookOutcome,
    HookSpec,
    PermissionDecision,
    UpdatedOutput,
)

if TYPE_CHECKING:
    from tether.hooks.runner import CallbackFailed, HookCallback, HookRunner, combine

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


_RUNNER = frozenset({"CallbackFailed", "HookCallback", "HookRunner", "combine"})
"""What `tether.hooks.runner` defines: it and the hooks' kinds it runs (commands, HTTP, a
model's judgement) load when first used, as a session with no hook configured never does."""


def __getattr__(name: str) -> Any:
    if name in _RUNNER:
        from tether.hooks import runner

        return getattr(runner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
