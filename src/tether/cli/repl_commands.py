"""What the REPL's commands about the session itself print and change: /model, /status,
/permissions, /mcp, and the permission modes Shift+Tab cycles through.

Loaded with the prompt (the toolbar names the mode), so nothing here imports the session's
layers at load time; they are imported when a command runs, once the session is built.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text

from tether.cli.repl_help import shorten_home
from tether.cli.terminal_text import terminal_safe
from tether.relocated_files import file_name

if TYPE_CHECKING:
    from tether.cli.mcp_setup import McpSetup
    from tether.cli.startup import Ready
    from tether.core.session import Session
    from tether.mcp.catalog import ServerStatus
    from tether.permissions.rules import Mode

SESSION_COMMANDS = (
    "/model",
    "/status",
    "/permissions",
    "/mcp",
    "/context",
    "/hooks",
    "/output-style",
)

MODE_CYCLE = ("default", "acceptEdits", "plan")
"""What Shift+Tab steps through, in Claude Code's order."""

MODE_LABELS = {
    "default": "ask before edits",
    "acceptEdits": "⏵⏵ accept edits",
    "plan": "⏸ plan mode",
    "dontAsk": "don't ask (deny the rest)",
    "bypassPermissions": "bypass permissions",
}
"""How the toolbar names each mode."""


def permission_mode(session: Session) -> Mode:
    gate = session.agent.gate
    return gate.permissions.mode if gate is not None else "default"


def cycle_mode(session: Session, *, bypass_allowed: bool = False) -> str:
    """Shift+Tab: the next mode of `MODE_CYCLE` for the calls that follow (bypassPermissions
    after plan, only for a session started in it or with `--allow-dangerously-skip-permissions`);
    from a mode outside the cycle (set by a flag) back to its start."""
    cycle = (*MODE_CYCLE, "bypassPermissions") if bypass_allowed else MODE_CYCLE
    mode = permission_mode(session)
    index = cycle.index(mode) + 1 if mode in cycle else 0
    following = cycle[index % len(cycle)]
    session.set_permission_mode(following)
    return following


async def switch_model(session: Session, spec: str) -> tuple[bool, Text]:
    """`/model NAME`: the next request uses NAME (aliases as `--model` takes them); whether
    it switched, and what to say. A name that cannot be resolved changes nothing."""
    from tether.protocol import ConfigError, HarnessError, SetModel

    before = session.agent.model_id
    try:
        async for _ in session.submit(SetModel(model=spec)):
            pass
    except (ConfigError, HarnessError) as e:
        return False, Text(f"✗ /model {spec}: {e} (still {before})", style="red")
    return True, Text(f"Model: {session.agent.model_id} (was {before})", style="cyan")


def describe_model(session: Session) -> Text:
    """`/model` alone: the model in use and how to change it."""
    text = Text(f"Model: {session.agent.model_id}\n")
    text.append("/model NAME switches (opus, sonnet, haiku, a model id or provider/model)", "dim")
    return text


def describe_status(ready: Ready) -> Text:
    """`/status`: what this session is, in one screen."""
    session = ready.session
    window = session.agent.compaction.policy.window if session.agent.compaction else 0
    used = session.context_tokens
    share = f" ({used * 100 // window}% of {window:,})" if window else ""
    lines = [
        f"Model:      {session.agent.model_id}",
        f"Mode:       {permission_mode(session)}",
        f"Workspace:  {session.started().cwd}",
        f"Session:    {session.session_id}",
        f"Context:    {used:,} tokens{share}",
        "MCP:        " + (", ".join(_server_lines(ready.mcp, brief=True)) or "no servers"),
    ]
    return Text("\n".join(lines))


MCP_USAGE = "/mcp [reconnect|enable|disable SERVER]"


def describe_mcp(mcp: McpSetup | None) -> Text:
    """`/mcp`: each server, its state, how many tools it offers and their names."""
    lines = _server_lines(mcp, brief=False)
    if not lines:
        return Text("No MCP servers (.mcp.json, or `tether mcp add`).", style="dim")
    assert mcp is not None
    tools = mcp.manager.tools() if mcp.manager is not None else []
    text = Text("MCP servers\n")
    for server, line in zip(mcp.servers, lines, strict=True):
        text.append(f"  {terminal_safe(line)}\n")
        names = [tool.name for tool in tools if tool.server == server.name]
        if names:
            text.append(f"    {terminal_safe(', '.join(names))}\n", style="dim")
    return text.append(f"{MCP_USAGE}: reconnect a server, or turn it off or on", style="dim")


def mcp_failure_line(server: str) -> str:
    """The notice a server that failed to connect gets (Claude Code's "MCP server failed ·
    /mcp", naming the server; `/mcp` shows why)."""
    return f"⚠ MCP server {terminal_safe(server)!r} failed to connect · /mcp for details"


async def change_mcp(mcp: McpSetup | None, args: str) -> Text:
    """`/mcp reconnect|enable|disable SERVER`: what happened, or why nothing did, in Claude
    Code's words (`Disabled "NAME".`), with where tether keeps the decision."""
    from tether.cli.sdk_facts import server_state

    verb, _, rest = args.partition(" ")
    name = server_name(rest)
    if verb not in ("reconnect", "enable", "disable") or not name:
        return Text(f"Usage: {MCP_USAGE}", style="yellow")
    quoted = f'"{terminal_safe(name)}"'
    if verb == "enable" and mcp is not None and mcp.enable_declined(name):
        # As Claude Code, the answer waits for the connection: it says whether it came up.
        if mcp.manager is not None:
            await mcp.manager.connected([name])
            status = mcp.manager.statuses().get(name)
            if status is not None:
                return _enabled_or_not(quoted, status, _kept_decision(mcp, name, verb))
        kept = _kept_decision(mcp, name, verb)
        return Text(f"✓ Enabled {quoted}, but it isn't connected yet (connecting).{kept}", "green")
    manager = mcp.manager if mcp is not None else None
    if manager is None or name not in manager.statuses():
        if verb == "disable" and mcp is not None and mcp.state(name) == "disabled":
            kept = _kept_decision(mcp, name, verb)
            return Text(f"✓ {quoted} is already disabled.{kept}", style="green")
        return Text(
            f"✗ There's no MCP server named {quoted}. Run /mcp to see configured servers.",
            style="red",
        )
    before = manager.statuses()[name]
    if verb == "disable" and server_state(before) == "disabled":
        kept = _kept_decision(mcp, name, verb)
        return Text(f"✓ {quoted} is already disabled.{kept}", style="green")
    if verb == "reconnect" and server_state(before) == "disabled":
        return Text(f"✗ {quoted} is disabled. Run /mcp enable {name} to bring it back.", "red")
    if verb == "reconnect":
        status = await manager.reconnect(name)
    else:
        status = await manager.set_enabled(name, verb == "enable")
    kept = _kept_decision(mcp, name, verb)
    if verb == "enable":
        return _enabled_or_not(quoted, status, kept)
    if status.error:
        reason = terminal_safe(status.error.splitlines()[0])
        return Text(f"✗ Couldn't {verb} {quoted}: {reason}", style="red")
    if verb == "disable":
        was = ""
        if before.error:
            why = terminal_safe(before.error.splitlines()[0])
            was = f" It was not running (it had failed to connect: {why})."
        elif before.state == "pending":
            was = " It was still connecting, and was stopped."
        return Text(f"✓ Disabled {quoted}.{kept}{was}", style="green")
    if status.state != "connected":
        state = server_state(status)
        return Text(f"✓ Reconnected {quoted}, but it isn't connected yet ({state}).", "green")
    return Text(f"✓ Reconnected {quoted}.", style="green")


def _enabled_or_not(quoted: str, status: ServerStatus, kept: str) -> Text:
    """What `/mcp enable` says once the server's connection came up or failed."""
    from tether.cli.sdk_facts import server_state

    if status.error:
        reason = terminal_safe(status.error.splitlines()[0])
        return Text(f"✗ Enabled {quoted}, but it isn't connected yet: {reason}{kept}", "red")
    if status.state != "connected":
        state = server_state(status)
        return Text(f"✓ Enabled {quoted}, but it isn't connected yet ({state}).{kept}", "green")
    return Text(f"✓ Enabled {quoted}.{kept}", style="green")


def mcp_change_stopped(mcp: McpSetup | None, args: str) -> Text:
    """What `/mcp VERB NAME` stopped by Ctrl+C left: the server as it is now (a connection
    cut short is failed), and how to try again. Ctrl+C stops the connecting, not the user's
    decision: an enable stopped leaves the server enabled (failed, as one that could not
    connect), and the decision kept for the project is the one in force, so that /config, the
    next session and this one agree."""
    verb, _, rest = args.partition(" ")
    name = server_name(rest)
    state = mcp.state(name) if mcp is not None else "failed"
    kept = ""
    if verb in ("enable", "disable"):
        kept = _kept_decision(mcp, name, "disable" if state == "disabled" else "enable")
    said = f"✗ /mcp {verb} {name}: stopped (Ctrl+C); {name} is {state}{kept}"
    if state == "failed":
        said += f": /mcp reconnect {name} to try again"
    return Text(terminal_safe(said + "."), style="yellow")


def server_name(given: str) -> str:
    """The server named by `/mcp VERB NAME`'s NAME, split as a shell would (`'broken srv'`
    and `broken\\ srv` name `broken srv`); words left unquoted (`broken srv`) are the name
    as typed, and so is a name a shell could not split (`it's`)."""
    import shlex

    given = given.strip()
    try:
        words = shlex.split(given)
    except ValueError:
        return given
    return words[0] if len(words) == 1 else given


def _kept_decision(mcp: McpSetup | None, name: str, verb: str) -> str:
    """`/mcp enable|disable` is a decision kept for the project, as Claude Code keeps it: for
    a repository's server, as the answer to the question at start-up; for any other, in
    `disabledMcpServers` (`tether.cli.mcp_decisions`); what to say of it."""
    from tether.cli.mcp_setup import APPROVED_SCOPES

    if mcp is None or verb == "reconnect":
        return ""
    server = next((s for s in mcp.servers if s.name == name), None)
    if server is None:
        return ""
    from tether.cli.mcp_decisions import decide_servers, keep_server_off

    yes = verb == "enable"
    where = shorten_home(mcp.local_settings)
    off_key = "disabledMcpjsonServers" if server.scope in APPROVED_SCOPES else "disabledMcpServers"
    # A file tether does not keep turns it off again at the next start: the enable is for now.
    others = mcp.kept_off.get((off_key, name), []) if yes else []
    still = ", ".join(shorten_home(path) for path in others)
    session_only = f" (for this session only: {off_key} in {still} keeps it off)"
    if server.scope not in APPROVED_SCOPES:
        if not keep_server_off(mcp.local_settings, name, not yes) and yes:
            return session_only if others else ""  # nothing to undo in the user's store
        if others:
            return f" (taken out of disabledMcpServers in {where}; for this session only: " + (
                f"{off_key} in {still} keeps it off)"
            )
        said = "taken out of " if yes else ""
        return f" (kept for this project: {said}disabledMcpServers in {where})"
    decide_servers(
        mcp.local_settings, enabled=[name] if yes else [], disabled=[] if yes else [name]
    )
    if others:  # a rejection wins over the approval kept
        return session_only
    key = "enabledMcpjsonServers" if yes else "disabledMcpjsonServers"
    return f" (kept for this project: {key} in {where})"


def _server_lines(mcp: McpSetup | None, *, brief: bool) -> list[str]:
    if mcp is None:
        return []
    statuses = mcp.manager.statuses() if mcp.manager is not None else {}
    lines: list[str] = []
    for server in mcp.servers:
        status = statuses.get(server.name)
        state = mcp.state(server.name)
        if brief:
            lines.append(f"{server.name} ({state})")
            continue
        tools = status.tools if status is not None else 0
        line = f"{server.name:<20} {state:<10} {tools} tool{'' if tools == 1 else 's'}"
        if status is not None and status.error:
            line += f"  {status.error.splitlines()[0]}"
        elif state == "disabled":
            line += f"  /mcp enable {server.name}"
        lines.append(line)
    return lines


def describe_permissions(session: Session) -> Text:
    """`/permissions`: the mode, and the rules in force by the layer that set them (later
    layers listed last; a deny at any layer cannot be re-allowed)."""
    gate = session.agent.gate
    text = Text(f"Mode: {permission_mode(session)}  (Shift+Tab cycles {' → '.join(MODE_CYCLE)})\n")
    if gate is None:
        return text.append("No permission rules: every call runs.")
    sources = gate.sources
    layers: list[tuple[str, Mapping[str, Any]]] = [
        (str(file_name(path)), _rules_of(data)) for path, data in sources.layers
    ]
    kept = gate.remembered
    flags = {"allow": [r for r in sources.extra_allow if r not in kept], "deny": sources.extra_deny}
    layers.append(("saved for this project (always allow), from this session", {"allow": kept}))
    layers.append(("command line and this session", flags))
    shown = False
    for where, rules in layers:
        lists = {kind: _strings(rules.get(kind)) for kind in ("allow", "ask", "deny")}
        if not any(lists.values()):
            continue
        shown = True
        text.append(f"\n{shorten_home(where)}\n", style="bold")
        for kind, patterns in lists.items():
            for pattern in patterns:
                text.append(f"  {kind:<6}{pattern}\n")
    if not shown:
        text.append("\nNo rules: calls that change things are asked about.\n", style="dim")
    return text


def _rules_of(data: Mapping[str, Any]) -> Mapping[str, Any]:
    table = data.get("permissions")
    return cast(Mapping[str, Any], table) if isinstance(table, Mapping) else {}


def _strings(value: object) -> Sequence[str]:
    if not isinstance(value, list):
        return ()
    return [item for item in cast(list[object], value) if isinstance(item, str)]
