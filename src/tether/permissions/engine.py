"""`decide(tool, input, context)`: allow, ask or deny one tool call. Pure: the only contact with
the filesystem is `context.resolve`.

Deny beats ask beats allow. What no rule allows is asked, or denied in dontAsk mode; plan mode
denies anything that is not read-only; bypassPermissions allows everything except what deny
rules stop and what must always be confirmed (explicit ask rules, protected paths).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tether.kernel_paths import expand_tilde, user_home
from tether.permissions import steps
from tether.permissions.access import FileAccess
from tether.permissions.bash_policy import judge_bash, unseen_verdict
from tether.permissions.context import Decision, PermissionContext
from tether.permissions.defaults import SESSION_TOOLS
from tether.permissions.rules import EDIT_TOOLS, READ_TOOLS, TOOL_ALIASES, Rule
from tether.permissions.steps import TOO_MUCH_WORK, OutOfSteps
from tether.permissions.verdict import Verdict, allow, ask, deny, none
from tether.web_hosts import url_host

PATH_MAX = 4096
"""Linux's limit on a path given to a system call, its final NUL included."""
PATH_FIELDS = ("file_path", "notebook_path", "path")
ASKED_READERS = frozenset({"WebFetch", "WebSearch"})
"""Tools that change nothing (plan mode runs them) but reach the network: asked, as in Claude
Code, unless a rule allows them (`WebFetch(domain:host)`, `WebSearch`)."""
"""Where a file tool's input names its file, in order of preference."""


def decide(tool: str, tool_input: Mapping[str, Any], ctx: PermissionContext) -> Decision:
    """Whether the call may run, with the rule and the reason that decided it. Never raises:
    an input the engine fails on is judged as a call it cannot see into (`_failed`)."""
    tool = TOOL_ALIASES.get(tool, tool)
    try:
        with steps.metered():
            try:
                verdict, read_only = _judge(tool, tool_input, ctx)
            except OutOfSteps:
                verdict, read_only = _too_large(tool, ctx), False
        return _apply_mode(tool, verdict, read_only, ctx)
    except Exception as error:
        return _failed(tool, error, ctx)


def _too_large(tool: str, ctx: PermissionContext) -> Verdict:
    """Past the decision's steps: a command may run anything (code not seen); a file tool's
    path may be any file of that tool's rules, so only those rules count, named with the
    tool (a Read cannot run what a Bash rule forbids)."""
    if tool == "Bash":
        return unseen_verdict(ctx, TOO_MUCH_WORK)
    kind_tool = "Read" if tool in READ_TOOLS else "Edit" if tool in EDIT_TOOLS else tool
    what = f"{tool}'s input is {TOO_MUCH_WORK}"
    for kind in ("deny", "ask"):
        rules = ctx.rules.of(kind, kind_tool)
        if rules:
            covers = f"may name a file {rules[0].text} covers; name it plainly"
            if kind == "deny":
                return deny(f"{what}: it {covers}", rules[0].text)
            return ask(f"{what}: it {covers}", rules[0].text, hard=True)
    return ask(f"{what}; name the file plainly")


def _failed(tool: str, error: Exception, ctx: PermissionContext) -> Decision:
    """The last net (each defect found is fixed at its cause): a session must get a decision
    for every call, where an exception would end it with "internal error". What the engine
    failed on may do anything, so it is judged as code the parser cannot see, hard: denied
    when a deny rule exists, asked otherwise, in bypassPermissions too; the mode still
    applies (dontAsk and plan deny)."""
    reason = f"the permission engine could not judge this call: {type(error).__name__}: {error}"
    try:
        verdict = unseen_verdict(ctx, reason)
        if verdict.outcome != "deny" and not verdict.hard:
            verdict = ask(reason, hard=True)
        decided = _apply_mode(tool, verdict, False, ctx)
        if reason in decided.reason:
            return decided
        return Decision(decided.behavior, decided.rule, f"{decided.reason}; {reason}")
    except Exception:
        return Decision("ask", None, reason)


def _judge(
    tool: str, tool_input: Mapping[str, Any], ctx: PermissionContext
) -> tuple[Verdict, bool]:
    if tool == "Bash":
        command = tool_input.get("command")
        if not isinstance(command, str):
            return ask("no command given"), False
        judgement = judge_bash(command, ctx)
        return judgement.verdict, judgement.read_only
    if tool in EDIT_TOOLS:
        return _file_call(tool, tool_input, ctx, write=True), False
    if tool in READ_TOOLS:
        return _file_call(tool, tool_input, ctx, write=False), True
    read_only = tool in ctx.read_only_tools or tool in SESSION_TOOLS
    return _other_tool(tool, tool_input, ctx, read_only=read_only), read_only


def _file_call(
    tool: str, tool_input: Mapping[str, Any], ctx: PermissionContext, *, write: bool
) -> Verdict:
    named = _tool_rules(tool, ctx, bare_only=True)
    if named is not None and named.outcome != "allow":
        return named
    value = _path_value(tool, tool_input, ctx)
    if value is None:
        return named or ask(f"{tool} call names no file")
    pattern = tool_input.get("pattern")
    if tool == "Glob" and isinstance(pattern, str) and "\x00" in pattern:
        return named or ask(f"{tool}: the pattern holds a NUL byte, which names no file")
    size = len(value.encode("utf-8", "surrogatepass"))
    if size >= PATH_MAX:
        # The kernel opens no such path (ENAMETOOLONG): a question could lead nowhere.
        return deny(
            f"{tool}: the path is {size} bytes, longer than the system opens ({PATH_MAX - 1}, "
            "PATH_MAX); no file can be named by it"
        )
    expanded = expand_tilde(value, home=ctx.home, user_home=ctx.user_home)
    path = _file_target(tool, tool_input, value if expanded is None else expanded, ctx)
    files = FileAccess(ctx)
    verdict = files.write(path) if write else files.read(path)
    if expanded is None and verdict.outcome != "deny" and not verdict.hard:
        # `~+`, `~-`: the shell's directory stack. Judged as written for deny rules (the tool
        # takes it literally), but what it names is not known.
        return none(f"{value} starts with {value.split('/')[0]}, a directory stack entry")
    if verdict.outcome == "none" and named is not None:
        return named
    return verdict


def _path_value(tool: str, tool_input: Mapping[str, Any], ctx: PermissionContext) -> str | None:
    value = next((tool_input[f] for f in PATH_FIELDS if isinstance(tool_input.get(f), str)), None)
    if tool in ("Glob", "Grep") and not value:
        value = str(ctx.workspace)
    if not isinstance(value, str) or not value or "\x00" in value:
        return None
    return value


def _file_target(
    tool: str, tool_input: Mapping[str, Any], value: str, ctx: PermissionContext
) -> Path:
    """The file or directory the call touches, absolute and as written: relative paths start
    at the workspace, as the tools take them; a Glob pattern's fixed leading directories count
    (`../../etc/*`). `..` is left for the resolver to apply where the kernel does."""
    path = ctx.workspace / value
    if tool == "Glob":
        pattern = tool_input.get("pattern")
        if isinstance(pattern, str):
            path = Path("/") if pattern.startswith("/") else path
            path = path / _fixed_directories(pattern.lstrip("/"))
    return path


def expand_home(
    value: str, home: Path, user_home: Callable[[str], Path | None] = user_home
) -> Path:
    """`~`, `~/x` and `~name/x` as the tools expand them (`~+`, `~-` and an unknown user's
    `~name` are left as written)."""
    expanded = expand_tilde(value, home=home, user_home=user_home)
    return Path(value if expanded is None else expanded)


def _fixed_directories(pattern: str) -> str:
    fixed: list[str] = []
    for segment in pattern.split("/")[:-1]:
        if any(c in segment for c in "*?[{\\"):  # as the Glob tool splits it
            break
        fixed.append(segment)
    return "/".join(fixed)


def _other_tool(
    tool: str, tool_input: Mapping[str, Any], ctx: PermissionContext, *, read_only: bool
) -> Verdict:
    matched = _tool_rules(tool, ctx, tool_input=tool_input)
    if matched is not None:
        return matched
    if tool in SESSION_TOOLS:
        return allow("changes only the session's own state")
    if read_only and tool not in ASKED_READERS:
        return allow("read-only tool")
    return none(f"no rule allows {tool}")


def _tool_rules(
    tool: str,
    ctx: PermissionContext,
    *,
    tool_input: Mapping[str, Any] | None = None,
    bare_only: bool = False,
) -> Verdict | None:
    """Deny, ask, then allow rules naming the tool (with a matching specifier, for tools whose
    specifiers are not paths)."""
    for kind in ("deny", "ask", "allow"):
        for rule in ctx.rules.of(kind, tool):
            if rule.specifier is not None and (
                bare_only or not _specifier_matches(rule, tool_input)
            ):
                continue
            why = f": {rule.reason}" if rule.reason else ""
            if kind == "deny":
                return deny(f"{tool} is denied by {rule.text}{why}", rule.text)
            if kind == "ask":
                return ask(f"{tool} needs confirmation ({rule.text}){why}", rule.text, hard=True)
            return allow(rule=rule.text)
    return None


def _specifier_matches(rule: Rule, tool_input: Mapping[str, Any] | None) -> bool:
    if rule.wildcard is None or tool_input is None:
        return False
    if rule.tool == "WebFetch":
        url = tool_input.get("url")
        host = url_host(url) if isinstance(url, str) else None
        return host is not None and rule.wildcard.fullmatch(host)
    if rule.tool == "Task":
        agent = tool_input.get("subagent_type")
        return isinstance(agent, str) and rule.wildcard.fullmatch(agent)
    return any(isinstance(v, str) and rule.wildcard.fullmatch(v) for v in tool_input.values())


def _apply_mode(tool: str, verdict: Verdict, read_only: bool, ctx: PermissionContext) -> Decision:
    if verdict.outcome == "deny":
        return Decision("deny", verdict.rule, verdict.reason)
    mode = ctx.mode
    if mode == "plan" and not read_only:
        reason = f"plan mode: only read-only tools run ({tool} is not)"
        return Decision("deny", None, reason, plan_mode=True)
    if mode == "bypassPermissions":
        if verdict.outcome == "ask" and verdict.hard:
            return Decision("ask", verdict.rule, verdict.reason)
        reason = verdict.reason if verdict.outcome == "allow" else "bypassPermissions mode"
        return Decision("allow", verdict.rule if verdict.outcome == "allow" else None, reason)
    if verdict.outcome == "allow":
        return Decision("allow", verdict.rule, verdict.reason or "allowed")
    if mode == "dontAsk":
        return Decision("deny", verdict.rule, f"dontAsk mode, not pre-approved: {verdict.reason}")
    return Decision("ask", verdict.rule, verdict.reason)
