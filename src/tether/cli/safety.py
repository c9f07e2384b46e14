"""Wiring the safety services into a session: permission rules, hooks and the sandbox."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from tether import bounded_json
from tether.cli.terminal_text import terminal_safe
from tether.config.settings import Settings, merge, tether_home
from tether.config.trust import anchored_rule, remembered_settings
from tether.core.gate import RuleSources, ToolGate
from tether.core.session import Session
from tether.git_run_paths import run_paths
from tether.hooks import EventBus, HookSpec, builtin_handlers, parse_hooks
from tether.permissions import (
    Mode,
    PermissionContext,
    RuleKind,
    additional_directories,
    default_mode,
    hidden_tools,
    load_rules,
    read_deny_matcher,
)
from tether.protocol import ConfigError, Event, ResponseStarted
from tether.sandbox import (
    ReadDenials,
    Sandbox,
    SandboxStatus,
    parse_sandbox_settings,
    plan_sandbox,
    probe,
)
from tether.sandbox.setid_files import SetidScan
from tether.slotted import Slotted, replaced
from tether.tools.base import Tool
from tether.tools.context import ToolContext

if TYPE_CHECKING:
    from tether.hooks import HookRunner


class SafetyOptions(Slotted):
    __slots__ = (
        "add_dirs",
        "agent_hooks",
        "allowed_tools",
        "client_hooks",
        "disallowed_tools",
        "permission_mode",
        "plugin_hooks",
        "plugin_roots",
        "workspace_trusted",
    )
    permission_mode: Final[Mode | None]
    allowed_tools: Final[tuple[str, ...]]
    disallowed_tools: Final[tuple[str, ...]]
    workspace_trusted: Final[bool]
    """False: the seed's `.tether/permissions.yaml` only restricts (its allow lists are left
    out); the settings layers come already restricted (`tether.cli.workspace_review`)."""
    add_dirs: Final[tuple[Path, ...]]
    """`--add-dir`: more directories that work like the workspace (absolute), added to the
    `permissions.additionalDirectories` setting."""
    client_hooks: Final[tuple[HookSpec, ...]]
    """Callback hooks of a client driving the session (run after the settings' own)."""
    plugin_hooks: Final[tuple[HookSpec, ...]]
    """The hooks of the session's plugins (after the settings' own; `disableAllHooks`
    turns them off too)."""
    plugin_roots: Final[tuple[Path, ...]]
    """The session's plugins' directories: writes there ask (`PermissionContext`)."""
    agent_hooks: Final[bool]
    """Some subagent has hooks of its own (its front matter's): the session has a hook runner
    for them to join, even with no hook configured elsewhere."""

    def __init__(
        self,
        permission_mode: Mode | None = None,
        allowed_tools: tuple[str, ...] = (),
        disallowed_tools: tuple[str, ...] = (),
        workspace_trusted: bool = True,
        add_dirs: tuple[Path, ...] = (),
        client_hooks: tuple[HookSpec, ...] = (),
        plugin_hooks: tuple[HookSpec, ...] = (),
        plugin_roots: tuple[Path, ...] = (),
        agent_hooks: bool = False,
    ) -> None:
        self.permission_mode = permission_mode
        self.allowed_tools = allowed_tools
        self.disallowed_tools = disallowed_tools
        self.workspace_trusted = workspace_trusted
        self.add_dirs = add_dirs
        self.client_hooks = client_hooks
        self.plugin_hooks = plugin_hooks
        self.plugin_roots = plugin_roots
        self.agent_hooks = agent_hooks


class SandboxPlan(Slotted):
    __slots__ = ("bash_refusal", "notice", "sandbox")
    sandbox: Final[Sandbox | None]
    notice: Final[str | None]
    bash_refusal: Final[str | None]

    def __init__(
        self, sandbox: Sandbox | None, notice: str | None, bash_refusal: str | None
    ) -> None:
        self.sandbox = sandbox
        self.notice = notice
        self.bash_refusal = bash_refusal


def build_gate(
    settings: Settings,
    options: SafetyOptions,
    *,
    workspace: Path,
    tools: Sequence[Tool],
    session_id: str,
    transcript_path: Path,
    env: Mapping[str, str],
    read_dirs: Sequence[Path] = (),
) -> tuple[ToolGate, list[Tool]]:
    """The gate for this session, and the tools the model is offered (a tool named bare in a
    deny rule is not offered at all)."""
    permissions, sources = permission_context(
        settings,
        options,
        workspace=workspace,
        read_only_tools=frozenset(t.name for t in tools if t.read_only),
        read_dirs=read_dirs,
        tether_home=tether_home(env),
    )
    rules = permissions.rules
    plugin_hooks = () if settings.data.get("disableAllHooks") is True else options.plugin_hooks
    specs = (*parse_hooks(settings.layers), *plugin_hooks, *options.client_hooks)
    hooks: HookRunner | None = None
    if specs or options.agent_hooks:
        from tether.hooks import HookRunner  # and the kinds of hook it runs: only with hooks

        hooks = HookRunner(
            specs,
            session_id=session_id,
            transcript_path=str(transcript_path),
            cwd=workspace,
            project_dir=workspace,
            permission_mode=lambda: gate.permissions.mode,
            env=env,
        )
        hooks.env_file = transcript_path.with_suffix("") / "env" / "sessionstart-hook.sh"
    gate = ToolGate(
        permissions=permissions,
        sources=sources,
        hooks=hooks,
        # Kept in the user's own store, not the workspace (a repository can ship a file there).
        remember=lambda rule: remember_rule(
            remembered_settings(tether_home(env), workspace), anchored_rule(rule, workspace)
        ),
        keep_rule=lambda kind, rule: remember_rule(
            remembered_settings(tether_home(env), workspace),
            anchored_rule(rule, workspace),
            kind,
        ),
    )
    hidden = hidden_tools(rules)
    return gate, [t for t in tools if t.name not in hidden]


def permission_context(
    settings: Settings,
    options: SafetyOptions,
    *,
    workspace: Path,
    read_only_tools: frozenset[str] | None = None,
    read_dirs: Sequence[Path] = (),
    tether_home: Path | None = None,
) -> tuple[PermissionContext, RuleSources]:
    """The rules and mode as a session sees them; `tether permissions check` uses the same, so
    what it answers is what a session would decide."""
    seed_yaml = workspace / ".tether" / "permissions.yaml"
    sources = RuleSources(
        layers=settings.layers,
        # Whatever is there (a directory, a dangling link) is read, and stops the start when it
        # cannot be: it may be the user's always_deny list.
        seed_yaml=seed_yaml if os.path.lexists(seed_yaml) else None,
        seed_allow=options.workspace_trusted,
        extra_allow=list(options.allowed_tools),
        extra_deny=list(options.disallowed_tools),
    )
    rules = load_rules(
        sources.layers,
        seed_yaml=sources.seed_yaml,
        seed_allow=sources.seed_allow,
        extra_allow=sources.extra_allow,
        extra_deny=sources.extra_deny,
    )
    additional_dirs = (*additional_directories(settings.layers), *options.add_dirs)
    context = PermissionContext(
        mode=options.permission_mode or default_mode(settings.layers),
        rules=rules,
        workspace=workspace,
        cwd=workspace,
        additional_dirs=additional_dirs,
        read_dirs=tuple(read_dirs),
        tether_home=tether_home,
        # Read once per session: `.git/config`, which names them, is protected.
        git_run_paths=run_paths((workspace, *additional_dirs)),
        plugin_roots=tuple(options.plugin_roots),
    )
    if read_only_tools is not None:
        context = replace(context, read_only_tools=read_only_tools)
    return context, sources


def plan_session_sandbox(
    settings: Settings,
    *,
    workspace: Path,
    scratch_dir: Path,
    home: Path,
    extra_dirs: Sequence[Path] = (),
    permissions: PermissionContext | None = None,
) -> SandboxPlan:
    """The session's sandbox; the workspace's additional directories are writable in it too,
    and what the `permissions`' `Read` deny rules name is hidden in it."""
    sandbox_settings = parse_sandbox_settings(settings.data)
    sandbox_settings = replaced(
        sandbox_settings,
        writable=(*sandbox_settings.writable, *extra_dirs),
        # Named in `env` on purpose: the user wants commands to see them, secret or not.
        env=(*sandbox_settings.env, *settings.env),
    )
    # Turned off, the sandbox is not probed: the probe runs bwrap, start-up would wait for it.
    status = probe() if sandbox_settings.enabled is not False else _NOT_PROBED
    denials = edits = None
    if permissions is not None:
        match, prefixes, names = read_deny_matcher(
            permissions.rules, workspace=permissions.workspace, home=permissions.home
        )
        denials = ReadDenials(match, prefixes, names)
        match, prefixes, names = read_deny_matcher(
            permissions.rules, workspace=permissions.workspace, home=permissions.home, tool="Edit"
        )
        edits = ReadDenials(match, prefixes, names)
    sandbox, notice, refused = plan_sandbox(
        sandbox_settings,
        status,
        workspace=workspace,
        scratch_dir=scratch_dir,
        home=home,
        read_denials=denials,
        edit_denials=edits,
        stale_in_background=True,
    )
    return SandboxPlan(sandbox, notice, notice if refused else None)


_NOT_PROBED = SandboxStatus(False, "the sandbox is turned off (sandbox.enabled: false)", None)


def sandbox_would_run(settings: Settings) -> bool:
    """Whether a session with these settings would run Bash in the sandbox (the probe runs
    bwrap once)."""
    return parse_sandbox_settings(settings.data).enabled is not False and probe().works


def remember_rule(path: Path, rule: str, kind: RuleKind = "allow") -> None:
    """Append a rule (allow unless said) to a local settings file, keeping whatever else it
    holds."""
    _merge_into(path, {"permissions": {kind: [rule]}})


def remember_setting(path: Path, key: str, item: str) -> None:
    """Append `item` to the list setting `key` of a local settings file (merged like rules)."""
    _merge_into(path, {key: [item]})


def _merge_into(path: Path, extra: dict[str, Any]) -> None:
    data: dict[str, Any] = {}
    if path.is_file():
        try:
            loaded = bounded_json.loads(path.read_text(encoding="utf-8") or "{}")
        except (OSError, json.JSONDecodeError) as e:
            raise ConfigError(f"cannot update {path}: {e}") from None
        if isinstance(loaded, dict):
            data = loaded  # pyright: ignore[reportUnknownVariableType]
    data = merge(data, extra)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def attach_builtin_handlers(session: Session, settings: Settings, *, workspace: Path) -> None:
    """The seed's built-in handlers (event log, tool stats, slow-tool timer), when enabled."""
    handlers = builtin_handlers(
        settings.data,
        emit_notice=lambda message: print(f"tether: {terminal_safe(message)}", file=sys.stderr),
        base_dir=workspace,
    )
    if not handlers.enabled:
        return
    bus = EventBus(
        on_error=lambda error: print(f"tether: {terminal_safe(str(error))}", file=sys.stderr)
    )
    handlers.attach(bus)
    session.observers.append(bus.publish_nowait)

    async def finish() -> None:
        await bus.drain()
        handlers.finish()

    session.on_close.append(finish)


def scan_once_answered(session: Session, sandbox: Sandbox) -> None:
    """Start the sandbox's walk for set-id files when the session's first response begins
    (its first request is out by then), not while the session starts: it walks every
    writable directory, and competes for the interpreter while it does. The first command
    starts it (and waits for it) if nothing did before."""
    scan = sandbox.setid_scan
    if not isinstance(scan, SetidScan):
        return

    def observe(event: Event) -> None:
        if isinstance(event, ResponseStarted):
            scan.start()

    session.observers.append(observe)


def added_directories(dirs: Sequence[Path]) -> tuple[Path, ...]:
    """`--add-dir` directories, resolved; one that is not a directory is an error, as the
    user meant to work there."""
    found: list[Path] = []
    for directory in dirs:
        resolved = directory.expanduser().resolve()
        if not resolved.is_dir():
            raise ConfigError(f"--add-dir {directory}: not a directory")
        found.append(resolved)
    return tuple(found)


def sandboxed_tool_context(
    gate: ToolGate,
    sandbox: SandboxPlan,
    *,
    workspace: Path,
    scratch_dir: Path,
    extra_dirs: tuple[Path, ...],
    cwd: Path,
    env: dict[str, str],
) -> ToolContext:
    """The tools' context, its commands wrapped in the session's sandbox (if any) and judged
    by `gate` where the session's shell is now (hooks run there too, as in Claude Code)."""
    tool_context = ToolContext(
        workspace=workspace, scratch_dir=scratch_dir, extra_dirs=extra_dirs, cwd=cwd, env=env
    )
    if sandbox.sandbox is not None:
        tool_context.command_wrapper = sandbox.sandbox.wrap
        gate.permissions = replace(gate.permissions, bash_sandboxed=True)
    tool_context.bash_refusal = sandbox.bash_refusal
    gate.shell_cwd = lambda: tool_context.shell_cwd
    if gate.hooks is not None:  # hooks run where the session is now, as in Claude Code
        gate.hooks.follow_cwd(lambda: tool_context.shell_cwd)
    tool_context.read_denied = gate.read_denied
    return tool_context
