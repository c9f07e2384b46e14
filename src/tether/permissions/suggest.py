"""The rule an "always allow" answer saves: general enough to be useful, never the literal call.

Bash: the program, plus its subcommand for tools that have them (`Bash(git commit *)`,
`Bash(npm run *)`... `Bash(python -m pytest *)`). File tools: the tool and the file's
directory (`Edit(/src/**)`, relative to the project, where the rule is saved). Nothing when no
rule could make the call allowed (an unparseable command, a write outside the workspace).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from tether.permissions.bash_policy import judge_invocation
from tether.permissions.commands import SYSTEM_BIN_DIRS
from tether.permissions.context import PermissionContext
from tether.permissions.engine import PATH_FIELDS, expand_home
from tether.permissions.paths import is_below, normalize
from tether.permissions.rules import EDIT_TOOLS, READ_TOOLS, TOOL_ALIASES, RuleSet, parse_rule
from tether.permissions.script import Invocation
from tether.permissions.shell import parse_command
from tether.permissions.shell_words import is_literal, program_name, shown

SUBCOMMAND_TOOLS = frozenset(
    {"git", "npm", "pnpm", "yarn", "bun", "deno", "cargo", "pip", "pip3", "uv", "poetry"}
    | {"pipenv", "docker", "podman", "kubectl", "helm", "make", "go", "dotnet", "gh", "mvn"}
    | {"gradle", "terraform", "brew", "apt", "apt-get", "conda", "rustup", "systemctl", "npx"}
)
"""Programs whose first word selects what they do: a rule keeps that word."""
_MODULE_RUNNERS = frozenset({"python", "python3"})


def suggest_rule(tool: str, tool_input: Mapping[str, Any], ctx: PermissionContext) -> str | None:
    """A rule that would allow calls like this one, or None when none should be offered."""
    tool = TOOL_ALIASES.get(tool, tool)
    if tool == "Bash":
        command = tool_input.get("command")
        return _bash_rule(command, ctx) if isinstance(command, str) else None
    if tool in EDIT_TOOLS or tool in READ_TOOLS:
        return _file_rule(tool, tool_input, ctx)
    if tool == "WebFetch":
        url = tool_input.get("url")
        host = urlsplit(url).hostname if isinstance(url, str) else None
        return f"WebFetch(domain:{host})" if host else None
    return tool


def _bash_rule(command: str, ctx: PermissionContext) -> str | None:
    script = parse_command(command)
    if script.problems:
        return None
    for leaf in _leaves(script.invocations):
        if not leaf.argv or judge_invocation(leaf, ctx, own=True).outcome == "allow":
            continue
        rule = _program_rule(leaf)
        if rule is None:
            return None
        added = parse_rule(rule, "allow", source="suggestion", project_root=None)
        trial = replace(ctx, rules=RuleSet((*ctx.rules.rules, added)))
        # Offered only if it would do: not when the call is asked whatever the rules say.
        return rule if judge_invocation(leaf, trial).outcome == "allow" else None
    return None


def _leaves(invocations: tuple[Invocation, ...]) -> list[Invocation]:
    """The commands that do the work: wrappers opened, privileged ones kept whole."""
    out: list[Invocation] = []
    for inv in invocations:
        if inv.role == "wrapper" and inv.inner:
            out.extend(_leaves(inv.inner))
        else:
            out.append(inv)
            if inv.role == "command":
                out.extend(_leaves(inv.inner))
    return out


def _program_rule(inv: Invocation) -> str | None:
    if inv.problems or not is_literal(inv.argv[0]):
        return None
    if inv.role == "privileged":
        inner = inv.inner[0] if len(inv.inner) == 1 else None
        if inner is None or not inner.argv or inner.problems or not is_literal(inner.argv[0]):
            return None
        head = _command_head(inner)
        return None if head is None else f"Bash({_program(inv)} {head})"
    head = _command_head(inv)
    return None if head is None else f"Bash({head})"


def _command_head(inv: Invocation) -> str | None:
    """`program subcommand *`, `program *`, or the bare program when it was run alone; None
    when the subcommand cannot be told (`git -C dir push`)."""
    name = program_name(inv.argv[0])
    rest = [shown(w) for w in inv.own_argv[1:]]
    if not rest:
        return _program(inv)
    if name in SUBCOMMAND_TOOLS:
        if rest[0].startswith("-") or not is_literal(rest[0]):
            return None
        return f"{_program(inv)} {rest[0]} *"
    if name in _MODULE_RUNNERS and rest[0] == "-m":
        return f"{_program(inv)} -m {rest[1]} *" if len(rest) > 1 and is_literal(rest[1]) else None
    return f"{_program(inv)} *"


def _program(inv: Invocation) -> str:
    """The program as a rule names it: bare when it lives in a system directory."""
    written = shown(inv.argv[0])
    directory = written.rpartition("/")[0]
    return program_name(inv.argv[0]) if directory in SYSTEM_BIN_DIRS else written


def _file_rule(tool: str, tool_input: Mapping[str, Any], ctx: PermissionContext) -> str | None:
    value = next((tool_input[f] for f in PATH_FIELDS if isinstance(tool_input.get(f), str)), None)
    if not isinstance(value, str) or not value:
        return None
    path = normalize(ctx.workspace / expand_home(value, ctx.home))
    family = "Edit" if tool in EDIT_TOOLS else "Read"
    directory = path if tool in ("Glob", "Grep") else path.parent
    if path.is_relative_to(ctx.workspace):
        relative = directory.relative_to(ctx.workspace).as_posix()
        if relative == ".":
            return f"{family}(/{path.name})" if directory != path else f"{family}(/**)"
        return f"{family}(/{relative}/**)"
    if family == "Edit" and not is_below(ctx.resolve(path), ctx.write_roots):
        return None  # writes outside the workspace are asked whatever the rules say
    if directory.is_relative_to(ctx.home):
        below = directory.relative_to(ctx.home).as_posix()
        return f"{family}(~/**)" if below == "." else f"{family}(~/{below}/**)"
    return f"{family}(/{directory.as_posix().rstrip('/')}/**)"
