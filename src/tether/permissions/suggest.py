"""The rule an "always allow" answer saves: useful for the next calls like this one, never
allowing more than the user saw.

Bash: the exact command, but for the programs that only read (suggest_tables.PREFIX_PROGRAMS:
`Bash(cat *)`), interpreters running a script (`Bash(python3 test_calc.py)`, with ` *` when
arguments followed it: they stop reading their own options there) and launchers, whose
launched program is judged the same way (`Bash(npx prettier --check .)`). File tools: the tool
and the file's directory (`Edit(/src/**)`, relative to the project, where the rule is saved).
Nothing when no rule could make the call allowed (an unparseable command, code read from
stdin, a protected or outside write).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from tether.permissions import steps
from tether.permissions.bash_policy import judge_invocation
from tether.permissions.commands import SYSTEM_BIN_DIRS
from tether.permissions.context import PermissionContext
from tether.permissions.engine import PATH_FIELDS, decide, expand_home
from tether.permissions.framework_code import ENTRY_SCRIPTS
from tether.permissions.paths import normalize
from tether.permissions.rules import EDIT_TOOLS, READ_TOOLS, TOOL_ALIASES, RuleSet, parse_rule
from tether.permissions.script import Invocation
from tether.permissions.shell import parse_command
from tether.permissions.shell_words import is_literal, program_name, shown
from tether.permissions.steps import OutOfSteps
from tether.permissions.suggest_tables import (
    CODE_RUNNERS,
    LAUNCHERS,
    PREFIX_PROGRAMS,
    VERSIONED_RUNNER,
)
from tether.web_hosts import url_host


def suggest_rule(tool: str, tool_input: Mapping[str, Any], ctx: PermissionContext) -> str | None:
    """A rule that would allow calls like this one, or None when none should be offered."""
    tool = TOOL_ALIASES.get(tool, tool)
    if tool == "Bash":
        command = tool_input.get("command")
        if not isinstance(command, str):
            return None
        with steps.metered():
            try:
                return _bash_rule(command, ctx)
            except OutOfSteps:
                return None  # too large to judge: no rule could be shown to cover it
    if tool in EDIT_TOOLS or tool in READ_TOOLS:
        return _file_rule(tool, tool_input, ctx)
    if tool == "WebFetch":
        url = tool_input.get("url")
        host = url_host(url) if isinstance(url, str) else None
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
        head = _pattern([_program(inner.argv[0]), *(shown(w) for w in inner.own_argv[1:])])
        return None if head is None else f"Bash({_program(inv.argv[0])} {head})"
    head = _pattern([_program(inv.argv[0]), *(shown(w) for w in inv.own_argv[1:])])
    return None if head is None else f"Bash({head})"


def _pattern(words: list[str]) -> str | None:
    """The rule's command pattern for `words` (program first): `program *` for a program
    that only reads (suggest_tables.PREFIX_PROGRAMS), an interpreter's script, a launched
    program judged the same way, and otherwise the exact command; None when no pattern
    should be offered (code from stdin, unknown words in what must be exact)."""
    name = words[0].rsplit("/", 1)[-1]
    if name in LAUNCHERS:
        return _launched(words, LAUNCHERS[name])
    if name in CODE_RUNNERS or VERSIONED_RUNNER.fullmatch(name):
        return _code_runner(words)
    if name in PREFIX_PROGRAMS:
        return f"{_escape(words[0])} *" if words[1:] else _escape(words[0])
    return _exact(words)


def _code_runner(words: list[str]) -> str | None:
    program, rest = words[0], words[1:]
    if not rest or rest[0] == "-":
        return None  # reads its code from stdin, which the rule would not see
    if rest[0].startswith("-") or not is_literal(rest[0]):
        return _exact(words)  # options (`-c`, `-e`, `-m`, `-i`) may be code or change what runs
    if rest[0].rsplit("/", 1)[-1] in ENTRY_SCRIPTS:
        return _exact(words)  # `manage.py test` saved, not `manage.py *` (`shell -c CODE`)
    return _script([program, rest[0]], rest[1:])


def _launched(words: list[str], forms: tuple[tuple[str, ...], ...]) -> str | None:
    """`npx prettier --write .` is `npx` then `prettier --write .`, judged on its own."""
    rest = tuple(words[1:])
    taken = next((1 + len(f) for f in forms if rest[: len(f)] == f), None)
    if taken is None:
        return _exact(words)  # the launcher used for something else (`npm install`)
    launched = words[taken:]
    if not launched or launched[0].startswith("-") or not is_literal(launched[0]):
        return _exact(words)  # the launcher's own options can change what runs
    inner = _pattern(launched)
    return None if inner is None else f"{' '.join(_escape(w) for w in words[:taken])} {inner}"


def _script(head: list[str], args: list[str]) -> str | None:
    """`head` exactly (the program and what it runs), then ` *` if arguments followed."""
    if not all(is_literal(w) for w in head):
        return None
    fixed = " ".join(_escape(w) for w in head)
    return f"{fixed} *" if args else fixed


def _exact(words: list[str]) -> str | None:
    if not all(is_literal(w) for w in words):
        return None
    return " ".join(_escape(w) for w in words)


def _escape(word: str) -> str:
    """A literal word in a rule: `*` and `\\` are the pattern's own characters."""
    return word.replace("\\", "\\\\").replace("*", "\\*")


def _program(word: str) -> str:
    """The program as a rule names it: bare when it lives in a system directory."""
    written = shown(word)
    directory = written.rpartition("/")[0]
    return program_name(word) if directory in SYSTEM_BIN_DIRS else written


def _file_rule(tool: str, tool_input: Mapping[str, Any], ctx: PermissionContext) -> str | None:
    rule = _file_pattern(tool, tool_input, ctx)
    if rule is None:
        return None
    # Offered only if it would do: not for writes that are asked whatever the rules say
    # (outside the workspace, configuration that grants or runs things).
    added = parse_rule(rule, "allow", source="suggestion", project_root=ctx.workspace)
    trial = replace(ctx, rules=RuleSet((*ctx.rules.rules, added)))
    return rule if decide(tool, tool_input, trial).behavior == "allow" else None


def _file_pattern(tool: str, tool_input: Mapping[str, Any], ctx: PermissionContext) -> str | None:
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
    if directory.is_relative_to(ctx.home):
        below = directory.relative_to(ctx.home).as_posix()
        return f"{family}(~/**)" if below == "." else f"{family}(~/{below}/**)"
    return f"{family}(/{directory.as_posix().rstrip('/')}/**)"
