"""`tether mcp serve`: tether's built-in tools offered to other MCP clients over stdio, each
call checked by tether's permission rules as a session would check it.

    tether mcp serve --cwd ~/project --allowedTools "Bash(npm test *)" Edit

The tools (Bash, BashOutput, KillShell, Read, Write, Edit, Glob, Grep, Revert) keep one
`ToolContext` for the server's life: files read in one call may be edited in the next, Revert
undoes earlier writes, background commands outlive the call that started them. A call the rules
deny, or one that would need approval (nobody can be asked here), comes back as an error result
saying why and how to allow it. Built on the SDK's low-level `Server`: its `tools/list` handler
gives tether's own JSON schemas as they are (`MCPServer` would derive them from a Python
signature). Stdout carries only the protocol; messages go to stderr. Runs until stdin closes,
or until SIGINT, SIGTERM or SIGHUP (exit status 128+N); background commands are stopped
either way.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp_types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    ToolAnnotations,
)
from mcp_types import Tool as McpTool

from tether import __version__
from tether.cli.app import add_rule_options, split_rules
from tether.cli.safety import SafetyOptions, permission_context, plan_session_sandbox
from tether.config.project import project_root
from tether.config.settings import load_settings, settings_files, tether_home
from tether.core.gate import ToolGate
from tether.permissions import (
    MODES,
    Decision,
    Mode,
    PermissionContext,
    decide,
    hidden_tools,
    suggest_rule,
)
from tether.protocol import ConfigError, ToolUseBlock
from tether.tools.base import Tool
from tether.tools.builtin import builtin_tools
from tether.tools.context import ToolContext, approved_call
from tether.tools.registry import ToolRegistry
from tether.tools.run_record import RunRecord, reap_dead_runs

USAGE_ERROR = 2
SESSION_ONLY_TOOLS = frozenset({"TodoWrite", "MemorySave", "MemorySearch", "WebSearch"})
"""Built-in tools that mean something only inside a tether session (its plan, shown in
tether's own screen, its memory tools' index, its model's web search); Task and Skill are not
built-in tools at all."""


@dataclass(frozen=True)
class ServeOptions:
    workspace: Path
    settings_path: Path | None = None
    safety: SafetyOptions = field(default_factory=SafetyOptions)


@dataclass
class ToolService:
    """The tools on offer, the state they share across calls, and the rules that judge them."""

    registry: ToolRegistry
    context: ToolContext
    permissions: PermissionContext
    notices: tuple[str, ...] = ()
    """Said on stderr at start (the sandbox cannot run here...)."""
    _calls: int = field(default=0, init=False)
    _idle: asyncio.Event = field(default_factory=asyncio.Event, init=False)

    def listed(self) -> list[McpTool]:
        tools = (self.registry.get(name) for name in self.registry.names())
        return [_mcp_tool(t) for t in tools if t is not None]

    async def call(self, name: str, arguments: Mapping[str, Any]) -> CallToolResult:
        """Decide, then run when allowed; every outcome is a result, errors flagged."""
        self._calls += 1
        self._idle.clear()
        try:
            return await self._decide_and_run(name, arguments)
        finally:
            self._calls -= 1
            if not self._calls:
                self._idle.set()

    async def idle(self) -> None:
        """Return once no call is running (cancelled ones have stopped their commands)."""
        if self._calls:
            await self._idle.wait()

    async def _decide_and_run(self, name: str, arguments: Mapping[str, Any]) -> CallToolResult:
        call = ToolUseBlock(id=f"mcp_{uuid.uuid4().hex[:12]}", name=name, input=dict(arguments))
        if self.registry.get(name) is not None:
            decision = decide(name, call.input, self._context_for(name))
            if decision.behavior == "deny":
                return _error(_denied(decision))
            if decision.behavior == "ask":
                return _error(self._needs_approval(name, call.input, decision))
        # An unknown tool gets the registry's error, which names the tools there are. What
        # the rules allowed runs as approved (a write outside the workspace in bypass mode).
        with approved_call():
            outcome = await self.registry.run(call, self.context)
        return CallToolResult(
            content=[TextContent(text=outcome.content)], is_error=outcome.is_error
        )

    def _context_for(self, tool: str) -> PermissionContext:
        # Paths in a command are judged from where the shell is, as in a session.
        if tool == "Bash" and self.context.shell_cwd != self.permissions.cwd:
            return replace(self.permissions, cwd=self.context.shell_cwd)
        return self.permissions

    def _needs_approval(self, tool: str, tool_input: Mapping[str, Any], decision: Decision) -> str:
        said = f"This call needs approval ({decision.reason}), and an MCP server has nobody to ask."
        if self.permissions.mode == "bypassPermissions":
            return (
                f"{said} It is asked in every mode, bypassPermissions included (an explicit ask "
                "rule or a protected path), so it cannot run through this server."
            )
        rule = suggest_rule(tool, tool_input, self.permissions)
        such = f' such as "{rule}"' if rule else ""
        return (
            f"{said} To allow it, add an allow rule{such} to permissions.allow in "
            ".tether/settings.json or pass it with --allowedTools, or start the server with "
            "--permission-mode acceptEdits (edits in the workspace) or bypassPermissions."
        )


def build_service(options: ServeOptions, env: Mapping[str, str]) -> ToolService:
    """The tools, their context and the rules, wired as `build_session` wires a session's.
    Raises `ConfigError` for a missing workspace or a broken settings file."""
    start = options.workspace.expanduser().resolve()
    if not start.is_dir():
        raise ConfigError(f"workspace is not a directory: {start}")
    home = tether_home(env)
    user_home = Path(env.get("HOME") or Path.home())
    workspace = project_root(start, user_home=user_home)  # as a session started there
    explicit = options.settings_path.expanduser().resolve() if options.settings_path else None
    settings = load_settings(
        settings_files(workspace, home=home, user_home=user_home, explicit=explicit, start=start),
        required=explicit,
    )
    tools = [t for t in builtin_tools() if t.name not in SESSION_ONLY_TOOLS]
    scratch_dir = home / "scratch" / f"mcp-{uuid.uuid4()}"
    permissions, _ = permission_context(
        settings,
        options.safety,
        workspace=workspace,
        read_only_tools=frozenset(t.name for t in tools if t.read_only),
        read_dirs=(scratch_dir,),
    )
    hidden = hidden_tools(permissions.rules)
    sandbox = plan_session_sandbox(
        settings,
        workspace=workspace,
        scratch_dir=scratch_dir,
        home=user_home,
        extra_dirs=permissions.additional_dirs,
        permissions=permissions,
    )
    if sandbox.sandbox is not None:
        permissions = replace(permissions, bash_sandboxed=True)
    context = ToolContext(
        workspace=workspace,
        scratch_dir=scratch_dir,
        extra_dirs=permissions.additional_dirs,
        command_wrapper=sandbox.sandbox.wrap if sandbox.sandbox is not None else None,
        bash_refusal=sandbox.bash_refusal,
        read_denied=ToolGate(permissions=permissions).read_denied,
        cwd=start,
    )
    return ToolService(
        registry=ToolRegistry(t for t in tools if t.name not in hidden),
        context=context,
        permissions=permissions,
        notices=(sandbox.notice,) if sandbox.notice else (),
    )


def mcp_server(service: ToolService) -> Server[Any]:
    """The MCP server answering `tools/list` and `tools/call` from `service`."""
    listed = service.listed()

    async def list_tools(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        return ListToolsResult(tools=listed)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult:
        return await service.call(params.name, params.arguments or {})

    return Server(
        "tether",
        version=__version__,
        instructions=(
            f"tether's built-in tools, working in {service.context.workspace}. Each call is "
            f"checked by tether's permission rules (mode {service.permissions.mode}); a call "
            "they do not allow comes back as an error that says why."
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve(service: ToolService) -> None:
    """Serve over stdin and stdout until stdin closes; then stop the background commands."""
    server = mcp_server(service)
    try:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        await _finish(service)


async def _finish(service: ToolService) -> None:
    """Stop the background commands; then the run's scratch directory and record go."""
    await service.context.background.kill_all()
    service.context.files.snapshots.close()
    if service.context.run is not None:
        service.context.run.close()


def main(argv: list[str]) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else USAGE_ERROR
    mode: Mode | None = args.permission_mode
    options = ServeOptions(
        workspace=args.cwd or Path.cwd(),
        settings_path=args.settings,
        safety=SafetyOptions(
            mode,
            tuple(split_rules(args.allowed_tools)),
            tuple(split_rules(args.disallowed_tools)),
        ),
    )
    try:
        service = build_service(options, os.environ)
    except ConfigError as e:
        print(f"tether: {e}", file=sys.stderr)
        return USAGE_ERROR
    for notice in service.notices:
        _log(notice)
    home = tether_home(os.environ)
    for reaped in reap_dead_runs(home):
        if (notice := reaped.notice()) is not None:
            _log(notice)
    scratch = service.context.scratch_dir
    try:
        service.context.run = RunRecord.start(home, scratch_dir=scratch, session_id=scratch.name)
    except OSError as e:  # the tools work without it; only the clean-up after a kill is lost
        _log(f"cannot keep a run record under {home}: {e.strerror or e}")
    _log(
        f"serving {', '.join(service.registry.names())} in {service.context.workspace} "
        f"(permission mode {service.permissions.mode})"
    )
    asyncio.run(_serve_until_signal(service))
    _log("stopped (stdin closed)")
    return 0


async def _serve_until_signal(service: ToolService) -> None:
    """Serve until stdin closes; on SIGINT, SIGTERM or SIGHUP (the terminal or the client's
    session gone), stop the calls in flight and the background commands, and exit with
    128+N."""
    loop = asyncio.get_running_loop()
    signalled: asyncio.Future[signal.Signals] = loop.create_future()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, _resolve_once(signalled, sig))
    serving = asyncio.ensure_future(serve(service))
    await asyncio.wait({serving, signalled}, return_when=asyncio.FIRST_COMPLETED)
    if serving.done():
        signalled.cancel()
        serving.result()
        return
    serving.cancel()
    await service.idle()
    await _finish(service)
    _log(f"stopped ({signalled.result().name})")
    # Not a return: the SDK reads stdin in a worker thread blocked in readline, which nothing
    # wakes while the client keeps the pipe open, and both the cancelled server and the
    # interpreter's exit would wait for it.
    sys.stderr.flush()
    os._exit(128 + signalled.result())


def _resolve_once(
    future: asyncio.Future[signal.Signals], value: signal.Signals
) -> Callable[[], None]:
    def resolve() -> None:
        if not future.done():
            future.set_result(value)

    return resolve


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tether mcp serve",
        description="Offer tether's built-in tools to MCP clients over stdio, under tether's "
        "permission rules.",
    )
    parser.add_argument("--cwd", type=Path, help="the workspace (default: here)")
    parser.add_argument("--settings", type=Path, help="an extra settings file (highest precedence)")
    parser.add_argument(
        "--permission-mode",
        choices=MODES,
        help="how calls no rule allows are handled (default: the settings' defaultMode, else "
        "default, where they are refused as needing approval)",
    )
    add_rule_options(parser)
    return parser


def _mcp_tool(tool: Tool) -> McpTool:
    spec = tool.spec()
    return McpTool(
        name=spec.name,
        description=spec.description,
        input_schema=spec.input_schema,
        annotations=ToolAnnotations(read_only_hint=tool.read_only),
    )


def _denied(decision: Decision) -> str:
    rule = f" (rule {decision.rule})" if decision.rule else ""
    return f"Permission denied{rule}: {decision.reason}"


def _error(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=text)], is_error=True)


def _log(message: str) -> None:
    print(f"tether mcp serve: {message}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
