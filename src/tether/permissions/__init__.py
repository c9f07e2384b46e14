"""Permission rules and the decision whether a tool call may run (see README.md).

`decide` and `suggest_rule` load the engine (the shell parser, the per-program policies: tens of
milliseconds) on first use, not with the package: a session is built, and its first request
sent, before any tool call needs a decision.
"""

from typing import TYPE_CHECKING, Any

from tether.permissions.context import Behavior, Decision, PermissionContext, realpath
from tether.permissions.read_denials import read_deny_matcher
from tether.permissions.rules import (
    MODES,
    Mode,
    Rule,
    RuleKind,
    RuleSet,
    additional_directories,
    default_mode,
    hidden_tools,
    load_rules,
    parse_rule,
    permission_updates,
)

if TYPE_CHECKING:
    from tether.permissions.engine import decide
    from tether.permissions.suggest import suggest_rule
    from tether.permissions.suggestions import permission_suggestions

__all__ = [
    "MODES",
    "Behavior",
    "Decision",
    "Mode",
    "PermissionContext",
    "Rule",
    "RuleKind",
    "RuleSet",
    "additional_directories",
    "decide",
    "default_mode",
    "hidden_tools",
    "load_rules",
    "parse_rule",
    "permission_suggestions",
    "permission_updates",
    "read_deny_matcher",
    "realpath",
    "suggest_rule",
]


def __getattr__(name: str) -> Any:
    if name == "decide":
        from tether.permissions.engine import decide as found
    elif name == "suggest_rule":
        from tether.permissions.suggest import suggest_rule as found
    elif name == "permission_suggestions":
        from tether.permissions.suggestions import permission_suggestions as found
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = found  # looked up once
    return found
