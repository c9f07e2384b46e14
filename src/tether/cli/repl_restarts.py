"""The REPL's commands that end the session and build another, each a restart: `/clear`,
`/add-dir DIR` (the same session rebuilt with DIR added), switching sessions (`/resume`,
`:resume`, `:fork`...) and Esc Esc's rewind (`/rewind`, `/checkpoint`). The REPL inherits
them through `repl_dispatch.ReplCommands`."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from prompt_toolkit import PromptSession
from rich.console import Console
from rich.text import Text

from tether.cli.add_dir import directory_to_add
from tether.cli.repl_commands import permission_mode
from tether.cli.repl_rewind import Checkpoints, keep_spend, rewind
from tether.cli.repl_sessions import opening, session_to_switch_to
from tether.cli.startup import Ready, SessionStartup
from tether.cli.terminal_text import terminal_safe

if TYPE_CHECKING:
    from tether.cli.setup import RunOptions
    from tether.cli.status_line import StatusLine

CLEARED = "Conversation cleared: the next message starts a new session (/resume finds the old one)."


class ReplRestarts:
    """The restarts, for the REPL to inherit: it supplies the session and what it shows."""

    console: Console
    startup: SessionStartup
    status: StatusLine
    prompt: PromptSession[str]
    _model_spec: str | None
    _checkpoints: Checkpoints
    _shell_context: list[str]
    _prefill: str
    _redraw_whole: bool
    """The session built next is a rewind's: its conversation is drawn again whole."""
    _same_session: bool
    """The session built next goes on from this one as it is (`/add-dir`): its conversation
    and the notices already said are not shown again."""

    async def _session(self) -> Ready | None:
        raise NotImplementedError

    def _on_startup_done(self, building: asyncio.Task[Ready]) -> None:
        raise NotImplementedError

    async def clear_conversation(self) -> None:
        """`/clear`: a new session (the old one stays saved, for `/resume`) with this one's
        model and permission mode, on a cleared screen; `/cost` and the statusLine's totals
        count from it, the wall duration as the new session's spend."""
        ready = await self._session()
        if ready is None:
            return
        fresh = self._carried_over(ready, start_source="clear")
        await self.restart_with(fresh, reason="clear")
        self.status.started = time.monotonic()  # the wall duration resets with the rest
        self.console.clear()
        self.console.print(Text(CLEARED, style="dim"))

    def _carried_over(self, ready: Ready, **changes: Any) -> RunOptions:
        """The options of a session that follows `ready` in this REPL with its model,
        permission mode, MCP servers (they stay as they are, as in Claude Code) and run."""
        if ready.mcp is not None:
            ready.mcp.carry()
        run = ready.session.agent.tool_context.run
        return opening(
            ready.options,
            model=self._model_spec or ready.options.model,
            permission_mode=permission_mode(ready.session),
            kept_mcp=ready.mcp,
            kept_run=run.hand_over() if run is not None else None,
            **changes,
        )

    async def add_directory(self, args: str) -> None:
        """`/add-dir DIR`: this session goes on with DIR as a working directory as well (as
        `--add-dir`: the file tools' rules and the sandbox take it),
        rebuilt on its own conversation with its id, spend and MCP servers kept, and shown as
        it is: Claude Code does not resume anything."""
        ready = await self._session()
        if ready is None:
            return
        if not args:
            self.console.print(Text("Usage: /add-dir DIR", style="yellow"))
            return
        context = ready.session.agent.tool_context
        working = (context.workspace,)
        directory = directory_to_add(context.shell_cwd, args, working, ready.options.add_dirs)
        if isinstance(directory, str):
            style = "red" if directory.startswith("✗") else "dim"
            self.console.print(Text(terminal_safe(directory), style=style))
            return
        saved = bool(ready.session.messages)  # a session is saved from its first message
        lifecycle = ready.session.lifecycle  # the session goes on: no SessionEnd, no Start
        lifecycle.hand_over()
        more = self._carried_over(
            ready,
            resume=ready.session.session_id if saved else None,
            add_dirs=(*ready.options.add_dirs, directory),
            goes_on_from=lifecycle,
        )
        if not saved:  # nothing to resume yet: a new session that keeps this one's id
            more = replace(more, session_id=ready.session.session_id)
        self._same_session = True
        await self.restart_with(more, rewound=True)  # the same session: its checkpoints hold
        self._same_session = False  # used, unless the building failed
        after = await self._session()
        if after is not None:
            keep_spend(ready.session, after.session)
        said = f"✓ Added {directory} as a working directory for this session."
        self.console.print(Text(terminal_safe(said), style="green"))

    async def restart_with(
        self, options: RunOptions, *, rewound: bool = False, reason: str = "resume"
    ) -> None:
        """End this session (it stays saved; its SessionEnd hooks are told `reason`) and build
        another from `options` (the same one from an earlier message when `rewound`: its
        earlier checkpoints are kept)."""
        if not rewound:
            self._checkpoints.clear()
        await self.startup.restart(options, reason=reason)
        self.startup.building.add_done_callback(self._on_startup_done)
        await self._session()  # its start-up notices show where a resumed one stopped

    async def switch_session(self, command: str, ref: str) -> None:
        """`:sessions` lists; `/resume [ID]`, `:resume ID` and `:fork ID` end this session
        (it stays saved) and continue the chosen one here."""
        ready = await self._session()
        if ready is None:
            return
        options = await session_to_switch_to(
            self.console, self.prompt, ready, command, ref, self._model_spec
        )
        if options is not None:
            await self.restart_with(options)
            # The session taken up brings its stored wall time, which holds this REPL's time
            # up to now when it is the one just left: counted from here, none is counted twice.
            self.status.started = time.monotonic()

    async def rewind(self) -> None:
        """Esc Esc: back to before a message of this session, its files too; the message is
        put back in the prompt."""
        ready = await self._session()
        if ready is None:
            return
        rewound = await rewind(
            self.console, self.prompt, ready, self._checkpoints, self._model_spec
        )
        if rewound is not None:
            self._shell_context = []
            self._redraw_whole = True  # as Claude Code: the conversation up to there, all of it
            await self.restart_with(rewound.options, rewound=True)
            after = await self._session()
            if after is not None:
                keep_spend(ready.session, after.session)
            self._prefill = rewound.text
