"""The REPL's turns: a message sent to the session, its events shown while what is typed
meanwhile goes to a draft line (`tether.cli.steer`: steering messages, Shift+Tab, Esc or Ctrl+C
to interrupt), permission questions answered, the session waited for (and its start-up
questions asked) first. The prompt loop (`repl.py`) reads the messages."""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING

from rich.text import Text

from tether.cli.ask import PermissionKey, read_permission_answer
from tether.cli.mentions import mentioned_servers, with_mentions
from tether.cli.repl_commands import MODE_LABELS, cycle_mode
from tether.cli.repl_dispatch import ReplCommands
from tether.cli.startup import INTERRUPTED_HINT, Ready
from tether.cli.steer import DraftLine, KeyboardHold, take_typeahead, typing_during_turn

if TYPE_CHECKING:
    from tether.protocol import PermissionAsked

PROMPT_PUT_BACK = "The prompt is back in the input line: shorten it, or send less with it."
_COMMAND = re.compile(r"/[A-Za-z][\w-]*|:(sessions|resume|fork)")


class ReplTurns(ReplCommands):
    """The turns, for the REPL to inherit: it supplies the prompt and the session's start."""

    _waiting: asyncio.Task[Ready] | None
    _asking: asyncio.Task[tuple[PermissionKey, str | None]] | None
    _typed_ahead: list[str | None]
    _kept: list[str]
    _interrupted: bool
    _leave_after_turn: bool
    _keys: KeyboardHold
    exit_reason: str

    async def run_turn(self, text: str, typed: str | None = None) -> None:
        """Run one turn (`typed`: what `text` stands for, a command or a skill typed); Ctrl+C
        (SIGINT) meanwhile calls `interrupt_turn`. Messages queued
        during it that the model did not get to read are sent next, as their own turn; after
        an interrupt they wait in the prompt instead, to be edited or sent."""
        while text:
            self.console.line()
            self._interrupted = False
            ready = await self._session()
            if ready is None:
                return
            await self._ask_startup_questions(ready)
            self._keys.hold()  # no echo; and the keys typed after the turn wait for the prompt
            leftover = await self._show_turn(ready, text, typed)
            unread = ready.session.take_queued()
            if self._leave_after_turn:
                return
            if ready.session.prompt_withdrawn:  # never to be sent again: back in the input line
                self.console.print(Text(PROMPT_PUT_BACK, style="dim"))
                self._prefill = "\n".join([typed or text, *unread, leftover]).strip()
                return
            if self._interrupted:
                ahead, self._typed_ahead = [t for t in self._typed_ahead if t is not None], []
                self._prefill = "\n".join([*unread, *ahead, leftover]).strip()
                return
            self._prefill = leftover
            text, typed = "\n".join(unread), None

    async def _session(self) -> Ready | None:
        """The session, waiting for it if it is still being built; None when Ctrl+C drops
        the message that waits."""
        if self.startup.ready is not None:
            return self.startup.ready
        self._keys.release()  # Ctrl+C, a signal, drops the message that waits
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
        """The session's yes/no questions (this repository's MCP servers added since the
        start, external imports), before its first turn: each answered by keys typed after
        it is shown, a decision with Enter (`tether.cli.yes_no`); Esc or Ctrl+C answers no,
        for this session only. Lines typed at them wait for the prompt."""
        from tether.cli.yes_no import read_yes_no, typed_before

        questions, ready.session.startup_questions = ready.session.startup_questions, []
        for question in questions:
            self.console.print(Text(f"? {question.question}", style="bold yellow"))
            with typed_before(self.prompt.input, terminal=self.watch_terminal):
                answer = await read_yes_no(self.prompt.input, self.prompt.output, self._kept)
            question.answer(bool(answer), answer is not None)
            said = {True: "  yes (remembered)", False: "  no (remembered)", None: "  no, for now"}
            self.console.print(Text(said[answer], style="dim"))
        if questions:
            await self._prepare(ready)

    async def _begin(self, ready: Ready) -> None:
        for event in await ready.session.begin():
            ready.renderer.render(event)

    async def _prepare(self, ready: Ready) -> None:
        """Connect what the session connects before its first request; say what went wrong."""
        for event in await ready.session.prepare():
            ready.renderer.render(event)

    def interrupt_turn(self) -> None:
        """Ctrl+C outside the prompt: stop the running turn (the session stays), or drop the
        message that waits for the session, or stop an `/mcp` change under way, or deny the
        call being asked about and stop."""
        ready = self.startup.ready
        self._interrupted = True
        if self._waiting is not None:
            self._waiting.cancel()
        elif self._changing is not None:
            self._changing.cancel()
        elif self._asking is not None:
            self._asking.cancel()
        elif ready is not None and (ready.session.busy or ready.session.preparing):
            ready.session.interrupt()

    async def _show_turn(self, ready: Ready, text: str, typed: str | None) -> str:
        """Show the turn's events while reading what is typed meanwhile; returns the line
        left unsent."""
        from tether.protocol import (  # with the session
            PermissionAsked,
            TextBlock,
            TurnFinished,
            UserInput,
        )

        def queue(line: str) -> None:
            if self._typed_ahead or is_command(line):
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
            self.exit_reason = "prompt_input_exit"
            ready.renderer.note("Ctrl+D: leaving once this turn ends")

        def next_mode() -> None:
            mode = cycle_mode(ready.session, bypass_allowed=ready.bypass_allowed)
            ready.renderer.note(f"{MODE_LABELS[mode]} on (shift+tab to cycle)")

        draft = DraftLine(queue, ready.renderer.show_draft, self.interrupt_turn, leave)
        draft.on_mode = next_mode
        try:
            with typing_during_turn(self.prompt.input, draft) as keys:
                servers = mentioned_servers(text)
                if servers and ready.mcp is not None and ready.mcp.manager is not None:
                    await ready.mcp.manager.connected(servers)  # still connecting: wait for it
                said = await with_mentions(
                    ready.session, text, ready.renderer.render, dropped_images=True
                )
                context, self._shell_context = self._shell_context, []
                content = (*(TextBlock(text=c) for c in context), *said)
                entry = self._checkpoints.take(ready.session, typed or text)
                # A queued message is a message like any other: its checkpoint is taken as
                # it reaches the model.
                ready.session.on_delivered = lambda t: self._checkpoints.take(ready.session, t)
                said_now = UserInput(text=text, content=content, uuid=entry, typed=typed)
                try:
                    async for event in ready.session.submit(said_now):
                        ready.renderer.render(event)
                        if isinstance(event, TurnFinished):
                            keys.finish()  # what comes now is typed at a turn shown as over
                        elif isinstance(event, PermissionAsked):
                            # The turn waits for this answer; the next ask is read after it.
                            await self._answer(ready, event, draft)
                finally:
                    for lost in self._checkpoints.keep(ready.session):
                        ready.renderer.note(f"Esc Esc cannot rewind to it: {lost}")
        finally:
            ready.renderer.show_draft("")
            ready.renderer.close()
        self.console.line()
        return draft.text

    async def _answer(self, ready: Ready, request: PermissionAsked, draft: DraftLine) -> None:
        """Ask the user about one call and give the session the answer; Ctrl+C denies the
        call and interrupts the turn. Keys typed before the question was on screen were meant
        for the draft, and go there, not to the question."""
        from tether.cli.toolview import offers_accept_edits  # with the tools' records: not
        from tether.protocol import PermissionAnswer  # before the first prompt is drawn

        take_typeahead(self.prompt.input, draft)
        self._asking = asyncio.create_task(
            read_permission_answer(
                self.prompt.input,
                self.prompt.output,
                can_remember=request.suggestion is not None,
                draft=draft,
                can_accept_edits=offers_accept_edits(request.tool, by_mode=request.by_mode),
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
        if key == "accept_edits":  # before the answer: the calls after this one see it
            ready.session.set_permission_mode("acceptEdits")
        choice = (
            "deny"
            if key in ("tell", "interrupt")
            else "allow_once"
            if key == "accept_edits"
            else key
        )
        answer = PermissionAnswer(request_id=request.request_id, choice=choice, message=message)
        ready.session.answer(answer)
        if key == "accept_edits":
            ready.renderer.note(f"{MODE_LABELS['acceptEdits']} on (shift+tab to cycle)")
        if key == "interrupt":
            ready.session.interrupt()
        else:
            ready.renderer.answered(request, answer)


def is_command(line: str) -> bool:
    """Whether a line typed at the prompt (or during a turn) is a command, not a message."""
    return _COMMAND.fullmatch(line.split(maxsplit=1)[0]) is not None
