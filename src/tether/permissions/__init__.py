"""Permission rules and the decision whether a tool call may run (see README.md)."""

from tether.permissions.context import Behavior, Decision, PermissionContext, realpath
from tether.permissions.engine import decide
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
)
from tether.permissions.suggest import suggest_rule

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
    "realpath",
    "suggest_rule",
]
