"""The REPL's /agents (the subagents the session offers, by source, or one of them), /config
(the settings in force with the file each comes from; `/config KEY VALUE` writes the user's
settings file, as Claude Code's panel does) and /export (the conversation as text, to a file).
What they read is the session's: its agent catalogue, its settings layers, its messages."""

from __future__ import annotations

import errno
import json
import os
import secrets
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text

from tether.cli.config_set import CONFIG_USAGE, VIEWED_ELSEWHERE, change_config, file_warnings
from tether.cli.repl_help import shorten_home
from tether.cli.terminal_text import terminal_safe

if TYPE_CHECKING:
    from tether.agents import AgentCatalog
    from tether.agents.definitions import AgentDefinition
    from tether.cli.startup import Ready
    from tether.core.session import Session

AGENTS_HOW = (
    "A new agent is a Markdown file with `name` and `description` front matter (optionally "
    "`tools`, `model`), its body the agent's instructions: .claude/agents/NAME.md for this "
    "project, ~/.claude/agents/NAME.md for every project. /agents reads the files again: it is "
    "offered from then on."
)


def agent_source(agent: AgentDefinition, workspace: Path, user_home: Path) -> str:
    """Where an agent comes from, as Claude Code groups them."""
    if agent.path is None:
        return "built-in"
    if agent.path.is_relative_to(user_home / ".claude") or agent.path.is_relative_to(
        user_home / ".tether"
    ):
        return "user"
    if agent.path.is_relative_to(workspace):
        return "project"
    return "plugin"


def describe_agents(
    catalog: AgentCatalog | None, args: str, workspace: Path, user_home: Path
) -> Text:
    """`/agents`: the agents by source; `/agents NAME`: one of them; `/agents create`: how."""
    if catalog is None:
        return Text("This session offers no subagents.", style="dim")
    name = args.strip()
    if name in ("create", "new"):
        return Text(AGENTS_HOW)
    if name:
        agent = catalog.get(name)
        if agent is None:
            known = ", ".join(catalog.names()) or "none"
            return Text(f"✗ No agent {terminal_safe(name)!r} (agents: {known}).", style="red")
        return _one_agent(agent, agent_source(agent, workspace, user_home))
    groups: dict[str, list[AgentDefinition]] = {}
    for agent in catalog.agents:
        groups.setdefault(agent_source(agent, workspace, user_home), []).append(agent)
    text = Text()
    for source in ("project", "user", "plugin", "built-in"):
        if source not in groups:
            continue
        text.append(f"{source} agents\n", style="bold")
        for agent in groups[source]:
            summary = " ".join(agent.description.split())
            summary = summary[:77] + "…" if len(summary) > 78 else summary
            text.append(f"  {terminal_safe(agent.name):<24} {terminal_safe(summary)}\n")
    for unusable in catalog.unusable:
        text.append(f"  ✗ {terminal_safe(str(unusable.path))}: ", style="yellow")
        text.append(f"{terminal_safe(unusable.reason)}\n", style="yellow")
    return text.append("/agents NAME shows one; /agents create says how to add one.", style="dim")


def _one_agent(agent: AgentDefinition, source: str) -> Text:
    tools = ", ".join(agent.tools) if agent.tools is not None else "all of the session's"
    lines = [
        f"{agent.name} ({source})",
        f"  file:        {agent.path or 'built into tether'}",
        f"  model:       {agent.model or 'as the session'}",
        f"  tools:       {tools}",
        f"  description: {' '.join(agent.description.split())}",
        "",
        *agent.system_prompt.strip().splitlines()[:20],
    ]
    return Text(terminal_safe("\n".join(lines)))


def describe_config(session: Session, decisions: Path | None = None) -> Text:
    """`/config`: each setting in force, its value and the file that set it (a later file
    wins a key; tables merge, so the last file to touch one is named). `decisions`: the file
    `/mcp enable|disable` keeps its decisions in while the session runs: they are in force at
    once, so their keys are shown as that file holds them now."""
    gate = session.agent.gate
    layers = list(gate.sources.layers if gate is not None else ())
    if decisions is not None:
        layers = _with_live_decisions(layers, decisions)
    where: dict[str, Path] = {}
    values: dict[str, Any] = {}
    for path, data in layers:
        for key, value in data.items():
            where[key] = path
            merged = values.get(key)
            if isinstance(value, Mapping) and isinstance(merged, Mapping):
                values[key] = {**merged, **value}
            else:
                values[key] = value
    if not values:
        text = Text("No settings files set anything for this session.\n", style="dim")
        return text.append(CONFIG_USAGE, style="dim")
    text = Text()
    for key in sorted(values):
        shown = json.dumps(values[key], ensure_ascii=False)
        if key in VIEWED_ELSEWHERE:
            shown = f"(see {VIEWED_ELSEWHERE[key]})"
        elif len(shown) > 70:
            shown = shown[:69] + "…"
        text.append(f"  {terminal_safe(key):<28} {terminal_safe(shown)}\n")
        text.append(f"      from {terminal_safe(shorten_home(where[key]))}\n", style="dim")
    for note in file_warnings(layers):
        text.append(f"⚠ {terminal_safe(note)}\n", style="yellow")
    return text.append(CONFIG_USAGE, style="dim")


def _with_live_decisions(
    layers: list[tuple[Path, Mapping[str, Any]]], decisions: Path
) -> list[tuple[Path, Mapping[str, Any]]]:
    """`layers` with the MCP decision keys of the file `decisions` as it is now (the file
    added as the last layer if it was not there at the start)."""
    from tether.cli.mcp_decisions import DISABLED_KEY, ENABLED_KEY, SERVER_DISABLED_KEY

    try:
        now: Any = json.loads(decisions.read_text(encoding="utf-8"))
    except FileNotFoundError:
        now = {}
    except (OSError, ValueError):  # unreadable: what the session read at its start stands
        return layers
    if not isinstance(now, Mapping):
        return layers
    keys = (ENABLED_KEY, DISABLED_KEY, SERVER_DISABLED_KEY)
    live = {k: v for k, v in now.items() if k in keys}  # pyright: ignore[reportUnknownVariableType]
    found = False
    changed: list[tuple[Path, Mapping[str, Any]]] = []
    for path, data in layers:
        if path == decisions:
            found = True
            data = {**{k: v for k, v in data.items() if k not in keys}, **live}
        changed.append((path, data))
    if not found and live:
        changed.append((decisions, live))
    return changed


def export_conversation(session: Session, args: str, workspace: Path) -> Text:
    """`/export [FILE]`: the conversation as text (as `tether sessions show` prints it) written
    to FILE, or to a file named for the time in the workspace (no clipboard is assumed). A
    name already there (a file, or a link even to nothing) is left as it is: the export is
    refused, as it is when a link on the way leads out of the workspace or to nothing. The
    file appears whole or not at all."""
    from tether.cli.sessions_cmd import describe_message
    from tether.cli.written_paths import home_expanded

    name = home_expanded(args.strip() or time.strftime("conversation-%Y-%m-%d-%H%M%S.txt"))
    if name.startswith("~") or "\0" in name:
        why = name if name.startswith("~") else "a path holds no NUL byte"
        return Text(f"✗ /export: {why}; nothing written. Name another file.", style="red")
    path = Path(os.path.abspath(workspace / name))
    refused = _link_refusal(path, workspace)
    if refused is not None:
        return Text(f"✗ /export: {refused}; nothing written. Name another file.", style="red")
    parts = [f"session {session.session_id} · model {session.agent.model_id}"]
    parts.extend(describe_message(message) for message in session.messages)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        on_way = next((p for p in path.parents if p.exists() and not p.is_dir()), path.parent)
        return Text(f"✗ /export: {on_way} is a file, not a folder; nothing written.", style="red")
    except OSError as e:
        return Text(f"✗ /export: cannot write {path}: {e.strerror or e}", style="red")
    try:
        _write_new_file(path, "\n\n".join(parts) + "\n")
    except FileExistsError:
        return Text(
            f"✗ /export: {path} exists; it is not overwritten. Name another file.", style="red"
        )
    except OSError as e:
        return Text(f"✗ /export: cannot write {path}: {e.strerror or e}", style="red")
    count = len(session.messages)
    return Text(f"✓ Conversation ({count} messages) exported to {path}", style="green")


def _link_refusal(path: Path, workspace: Path) -> str | None:
    """Why `path` is not written through the links on its way, if it is not: the name itself
    a link (to nothing: writing would create its target, wherever it points) or a folder, a
    directory on the way a link to nothing (it would be created there), or, for a name inside
    the workspace (relative or absolute), a link that leads out of it."""
    if path.is_dir() and not path.is_symlink():
        return f"{path} is a folder; name a file in it"
    if path.is_symlink():
        target = os.readlink(path)
        if path.exists():
            return f"{path} is a link to {target}; it is not written through"
        return f"{path} is a link to {target}, which does not exist; it is not followed"
    for directory in reversed(path.parents):
        if directory.is_symlink() and not directory.exists():
            target = os.readlink(directory)
            return f"{directory} is a link to {target}, which does not exist; it is not followed"
    if not path.is_relative_to(workspace):
        return None  # a place named outside the workspace on purpose
    real_workspace = workspace.resolve()
    real = path.parent.resolve()
    if real.is_relative_to(real_workspace):
        return None
    for directory in reversed(path.parents):
        if directory.is_relative_to(workspace) and directory.is_symlink():
            target = os.readlink(directory)
            return f"{directory} is a link out of the workspace (to {target}); it is not followed"
    return f"{path.parent} leads out of the workspace (to {real}); it is not followed"


_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _write_new_file(path: Path, content: str) -> None:
    """Write `path` whole or not at all, never over anything there: the text goes to a
    temporary file beside it, which is then linked in under the name (`link` fails on any
    name there, a link to nothing included, and follows none). Its mode is what the umask
    gives a new file, as a shell's redirection would."""
    temporary = path.with_name(f".export-{secrets.token_hex(6)}.tmp")  # short: any name fits
    fd = os.open(temporary, _NEW_FILE, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(content)
        try:
            os.link(temporary, path)
        except FileExistsError:
            raise
        except OSError as e:
            if e.errno not in (errno.EPERM, errno.EOPNOTSUPP):
                raise
            _write_exclusively(path, content)  # a file system without hard links
    finally:
        os.unlink(temporary)


def _write_exclusively(path: Path, content: str) -> None:
    with os.fdopen(os.open(path, _NEW_FILE, 0o666), "w", encoding="utf-8") as file:
        file.write(content)


ADMIN_COMMANDS = ("/export", "/doctor", "/config", "/agents")


async def admin_command(ready: Ready, name: str, args: str, user_home: Path) -> Text:
    """What one of `ADMIN_COMMANDS` says (and does)."""
    session = ready.session
    workspace = Path(session.started().cwd)
    if name == "/export":
        return export_conversation(session, args, session.agent.tool_context.shell_cwd)
    if name == "/doctor":
        from tether.cli.repl_doctor import doctor

        return await doctor(ready, user_home)
    if name == "/config":
        if not args:
            return describe_config(session, ready.mcp.local_settings if ready.mcp else None)
        gate = session.agent.gate
        return change_config(args, user_home, gate.sources.layers if gate is not None else ())
    catalog = ready.reread_agents() if ready.reread_agents is not None else ready.agents
    return describe_agents(catalog, args, workspace, user_home)
