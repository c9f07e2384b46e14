"""Tool names a rule or a check may name, so that a misspelled one is told: `Bsh` in
`--disallowedTools` denies nothing, and the user believes Bash is denied.

Claude Code's tool names are known too (a rule copied from its settings names WebFetch or
NotebookEdit); MCP tools (`mcp__server__tool`) are named by their servers and not checked.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from tether.permissions.defaults import TASK_BOARD_TOOLS, TEAM_TOOLS
from tether.permissions.rules import EDIT_TOOLS, READ_TOOLS, TOOL_ALIASES, RuleSet

KNOWN_TOOLS = frozenset(
    {
        *READ_TOOLS,
        *EDIT_TOOLS,
        *TOOL_ALIASES,
        *TASK_BOARD_TOOLS,
        *TEAM_TOOLS,
        "Bash",
        "BashOutput",
        "KillShell",
        "TodoWrite",
        "MemorySave",
        "MemorySearch",
        "Task",
        "Skill",
        "StructuredOutput",
        "WebFetch",
        "WebSearch",
        "ExitPlanMode",
        "SlashCommand",
    }
)
"""tether's tools, and Claude Code's that rules copied from its settings may name."""
CLAUDE_CODE_ONLY = frozenset({"ExitPlanMode", "LS", "MultiEdit", "NotebookRead", "SlashCommand"})
"""Claude Code's tools that tether does not have (their work is done by others: Glob, Edit,
Read, the plan mode's own exit, skills)."""


def unknown_tool(rule: str) -> str | None:
    """The tool a rule (`Tool` or `Tool(specifier)`) names when tether does not know it; MCP
    tools are named by their servers and not checked."""
    tool = rule.split("(", 1)[0].strip()
    if tool and not tool.startswith("mcp__") and tool not in KNOWN_TOOLS:
        return tool
    return None


def unknown_tool_notes(label: str, rules: Iterable[str]) -> list[str]:
    """One warning per rule (`Tool` or `Tool(specifier)`) whose tool is not known, naming the
    nearest known tool; `label` says where the rule came from (`--allowedTools`)."""
    notes: list[str] = []
    for rule in rules:
        if (tool := unknown_tool(rule)) is not None:
            close = difflib.get_close_matches(tool, sorted(KNOWN_TOOLS), n=1)
            nearest = f' (did you mean "{close[0]}"?)' if close else ""
            notes.append(f'warning: {label}: unknown tool "{tool}"{nearest}')
    return notes


_FAMILIES = {"Edit": EDIT_TOOLS, "Read": READ_TOOLS}
_NOTHING = {"deny": "denies nothing", "ask": "asks nothing", "allow": "allows nothing"}


def unmatched_rule_notes(rules: RuleSet) -> list[str]:
    """One warning per path rule that no check matches: as in Claude Code, files are checked
    against `Edit(path)` rules (for every tool that writes) and `Read(path)` rules (for every
    tool that reads), so `Write(secret*)` or `Grep(src/**)` match nothing. Never silent: the
    user believes the file denied."""
    notes: list[str] = []
    for rule in rules.rules:
        if rule.path is None or rule.tool in _FAMILIES:
            continue
        family = "Edit" if rule.tool in EDIT_TOOLS else "Read"
        covered = ", ".join(sorted(_FAMILIES[family]))
        notes.append(
            f"warning: {rule.source}: the {rule.kind} rule {rule.text} {_NOTHING[rule.kind]}: "
            f"files are checked against {family}(path) rules only, as in Claude Code, and "
            f"they cover {covered}; write {family}({rule.specifier}) instead"
        )
    return notes
