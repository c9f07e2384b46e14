"""The REPL's /doctor: what Claude Code's checks cover, for this session. The installation
(tether, Python), each settings file read again from disk (one that no longer parses would stop
the next start; keys tether does not know), the MCP servers' states and errors, the sandbox
(in use, or why not) and the model's endpoint (reached or not)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from rich.text import Text

from tether import __version__
from tether.cli.terminal_text import terminal_safe

if TYPE_CHECKING:
    from tether.cli.startup import Ready

CONNECT_WAIT_S = 5.0
"""How long the endpoint check waits for a connection."""


async def doctor(ready: Ready, user_home: Path) -> Text:
    """`/doctor`: one line a check, ✓ or ✗ (⚠ for what works but should be looked at)."""
    text = Text("Installation\n", style="bold")
    text.append(_line("✓", f"tether {__version__} · Python {sys.version.split()[0]}"))
    text.append(_line(" ", sys.executable))
    text.append("Settings files\n", style="bold")
    for mark, said in _settings(ready, user_home):
        text.append(_line(mark, said))
    text.append("MCP servers\n", style="bold")
    text.append_text(_mcp(ready))
    text.append("Sandbox\n", style="bold")
    text.append(_line(*_sandbox(ready)))
    text.append("Model\n", style="bold")
    text.append(_line(*await _endpoint(ready)))
    return text


def _line(mark: str, said: str) -> Text:
    style = {"✓": "green", "✗": "red", "⚠": "yellow"}.get(mark, "dim")
    return Text.assemble((f"  {mark} ", style), f"{terminal_safe(said)}\n")


def _settings(ready: Ready, user_home: Path) -> list[tuple[str, str]]:
    from tether.config.settings import load_settings, settings_files, tether_home
    from tether.protocol import ConfigError

    workspace = Path(ready.session.started().cwd)
    found: list[tuple[str, str]] = []
    for path in settings_files(workspace, home=tether_home(), user_home=user_home):
        if not path.exists():
            continue
        try:
            notes = load_settings([path]).notes
        except ConfigError as e:
            found.append(("✗", f"{e} (the next start stops here)"))
            continue
        found.append(("⚠" if notes else "✓", str(path)))
        found.extend(("⚠", f"  {note}") for note in notes)
    return found or [(" ", "none: every setting has its default")]


def _mcp(ready: Ready) -> Text:
    mcp = ready.mcp
    if mcp is None or not mcp.servers:
        return _line(" ", "none configured (.mcp.json, or `tether mcp add`)")
    statuses = mcp.manager.statuses() if mcp.manager is not None else {}
    text = Text()
    for server in mcp.servers:
        status = statuses.get(server.name)
        state = mcp.state(server.name)
        error = status.error.splitlines()[0] if status is not None and status.error else ""
        mark = "✗" if error or state == "failed" else "✓" if state == "connected" else "⚠"
        if state == "disabled" and not error:  # turned off on purpose: nothing to warn about
            mark, error = " ", f"/mcp enable {server.name} starts it"
        text.append(_line(mark, f"{server.name}: {state}" + (f": {error}" if error else "")))
    return text


def _sandbox(ready: Ready) -> tuple[str, str]:
    context = ready.session.agent.tool_context
    if context.command_wrapper is not None:
        return "✓", "Bash commands run in the sandbox"
    if context.bash_refusal is not None:
        return "✗", context.bash_refusal.splitlines()[0]
    from tether.sandbox.probe import probe

    status = probe()
    if status.works:
        return "⚠", "available, but off for this session (sandbox.enabled in settings)"
    return "⚠", f"not available here: {status.reason}"


async def _endpoint(ready: Ready) -> tuple[str, str]:
    from tether.models.endpoint import Endpoint

    endpoint = getattr(ready.session.agent.model, "endpoint", None)
    model = ready.session.agent.model_id
    if not isinstance(endpoint, Endpoint):
        return " ", f"{model} (no network endpoint to check)"
    url = urlparse(endpoint.base_url)
    port = url.port or (443 if url.scheme == "https" else 80)
    named = f"{model} at {endpoint.shown}"
    try:
        async with asyncio.timeout(CONNECT_WAIT_S):
            _, writer = await asyncio.open_connection(url.hostname, port)
    except (OSError, TimeoutError) as e:
        return "✗", f"{named}: cannot connect ({e or 'no answer'})"
    writer.close()
    return "✓", f"{named}: reachable"
