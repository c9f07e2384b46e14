"""The REPL's session, built in a worker thread while its first prompt is on screen.

Building a session imports every other layer of tether (pydantic, the protocol's models, tools,
core, the model catalogue: a few hundred milliseconds), which is longer than drawing a prompt.
This module imports none of it at load time; the worker thread does.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from tether.cli.terminal_text import terminal_safe

if TYPE_CHECKING:
    from tether.agents import AgentCatalog
    from tether.cli.instruction_imports import ProjectInstructions
    from tether.cli.mcp_setup import McpSetup
    from tether.cli.render import EventRenderer
    from tether.cli.setup import RunOptions
    from tether.core.session import Session
    from tether.teams.lead import LeadTeams

INTERRUPTED_HINT = "⏹ Interrupted"
"""What a turn stopped by Ctrl+C ends with. Here, not in the renderer, because the REPL also
shows it before the renderer (and the protocol it imports) is loaded."""


@dataclass(frozen=True)
class LazyOptions:
    """Run options made in the startup thread, for the command line: `RunOptions` lives in
    `tether.cli.setup`, which imports every layer. `cwd` is the workspace to show before they
    exist; `make` builds them."""

    cwd: Path
    make: Callable[[], RunOptions]
    trust_workspace: bool = False
    """`--trust-workspace`: known before the options are made (the trust question comes first)."""


class StartupFailed(Exception):
    """The session could not be built (a `ConfigError`); the message is for the user."""


@dataclass(frozen=True)
class Ready:
    """A built session, the renderer for its events, and the skills it offers."""

    session: Session
    renderer: EventRenderer
    options: RunOptions
    """What it was built from: switching to another session starts from these."""
    mcp: McpSetup | None = None
    """Its MCP servers (for /status and /mcp)."""
    lead: LeadTeams | None = None
    """Its team-lead side (agent teams on): messages to the lead are shown as they come."""
    instructions: ProjectInstructions | None = None
    """Its instruction files (`/memory` reloads them after an edit)."""
    agents: AgentCatalog | None = None
    """Its subagents as it started (/agents reads them again with `reread_agents`)."""
    reread_agents: Callable[[], AgentCatalog] | None = None
    """Reads the agent files again, for the session to offer from then on (`Built`)."""
    bypass_allowed: bool = False
    """Started in bypassPermissions, or with `--allow-dangerously-skip-permissions`: Shift+Tab
    may switch to it (as in Claude Code, never otherwise)."""
    status_line: tuple[str, int] | str | None = None
    """The `statusLine` setting (`tether.cli.status_line.status_setting`)."""
    output_style: str = "default"


class SessionStartup:
    """Builds the session in a worker thread, then prepares the model's SDK in another.

    The building task is created at once but first runs when the event loop is next idle:
    in the REPL that is once the prompt is drawn (or when the initial prompt's turn waits for
    the session), so the thread's imports do not compete with the drawing. Needs a running
    event loop."""

    def __init__(self, opts: RunOptions | LazyOptions, console: Console) -> None:
        self.console = console
        self.ready: Ready | None = None
        """The session once built; None before, or when building failed."""
        self._warming: asyncio.Task[Any] | None = None
        self.building = self._start(opts)
        """Done callbacks added here run after `ready` is set."""

    def _start(self, opts: RunOptions | LazyOptions) -> asyncio.Task[Ready]:
        building = asyncio.create_task(asyncio.to_thread(_build, opts, self.console))
        building.add_done_callback(self._built)
        return building

    async def restart(self, opts: RunOptions, *, reason: str = "other") -> None:
        """Close the current session (it is saved; `reason` is what its SessionEnd hooks are
        told) and build another from `opts`."""
        await self.close(reason)
        self.ready, self._warming = None, None
        self.building = self._start(opts)

    async def wait(self) -> Ready:
        """The session, once built; raises `StartupFailed` when it cannot be. Cancelling the
        wait leaves the building alone."""
        return await asyncio.shield(self.building)

    def raise_failure(self) -> None:
        """Raise what the building raised, if it has already failed."""
        if self.building.done() and not self.building.cancelled():
            error = self.building.exception()
            if error is not None:
                raise error

    async def close(self, reason: str = "other") -> None:
        """Wait for the threads (they cannot be stopped), then end the session: SessionEnd
        hooks (told `reason`), background commands stopped, its file synced, the model's
        client closed."""
        await asyncio.wait([self.building])
        if self._warming is not None:
            await asyncio.wait([self._warming])
        if self.ready is not None:
            for news in await self.ready.session.aclose(reason):
                print(f"tether: {terminal_safe(news)}", file=sys.stderr, flush=True)

    def _built(self, building: asyncio.Task[Ready]) -> None:
        if building.cancelled() or building.exception() is not None:
            return
        self.ready = building.result()
        self._warming = _warm_model(self.ready.session, self.console)


def _build(opts: RunOptions | LazyOptions, console: Console) -> Ready:
    """Runs in the startup thread: imports the layers, builds the session and its renderer."""
    from tether.cli.render import EventRenderer
    from tether.cli.setup import build
    from tether.protocol import ConfigError

    try:
        options = opts.make() if isinstance(opts, LazyOptions) else opts
        built = build(options)
    except ConfigError as e:
        raise StartupFailed(str(e)) from None
    session = built.session
    session.can_ask = True  # the REPL answers PermissionAsked: a call that needs approval is asked
    started = session.started()
    workspace = Path(started.cwd)
    renderer = EventRenderer(console, verbose=options.verbose, workspace=workspace)
    gate = session.agent.gate
    bypass = options.bypass_allowed or (
        gate is not None and gate.permissions.mode == "bypassPermissions"
    )
    return Ready(
        session,
        renderer,
        options,
        built.mcp,
        built.lead,
        instructions=built.instructions,
        agents=built.agents,
        reread_agents=built.reread_agents,
        bypass_allowed=bypass,
        status_line=built.status_line,
        output_style=built.output_style,
    )


def _warm_model(session: Session, console: Console) -> asyncio.Task[Any] | None:
    """Import the model's SDK in a thread while the user types its first message."""
    warm = getattr(session.agent.model, "warm", None)
    if not callable(warm):
        return None
    task = asyncio.create_task(asyncio.to_thread(warm))

    def report(done: asyncio.Task[Any]) -> None:
        if done.cancelled():
            return
        error = done.exception()
        if error is not None:
            console.print(
                Text(
                    f"(could not prepare the model client: {terminal_safe(str(error))})",
                    style="dim",
                )
            )

    task.add_done_callback(report)
    return task
