"""The REPL's commands: built-in ones (`/help`, `/cost`, `/compact`, `/todos`, `/init`, the
session commands of `repl_commands`), then the session's skills and its MCP servers' prompts
by name; `!command`. Those that are a restart (`/clear`, `/add-dir`, switching sessions, Esc
Esc's rewind) are `repl_restarts`'. The prompt loop (`repl.py`) gives the session and runs
turns."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from tether.cli.ask import no_echo
from tether.cli.init_prompt import INIT_COMMAND, init_message
from tether.cli.mentions import run_for_user
from tether.cli.repl_admin import ADMIN_COMMANDS, admin_command
from tether.cli.repl_commands import (
    SESSION_COMMANDS,
    change_mcp,
    describe_mcp,
    describe_model,
    describe_permissions,
    describe_status,
    mcp_change_stopped,
    switch_model,
)
from tether.cli.repl_help import (
    command_summaries,
    describe_help,
    skill_message,
    unknown_command,
)
from tether.cli.repl_restarts import ReplRestarts
from tether.cli.startup import Ready
from tether.cli.terminal_text import terminal_safe
from tether.cli.user_context import shell_context

if TYPE_CHECKING:
    from tether.cli.status_line import StatusLine
    from tether.skills import Skill

NO_PLAN = "No plan yet: for a task of several steps the model keeps one (TodoWrite)."


class Next(Enum):
    """What the prompt loop does after a command."""

    PROMPT = "prompt"
    EXIT = "exit"


class ReplCommands(ReplRestarts):
    """The commands, for the REPL to inherit: it supplies the session and turns."""

    status: StatusLine
    watch_terminal: bool
    _changing: asyncio.Task[Text] | None
    """`/mcp enable|reconnect|disable NAME` under way: Ctrl+C cancels it."""

    async def run_turn(self, text: str, typed: str | None = None) -> None:
        raise NotImplementedError

    async def _ask_startup_questions(self, ready: Ready) -> None:
        raise NotImplementedError

    async def _prepare(self, ready: Ready) -> None:
        raise NotImplementedError

    async def run_command(self, line: str) -> Next:
        """A built-in command (the rest of the line is ignored), or a skill to run with the
        rest of the line as its arguments."""
        name, *rest = line.split(maxsplit=1)
        name, args = name.lower(), rest[0].strip() if rest else ""
        if name in ("/exit", "/quit"):
            return Next.EXIT
        if name in ("/resume", ":resume", ":fork", ":sessions"):
            await self.switch_session(name, args)
            return Next.PROMPT
        if name == "/help":
            ready = await self._session()
            self.console.print(
                describe_help(
                    ready.session.skills if ready else None,
                    command_summaries(ready.session) if ready else None,
                ),
                highlight=False,
            )
        elif name == "/cost":
            ready = await self._session()
            if ready is not None:
                from tether.cli.cost_summary import describe_cost
                from tether.cli.cost_view import session_spend
                from tether.config.settings import tether_home

                by_model, spent = session_spend(ready.session.session_id, tether_home())
                wall = time.monotonic() - self.status.started
                text = describe_cost(ready.session, wall_s=wall, by_model=by_model, breakdown=spent)
                self.console.print(text, markup=False, highlight=False)
        elif name == "/compact":
            from tether.protocol import Compact

            ready = await self._session()
            if ready is not None:
                async for event in ready.session.submit(Compact(focus=args or None)):
                    ready.renderer.render(event)
        elif name == "/todos":
            ready = self.startup.ready  # no turn ran (no plan was made) before it was built
            plan = ready.renderer.plan_checklist() if ready is not None else None
            self.console.print(plan or Text(NO_PLAN, style="dim"))
        elif name == "/clear":
            await self.clear_conversation()
        elif name in ("/rewind", "/checkpoint"):
            await self.rewind()
        elif name == "/statusline":
            from tether.cli.status_line import HELP

            self.console.print(Text(HELP, style="dim"), highlight=False)
        elif name == "/memory":
            ready = await self._session()
            if ready is not None:
                from tether.cli.repl_memory import edit_memory

                await edit_memory(self.console, self.prompt, ready, Path.home())
        elif name == INIT_COMMAND:
            ready = await self._session()
            if ready is not None:
                self.console.print(Text("✻ /init: writing CLAUDE.md", style="dim"))
                await self.run_turn(
                    init_message(Path(ready.session.started().cwd), args),
                    typed=f"/init {args}".rstrip(),
                )
        elif name == "/add-dir":
            await self.add_directory(args)
        elif name in ADMIN_COMMANDS:
            ready = await self._session()
            if ready is not None:
                said = await admin_command(ready, name, args, Path.home())
                self.console.print(said, highlight=False)
        elif name in SESSION_COMMANDS:
            ready = await self._session()
            if ready is not None:
                await self.show_session_command(ready, name, args)
        else:
            ready = await self._session()
            if ready is not None:  # MCP servers' prompts are known once they are connected
                await self._ask_startup_questions(ready)
                await self._prepare(ready)
            skill = ready.session.skills.runnable(name[1:]) if ready is not None else None
            command = ready.session.commands.get(name[1:]) if ready is not None else None
            if skill is not None:
                await self.run_skill(skill, args)
            elif command is not None:
                await self.run_prompt_command(name, command, args)
            elif ready is not None:
                self.console.print(Text(unknown_command(ready.session.skills, name), "yellow"))
        return Next.PROMPT

    async def show_session_command(self, ready: Ready, name: str, args: str) -> None:
        """/model, /status, /permissions, /context, /mcp (see `tether.cli.repl_commands`)."""
        if name == "/model" and args:
            switched, said = await switch_model(ready.session, args)
            if switched:
                self._model_spec = args
        elif name == "/model":
            said = describe_model(ready.session)
        elif name == "/status":
            said = describe_status(ready)
        elif name == "/permissions" and args:
            from tether.cli.permissions_edit import edit_permissions

            said = edit_permissions(ready.session, args, user_home=Path.home())
        elif name == "/permissions":
            said = describe_permissions(ready.session)
        elif name == "/hooks":
            from tether.cli.session_views import describe_hooks

            said = describe_hooks(ready.session)
        elif name == "/output-style":
            from tether.cli.session_views import output_style

            said = output_style(args, ready.session.agent.tool_context.workspace, Path.home())
        elif name == "/context":
            from tether.cli.context_view import describe_context

            said = describe_context(ready.session)
        elif args:
            said = await self._change_mcp(ready, args)
        else:
            await self._prepare(ready)  # the servers' states once they had their chance
            said = describe_mcp(ready.mcp)
        self.console.print(said, highlight=False)

    async def _change_mcp(self, ready: Ready, args: str) -> Text:
        """`/mcp VERB NAME`, as a task Ctrl+C cancels (`interrupt_turn`), as it drops a
        message waiting for the session: a server slow to start does not hold the REPL."""
        self._changing = asyncio.create_task(change_mcp(ready.mcp, args))
        try:
            return await self._changing
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
            return mcp_change_stopped(ready.mcp, args)
        finally:
            self._changing = None

    async def run_prompt_command(
        self, name: str, command: Callable[[str], Awaitable[str]], args: str
    ) -> None:
        """A custom command or an MCP server's prompt: expanded with the arguments, then sent
        as the message (on the model its front matter names, for a custom command)."""
        from tether.cli.command_expansion import expansion_hooks
        from tether.cli.custom_commands import command_model
        from tether.protocol import HarnessError

        ready = await self._session()
        if ready is None:
            return
        try:
            message = await command(args)
            message = await expansion_hooks(
                ready.session, name[1:], args, message, ready.renderer.render
            )
        except HarnessError as e:
            self.console.print(Text(f"✗ {name}: {terminal_safe(str(e))}", style="bold red"))
            return
        self.console.print(Text(f"✻ {name}", style="dim"))
        model = command_model(ready.session, name)
        typed = f"{name} {args}".rstrip()
        if model is None or ready.session.switch_model is None:
            await self.run_turn(message, typed=typed)
            return
        from tether.cli.model_switch import model_for_turn

        try:  # the model its front matter names, for this turn, as in Claude Code
            async with model_for_turn(ready.session.agent, ready.session.switch_model, model):
                await self.run_turn(message, typed=typed)
        except HarnessError as e:
            self.console.print(Text(f"✗ {name}: {terminal_safe(str(e))}", style="bold red"))

    async def run_skill(self, skill: Skill, args: str) -> None:
        """Run a turn whose message is the skill's instructions, loaded here (not by the
        model through the Skill tool: the user chose the skill, so no model call is spent
        on choosing it)."""
        from tether.cli.command_expansion import expansion_hooks
        from tether.protocol import HarnessError
        from tether.skills import SkillError

        ready = await self._session()
        if ready is None:
            return
        try:
            message = skill_message(skill, args)
            message = await expansion_hooks(
                ready.session, skill.name, args, message, ready.renderer.render
            )
        except (SkillError, HarnessError) as e:
            self.console.print(Text(f"✗ {terminal_safe(str(e))}", style="bold red"))
            return
        self.console.print(Text(f"✻ Skill {skill.name}", style="dim"))
        await self.run_turn(message, typed=f"/{skill.name} {args}".rstrip())

    async def run_shell(self, command: str) -> None:
        """`!command`: run now with the Bash tool (rules, hooks and sandbox apply), its output
        shown, and kept for the model with the next message."""
        ready = await self._session()
        if ready is None or not command:
            return
        with no_echo(self.watch_terminal):
            output, failed = await run_for_user(
                ready.session, "Bash", {"command": command}, ready.renderer.render
            )
        self._shell_context.append(shell_context(command, output, failed))
