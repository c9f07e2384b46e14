"""The interactive prompt: read a message (prompt_toolkit), run the turn, show its events (rich).

The prompt comes first. The banner and the prompt are drawn before the session exists; the
session (settings, model, tools: every other layer of tether, a few hundred milliseconds of
imports) is built in a worker thread while the user types. A message sent before it is ready
waits for it; a configuration that cannot work (no API key...) aborts the prompt, is shown, and
ends the REPL with exit code 2.

While a turn runs no prompt is on screen, so the renderer owns the terminal; Ctrl+C is then a
signal that interrupts the turn and keeps the session. At the prompt Ctrl+C is a key: it clears
the line, and on an empty line, pressed twice, exits.

A tool call that needs approval pauses the turn: the renderer prints the question and stops its
live region, `tether.cli.ask` reads the answer, the answer goes to the session, and the renderer
resumes.

`/name args` runs the skill `name` of the session's catalogue (built-in commands win): its
instructions are loaded here and sent as the user's message.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Mapping
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output
from prompt_toolkit.patch_stdout import patch_stdout
from rich.console import Console
from rich.text import Text

from tether import __version__
from tether.cli.ask import (
    REWIND_KEYS,
    PermissionKey,
    discard_typeahead,
    message_prompt,
    no_echo,
    read_permission_answer,
    sigint_calls,
)
from tether.cli.init_prompt import INIT_COMMAND, init_message
from tether.cli.repl_commands import (
    SESSION_COMMANDS,
    change_mcp,
    describe_mcp,
    describe_model,
    describe_permissions,
    describe_status,
    permission_mode,
    switch_model,
)
from tether.cli.repl_help import (
    describe_cost,
    describe_help,
    skill_message,
)
from tether.cli.repl_rewind import Checkpoints, rewind
from tether.cli.repl_sessions import opening, session_to_switch_to, show_recent
from tether.cli.startup import (
    INTERRUPTED_HINT,
    LazyOptions,
    Ready,
    SessionStartup,
    StartupFailed,
)
from tether.cli.steer import DraftLine, take_typeahead, typing_during_turn
from tether.cli.terminal_text import terminal_safe
from tether.cli.trust_prompt import settle_trust
from tether.cli.user_context import run_for_user, shell_context, with_mentions
from tether.config.project import project_root
from tether.config.settings import tether_home

if TYPE_CHECKING:
    # Only for annotations: these import pydantic and every layer, which must wait until the
    # prompt is on screen (see tether.cli.startup).
    from tether.cli.setup import RunOptions
    from tether.protocol import PermissionAsked
    from tether.skills import Skill
    from tether.store.mailbox import Message as TeamMessage

EXIT_HINT = "Press Ctrl+C again or Ctrl+D to exit."
KEYS_HINT = "enter send · alt+enter new line · /help · ctrl+d exit"
CLEARED = "Conversation cleared: the next message starts a new session (/resume finds the old one)."
NO_PLAN = "No plan yet: for a task of several steps the model keeps one (TodoWrite)."

_COMMAND = re.compile(r"/[A-Za-z][\w-]*|:(sessions|resume|fork)")


class _Next(Enum):
    PROMPT = "prompt"
    EXIT = "exit"


async def run_repl(
    opts: RunOptions | LazyOptions,
    *,
    initial_prompt: str | None = None,
    input: Input | None = None,
    output: Output | None = None,
    console: Console | None = None,
) -> int:
    """Run the interactive session until the user leaves; 0 then, 2 when the configuration is
    unusable (no API key...). The session is built while the first prompt is on screen; with
    `LazyOptions` the options are made then too. `input`, `output` and `console` default to the
    terminal; tests pass a pipe input, a dummy output and a console writing to a buffer."""
    console = console or Console()
    env = None if isinstance(opts, LazyOptions) else opts.env
    workspace = project_root(opts.cwd, user_home=Path.home())
    _print_banner(console, workspace)
    # Before the session exists: nothing the workspace declares has run yet.
    opts = await settle_trust(opts, console, input, output)
    startup = SessionStartup(opts, console)
    prompt = message_prompt(_history_path(env), startup, input, output)
    repl = _Repl(startup, console, prompt, watch_terminal=input is None)
    try:
        with sigint_calls(repl.interrupt_turn):
            code = await repl.run(initial_prompt)
        await startup.wait()  # a broken configuration is told even to a user who left at once
    except StartupFailed as e:
        console.print(Text(f"tether: {terminal_safe(str(e))}", style="red"))
        return 2
    finally:
        await startup.close()
    return code


class _Repl:
    def __init__(
        self,
        startup: SessionStartup,
        console: Console,
        prompt: PromptSession[str],
        *,
        watch_terminal: bool,
    ) -> None:
        self.startup = startup
        self.console = console
        self.prompt = prompt
        self.watch_terminal = watch_terminal
        self._waiting: asyncio.Task[Ready] | None = None
        self._asking: asyncio.Task[tuple[PermissionKey, str | None]] | None = None
        self._prefill = ""
        """Typed during the last turn and not sent: the next prompt starts with it."""
        self._typed_ahead: list[str | None] = []
        """Lines typed during the last turn for the prompt, not the model: from the first
        command on (a command is never a message for the model; what follows it keeps its
        order), None for a Ctrl+D among them. They are read as typed at the prompt once the
        turn is over."""
        self._preparing: asyncio.Task[None] | None = None
        self._interrupted = False
        self._leave_after_turn = False
        self._shell_context: list[str] = []
        """`!command`s run since the last message, with their output: the next one carries
        them to the model."""
        self._model_spec: str | None = None
        """The model chosen with /model: a session switched to (or cleared) keeps it."""
        self._checkpoints = Checkpoints()
        """The messages sent in this session, for Esc Esc (`tether.cli.repl_rewind`)."""
        startup.building.add_done_callback(self._on_startup_done)

    async def run(self, initial_prompt: str | None) -> int:
        if initial_prompt and initial_prompt.strip():
            self.prompt.history.append_string(initial_prompt)
            self.console.print(Text(f"> {initial_prompt}", style="bold"))
            await self.run_turn(initial_prompt)
        interrupted_once = False
        while not self._leave_after_turn:
            try:
                text = await self.next_line()
            except KeyboardInterrupt:
                if interrupted_once:
                    return 0
                interrupted_once = True
                self.console.print(Text(EXIT_HINT, style="dim"))
                continue
            except EOFError:
                return 0
            interrupted_once = False
            if text == _TEAM_TURN:
                text = self._team_prompt()
            if text == REWIND_KEYS:
                await self.rewind()
                continue
            text = text.strip()
            if not text:
                continue
            if text.startswith("!"):
                await self.run_shell(text[1:].strip())
                continue
            if _is_command(text):
                if await self.run_command(text) is _Next.EXIT:
                    return 0
                continue
            await self.run_turn(text)
        return 0

    async def next_line(self) -> str:
        """The next line typed at the prompt: those typed ahead during the last turn first."""
        if not self._typed_ahead:
            return await self.read_message()
        line = self._typed_ahead.pop(0)
        if line is None:  # Ctrl+D, typed after the lines before it
            raise EOFError
        return line

    async def read_message(self) -> str:
        """The next message typed at the prompt. A session that fails to start meanwhile
        aborts the prompt (see `_on_startup_done`) and its error is raised instead."""
        self.startup.raise_failure()
        prefill, self._prefill = self._prefill, ""
        with patch_stdout(raw=True):
            return await self.prompt.prompt_async(default=prefill)

    def _on_startup_done(self, building: asyncio.Task[Ready]) -> None:
        app = self.prompt.app
        error = None if building.cancelled() else building.exception()
        if error is None:
            self.show_startup_notices()
            app.invalidate()  # the toolbar can name the model now
            ready = self.startup.ready
            if ready is not None and ready.lead is not None:
                ready.lead.shown.append(self.show_team_message)
                ready.lead.warnings.append(self.show_team_warning)
            if ready is not None and not ready.session.startup_questions:
                # Connect MCP servers while the user types.
                self._preparing = asyncio.create_task(self._prepare(ready))
        elif app.is_running and app.future is not None and not app.future.done():
            app.exit(exception=error)
        # Otherwise no prompt is waiting: the next wait for the session, or the next prompt,
        # raises the error.

    def show_team_message(self, message: TeamMessage) -> None:
        """A message to the lead, as it arrives (the model reads it at its next call, or with
        the next message when no turn runs)."""
        said = message.text or message.kind.replace("_", " ")
        line = (
            f"✉ {message.sender}: {said}"
            if message.kind == "message"
            else (f"✉ {message.sender} ({message.kind}): {said}")
        )
        self.console.print(Text(terminal_safe(line), style="cyan"))
        self._wake_for_team()

    def show_team_warning(self, text: str) -> None:
        self.console.print(Text(f"⚠ {terminal_safe(text)}", style="yellow"))

    def _wake_for_team(self) -> None:
        """As in Claude Code, a message to an idle lead starts its turn: when the prompt waits
        with nothing typed and no turn runs, it ends with `_TEAM_TURN`. While the user types,
        the message waits to go with what they send."""
        app = self.prompt.app
        ready = self.startup.ready
        if ready is None or ready.session.busy or self.prompt.default_buffer.text:
            return
        if app.is_running and app.future is not None and not app.future.done():
            app.exit(result=_TEAM_TURN)

    def _team_prompt(self) -> str:
        """The messages that woke the prompt, as the lead's next turn (empty when a turn
        already took them)."""
        ready = self.startup.ready
        return "\n\n".join(ready.session.take_queued()) if ready is not None else ""

    def show_startup_notices(self) -> None:
        """Say what the session wants said at its start, once it is built (before any wait
        for it ends): above the prompt, or under the banner when no prompt is on screen yet."""
        ready = self.startup.ready
        if ready is None:  # the building was cancelled
            return
        for notice in ready.session.startup_notices:
            self.console.print(Text(f"⚠ {terminal_safe(notice)}", style="yellow"))
        if ready.session.resumed is not None:
            self.console.print(Text(f"↺ {ready.session.resumed}", style="cyan"))
            show_recent(self.console, ready.session)

    async def run_turn(self, text: str) -> None:
        """Run one turn; Ctrl+C (SIGINT) meanwhile calls `interrupt_turn`. Messages queued
        during it that the model did not get to read are sent next, as their own turn; after
        an interrupt they wait in the prompt instead, to be edited or sent."""
        while text:
            self.console.line()
            self._interrupted = False
            ready = await self._session()
            if ready is None:
                return
            await self._ask_startup_questions(ready)
            with no_echo(self.watch_terminal):
                leftover = await self._show_turn(ready, text)
            unread = ready.session.take_queued()
            if self._leave_after_turn:
                return
            if self._interrupted:
                ahead, self._typed_ahead = [t for t in self._typed_ahead if t is not None], []
                self._prefill = "\n".join([*unread, *ahead, leftover]).strip()
                return
            self._prefill = leftover
            text = "\n".join(unread)

    async def _session(self) -> Ready | None:
        """The session, waiting for it if it is still being built; None when Ctrl+C drops
        the message that waits."""
        if self.startup.ready is not None:
            return self.startup.ready
        self._waiting = asyncio.create_task(self.startup.wait())
        try:
            return await self._waiting
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
            self.console.print(Text(INTERRUPTED_HINT, style="yellow"))
            return None
        finally:
            self._waiting = None

    async def _ask_startup_questions(self, ready: Ready) -> None:
        """The session's yes/no questions (this repository's MCP servers), before its first
        turn; Ctrl+C answers no, for this session only."""
        from tether.cli.ask import read_yes_no

        questions, ready.session.startup_questions = ready.session.startup_questions, []
        for question in questions:
            self.console.print(Text(f"? {question.question}", style="bold yellow"))
            if self.watch_terminal:
                discard_typeahead(self.prompt.input)
            answer = await read_yes_no(self.prompt.input, self.prompt.output)
            question.answer(bool(answer), answer is not None)
            said = {True: "  yes (remembered)", False: "  no (remembered)", None: "  no, for now"}
            self.console.print(Text(said[answer], style="dim"))
        if questions:
            await self._prepare(ready)

    async def _prepare(self, ready: Ready) -> None:
        """Connect what the session connects before its first request; say what went wrong."""
        for event in await ready.session.prepare():
            ready.renderer.render(event)

    def interrupt_turn(self) -> None:
        """Ctrl+C outside the prompt: stop the running turn (the session stays), or drop the
        message that waits for the session, or deny the call being asked about and stop."""
        ready = self.startup.ready
        self._interrupted = True
        if self._waiting is not None:
            self._waiting.cancel()
        elif self._asking is not None:
            self._asking.cancel()
        elif ready is not None and (ready.session.busy or ready.session.preparing):
            ready.session.interrupt()

    async def _show_turn(self, ready: Ready, text: str) -> str:
        """Show the turn's events while reading what is typed meanwhile; returns the line
        left unsent."""
        from tether.protocol import PermissionAsked, TextBlock, UserInput  # with the session

        def queue(line: str) -> None:
            if self._typed_ahead or _is_command(line):
                self._typed_ahead.append(line)
                ready.renderer.queued(line, after_turn=True)
            else:
                ready.session.steer(line)
                ready.renderer.queued(line)

        def leave() -> None:
            if self._typed_ahead:
                self._typed_ahead.append(None)
                ready.renderer.note("Ctrl+D: leaving after the lines typed before it")
                return
            self._leave_after_turn = True
            ready.renderer.note("Ctrl+D: leaving once this turn ends")

        draft = DraftLine(queue, ready.renderer.show_draft, self.interrupt_turn, leave)
        try:
            with typing_during_turn(self.prompt.input, draft):
                said = await with_mentions(ready.session, text, ready.renderer.render)
                context, self._shell_context = self._shell_context, []
                content = (*(TextBlock(text=c) for c in context), *said)
                entry = self._checkpoints.take(ready.session, text)
                said_now = UserInput(text=text, content=content, uuid=entry)
                async for event in ready.session.submit(said_now):
                    ready.renderer.render(event)
                    if isinstance(event, PermissionAsked):
                        # The turn waits for this answer; the next ask is read after it.
                        await self._answer(ready, event, draft)
        finally:
            ready.renderer.show_draft("")
            ready.renderer.close()
        self.console.line()
        return draft.text

    async def _answer(self, ready: Ready, request: PermissionAsked, draft: DraftLine) -> None:
        """Ask the user about one call and give the session the answer; Ctrl+C denies the
        call and interrupts the turn. Keys typed before the question was on screen were meant
        for the draft, and go there, not to the question."""
        from tether.protocol import PermissionAnswer

        take_typeahead(self.prompt.input, draft)
        self._asking = asyncio.create_task(
            read_permission_answer(
                self.prompt.input,
                self.prompt.output,
                can_remember=request.suggestion is not None,
                draft=draft,
            )
        )
        try:
            key, message = await self._asking
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
            key, message = "interrupt", None  # Ctrl+C as a signal, before the keys were read
        finally:
            self._asking = None
        take_typeahead(self.prompt.input, draft)  # typed on after the answer, in one go with it
        choice = "deny" if key in ("tell", "interrupt") else key
        answer = PermissionAnswer(request_id=request.request_id, choice=choice, message=message)
        ready.session.answer(answer)
        if key == "interrupt":
            ready.session.interrupt()
        else:
            ready.renderer.answered(request, answer)

    async def run_command(self, line: str) -> _Next:
        """A built-in command (the rest of the line is ignored), or a skill to run with the
        rest of the line as its arguments."""
        name, *rest = line.split(maxsplit=1)
        name, args = name.lower(), rest[0].strip() if rest else ""
        if name in ("/exit", "/quit"):
            return _Next.EXIT
        if name in ("/resume", ":resume", ":fork", ":sessions"):
            await self.switch_session(name, args)
            return _Next.PROMPT
        if name == "/help":
            ready = await self._session()
            self.console.print(
                describe_help(
                    ready.session.skills if ready else None,
                    tuple(ready.session.commands) if ready else (),
                ),
                highlight=False,
            )
        elif name == "/cost":
            ready = await self._session()
            if ready is not None:
                self.console.print(describe_cost(ready.session), markup=False, highlight=False)
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
        elif name == INIT_COMMAND:
            ready = await self._session()
            if ready is not None:
                self.console.print(Text("✻ /init: writing CLAUDE.md", style="dim"))
                await self.run_turn(init_message(Path(ready.session.started().cwd), args))
        elif name in SESSION_COMMANDS:
            ready = await self._session()
            if ready is not None:
                await self.show_session_command(ready, name, args)
        else:
            ready = await self._session()
            if ready is not None:  # MCP servers' prompts are known once they are connected
                await self._ask_startup_questions(ready)
                await self._prepare(ready)
            skill = ready.session.skills.get(name[1:]) if ready is not None else None
            command = ready.session.commands.get(name[1:]) if ready is not None else None
            if skill is not None:
                await self.run_skill(skill, args)
            elif command is not None:
                await self.run_prompt_command(name, command, args)
            elif ready is not None:
                self.console.print(
                    Text(f"Unknown command {name}. Type /help for the commands.", style="yellow")
                )
        return _Next.PROMPT

    async def clear_conversation(self) -> None:
        """`/clear`: a new session (the old one stays saved, for `/resume`) with this one's
        model and permission mode, on a cleared screen."""
        ready = await self._session()
        if ready is None:
            return
        fresh = opening(
            ready.options,
            model=self._model_spec or ready.options.model,
            permission_mode=permission_mode(ready.session),
        )
        await self.restart_with(fresh)
        self.console.clear()
        self.console.print(Text(CLEARED, style="dim"))

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
        elif name == "/permissions":
            said = describe_permissions(ready.session)
        elif name == "/context":
            from tether.cli.context_view import describe_context

            said = describe_context(ready.session)
        elif args:
            said = await change_mcp(ready.mcp, args)
        else:
            await self._prepare(ready)  # the servers' states once they had their chance
            said = describe_mcp(ready.mcp)
        self.console.print(said, highlight=False)

    async def restart_with(self, options: RunOptions, *, rewound: bool = False) -> None:
        """End this session (it stays saved) and build another from `options` (the same one
        from an earlier message when `rewound`: its earlier checkpoints are kept)."""
        if not rewound:
            self._checkpoints.clear()
        await self.startup.restart(options)
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
            await self.restart_with(rewound.options, rewound=True)
            self._prefill = rewound.text

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

    async def run_prompt_command(
        self, name: str, command: Callable[[str], Awaitable[str]], args: str
    ) -> None:
        """An MCP server's prompt: fetched with the arguments, then sent as the message."""
        from tether.protocol import HarnessError

        try:
            message = await command(args)
        except HarnessError as e:
            self.console.print(Text(f"✗ {name}: {terminal_safe(str(e))}", style="bold red"))
            return
        self.console.print(Text(f"✻ {name}", style="dim"))
        await self.run_turn(message)

    async def run_skill(self, skill: Skill, args: str) -> None:
        """Run a turn whose message is the skill's instructions, loaded here (not by the
        model through the Skill tool: the user chose the skill, so no model call is spent
        on choosing it)."""
        from tether.skills import SkillError

        try:
            message = skill_message(skill, args)
        except SkillError as e:
            self.console.print(Text(f"✗ {terminal_safe(str(e))}", style="bold red"))
            return
        self.console.print(Text(f"✻ Skill {skill.name}", style="dim"))
        await self.run_turn(message)


_TEAM_TURN = "\x00team-message"
"""What the prompt returns when a team message starts the lead's turn (no key makes it)."""


def _is_command(line: str) -> bool:
    """Whether a line typed at the prompt (or during a turn) is a command, not a message."""
    return _COMMAND.fullmatch(line.split(maxsplit=1)[0]) is not None


def _print_banner(console: Console, workspace: Path) -> None:
    title = Text("✻ ", style="bold cyan")
    title.append(f"tether {__version__}", style="bold")
    console.print(title)
    console.print(Text(f"  workspace  {_shorten_home(workspace)}", style="dim"))
    console.print(Text(f"  {KEYS_HINT}", style="dim"))
    console.line()


def _shorten_home(path: Path) -> str:
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def _history_path(env: Mapping[str, str] | None) -> Path:
    home = tether_home(env)
    home.mkdir(parents=True, exist_ok=True)
    return home / "history"
