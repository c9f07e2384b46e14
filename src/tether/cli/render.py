"""Show a session's events in the terminal with rich.

On a terminal, a live region at the bottom holds what is still moving: the reply being streamed
(as Markdown) and a spinner with the current activity. Everything finished (a completed reply,
a tool call and its result, errors) is printed above it for good, once. On a pipe or a dumb
terminal there is no live region: text is written raw as it arrives and nothing is redrawn.

A call that needs the user's approval stops the live region: the question is printed and stays
still while the front end reads the answer, then `answered` resumes the region.
"""

from __future__ import annotations

import time
from pathlib import Path

from rich.console import Console, Group, RenderableType
from rich.text import Text

from tether.cli.live_region import LiveRegion, Tail, reply_block
from tether.cli.running_calls import RunningCalls, proposed_change
from tether.cli.startup import INTERRUPTED_HINT
from tether.cli.terminal_text import seconds, terminal_safe_event, waiting_notice
from tether.cli.toolview import (
    cut_line,
    offers_accept_edits,
    permission_question,
    permission_verdict,
    plan_checklist,
    tool_headline,
)
from tether.cli.usage_text import cache_line, turn_footer
from tether.cli.usage_text import format_tokens as format_tokens
from tether.protocol import (
    BlockCompleted,
    ContextCompacted,
    ErrorOccurred,
    Event,
    MessageCompleted,
    ModelRetry,
    ModelWaiting,
    Notice,
    PermissionAnswer,
    PermissionAsked,
    PromptWithdrawn,
    ResponseStarted,
    SessionStarted,
    StatusChanged,
    SubagentFinished,
    SubagentMessage,
    SubagentStarted,
    TextDelta,
    ThinkingDelta,
    ToolFinished,
    ToolInputDelta,
    ToolStarted,
    TurnFinished,
    TurnStarted,
)

INTERRUPT_HINT = "esc to interrupt · type to steer"
"""The spinner's hint in the REPL, whose Esc interrupts a turn, as Claude Code's says."""
HEADLESS_HINT = "ctrl+c to interrupt"
WAITING = "Waiting for the model"


class EventRenderer:
    """Turns events into terminal output. Call `render` for each event and `close` at the end
    (or after each turn: a turn's `TurnFinished` closes the live region as well)."""

    def __init__(
        self,
        console: Console,
        *,
        verbose: bool = False,
        live: bool | None = None,
        workspace: Path | None = None,
        hint: str = INTERRUPT_HINT,
    ) -> None:
        """`live` forces the live region on or off; by default it is on for a real terminal.
        `hint`: how to interrupt, on the spinner's line."""
        self.console = console
        self._hint = hint
        self.verbose = verbose
        self.workspace = workspace
        self._use_live = (
            live if live is not None else console.is_terminal and not console.is_dumb_terminal
        )
        self._region = LiveRegion(console, self._live_view)
        self._text = ""
        self._thinking = ""
        self._raw_open = False  # plain mode: raw text written and no newline after it yet
        self._saw_text = False  # text deltas arrived for the message being streamed
        self._activity = "Thinking"
        self._activity_since = time.monotonic()
        self._calls = RunningCalls()
        self._draft = ""  # typed during the turn, not sent yet
        self._headline_of: str | None = None  # the call whose headline was printed last
        self._attempt_printed = False  # text of the reply being streamed printed for good
        self._given_up = 0  # model calls of this turn given up and tried again

    def render(self, event: Event) -> None:
        """Show one event (every string in it made safe for the terminal first: model, tool
        and endpoint text reach the screen only so)."""
        event = terminal_safe_event(event)
        match event:
            case SessionStarted(cwd=cwd):
                self.workspace = Path(cwd)
            case TurnStarted():
                self._given_up = 0
                self._set_activity("Thinking")
                self._ensure_live()
            case TextDelta(text=text):
                self._end_thinking()
                self._saw_text = True
                self._add_text(text)
            case ThinkingDelta(text=text):
                self._add_thinking(text)
            case MessageCompleted(message=message, usage=usage):
                if message.role == "assistant":
                    if not self._saw_text and message.text().strip():
                        self._add_text(message.text())  # a reply that came unstreamed
                    self._saw_text = False
                    self._end_stream()
                    self._attempt_printed = False
                    if self.verbose and usage is not None:
                        self._print(Text(cache_line(usage), style="dim"))
            case ToolStarted():
                self._on_tool_started(event)
            case ToolFinished():
                self._on_tool_finished(event)
            case PermissionAsked():
                self._on_permission_asked(event)
            case ModelWaiting():
                self._on_waiting(event)
            case ModelRetry():
                self._on_retry(event)
            case Notice(level=level):
                self._end_stream()
                self._print(Text(event.told, style="yellow" if level == "warning" else "dim"))
            case ErrorOccurred(message=message):
                self._end_stream()
                self._print_error(message)
            case TurnFinished():
                self._on_turn_finished(event)
            case SubagentStarted() | SubagentMessage() | SubagentFinished():
                pass  # a subagent's work is summed up by its Task call's result
            case PromptWithdrawn():
                pass  # the turn's error says it, and the REPL gives the prompt back to edit
            case ToolInputDelta() | BlockCompleted():
                pass  # the call is shown once it starts, its input complete; text as it streams
            case ResponseStarted():
                pass  # the reply shows as it streams
            case ContextCompacted():
                pass  # its notice says it in words
            case StatusChanged():
                pass  # for clients of stream-json; the spinner and notices say it here

    @property
    def live(self) -> bool:
        """Whether the live region is on screen (it is not while a question awaits an answer)."""
        return self._region.shown

    def answered(self, request: PermissionAsked, answer: PermissionAnswer) -> None:
        """The user answered `request`: leave the verdict under the question and bring the
        live region back while the call runs (or the turn goes on)."""
        request = terminal_safe_event(request)
        verdict = permission_verdict(answer.choice, request.suggestion)
        if verdict is not None:
            self._print(verdict)
        self._headline_of = request.call_id  # the question and verdict belong to its headline
        self._set_activity("Thinking" if answer.choice == "deny" else f"Running {request.tool}")
        self._ensure_live()

    def show_draft(self, draft: str) -> None:
        """The message being typed while the agent works, under the spinner."""
        self._draft = draft
        self._region.refresh()

    def queued(self, message: str, *, after_turn: bool = False) -> None:
        """A message typed during the turn was queued for the model's next call, or (a
        command, and what was typed after one) for the prompt once the turn is over."""
        self._draft = ""
        self.note(f"⧗ {'after this turn' if after_turn else 'queued for the next step'}: {message}")

    def note(self, message: str) -> None:
        """A line from the front end itself, above the live region."""
        self._print(Text(message, style="cyan"))

    def plan_checklist(self) -> Text | None:
        """The model's current plan as a checklist (what `/todos` shows), from the last
        TodoWrite call that succeeded; None before the first."""
        if self._calls.plan is None:
            return None
        if not self._calls.plan:
            return Text("The plan is empty.", style="dim")
        return plan_checklist(self._calls.plan, width=self.console.width, lead="  ", indent="  ")

    def close(self) -> None:
        """Finish what is open: print a pending reply, stop the live region."""
        self._end_stream()
        self._stop_live()

    # -- text and thinking -------------------------------------------------------------------

    def _add_text(self, text: str) -> None:
        self._text += text
        if self._use_live:
            self._set_activity("Writing")
            self._ensure_live()
            return
        self.console.out(text, end="", highlight=False)
        self._raw_open = not text.endswith("\n")
        self._attempt_printed = True

    def _add_thinking(self, text: str) -> None:
        if self._activity.startswith(WAITING):
            self._set_activity("Thinking")
        if not self._thinking:
            self._end_text()
        self._thinking += text
        if self._use_live:
            self._ensure_live()
        elif self.verbose:
            self.console.out(text, end="", style="dim italic", highlight=False)
            self._raw_open = not text.endswith("\n")
            self._attempt_printed = True

    def _end_stream(self) -> None:
        self._end_thinking()
        self._end_text()

    def _end_text(self) -> None:
        text, self._text = self._text, ""
        if self._use_live:
            if text.strip():
                self._print_block(reply_block(text))
                self._set_activity("Thinking")
                self._attempt_printed = True
            return
        if self._raw_open:
            self.console.out("")
            self._raw_open = False
        if text.strip():
            self.console.out("")  # the blank line that ends a block

    def _end_thinking(self) -> None:
        thought, self._thinking = self._thinking, ""
        if not thought.strip():
            return
        self._attempt_printed = True
        if self.verbose and not self._use_live:
            if self._raw_open:
                self.console.out("")
                self._raw_open = False
            self.console.out("")
            return
        if self.verbose:
            self._print_block(Text(f"✻ {thought.strip()}", style="dim italic"))
            return
        gist = cut_line(" ".join(thought.split()), max(10, self.console.width - 14))
        self._print_block(Text(f"✻ Thinking: {gist}", style="dim italic"))

    def _on_retry(self, event: ModelRetry) -> None:
        """An attempt given up: nothing it streamed is kept, so none of it stays on screen
        as part of the reply. Text still in the live region is withdrawn; text printed for
        good (a plain output writes it as it comes) is marked as discarded."""
        withdrawn = self._use_live and bool(self._text.strip() or self._thinking.strip())
        self._thinking = ""  # a plain output printed it as it came (verbose), or never
        if self._use_live:
            self._text = ""
        else:
            self._end_text()  # out already: its line ends
        self._saw_text = False
        if self._attempt_printed:
            what = "the partial reply above is discarded; "
        else:
            what = "its partial reply was withdrawn; " if withdrawn else ""
        self._attempt_printed = False
        self._given_up += 1
        self._set_activity("Thinking")
        self._print(
            Text(
                f"⚠ Model call failed ({event.reason}); {what}retrying in "
                f"{event.delay_s:.1f}s (attempt {event.attempt + 1} of {event.max_attempts})",
                style="yellow",
            )
        )

    # -- tools -------------------------------------------------------------------------------

    def _on_tool_started(self, event: ToolStarted) -> None:
        self._end_stream()
        asked = event.call_id in self._calls.started  # its question showed the headline already
        self._calls.started[event.call_id] = event
        if asked:
            return
        self._print_headline(event)
        self._set_activity(self._calls.activity())

    def _print_headline(self, event: ToolStarted) -> None:
        self._print(
            tool_headline(
                event.name, event.input, workspace=self.workspace, width=self.console.width
            )
        )
        self._headline_of = event.call_id

    def _on_tool_finished(self, event: ToolFinished) -> None:
        self._end_stream()
        started = self._calls.started.pop(event.call_id, None)
        width = self.console.width
        if started is not None and self._headline_of != event.call_id:
            # Other lines came between its headline and its result (calls running side by
            # side): name the call again so that the result is not read as another's.
            self._print_headline(started)
        self._print_block(
            self._calls.result_view(
                event, started, workspace=self.workspace, width=width, verbose=self.verbose
            )
        )
        self._set_activity(self._calls.activity())

    def _on_permission_asked(self, event: PermissionAsked) -> None:
        self._end_stream()
        # A redrawn region would fight the key reader below it; the spinner would mislead.
        self._stop_live()
        if event.call_id not in self._calls.started:
            self._on_tool_started(
                ToolStarted(call_id=event.call_id, name=event.tool, input=event.input)
            )
        preview = proposed_change(
            event, workspace=self.workspace, width=self.console.width, verbose=self.verbose
        )
        if preview is not None:
            self._print(preview)
        accept_edits = offers_accept_edits(event.tool, by_mode=event.by_mode)
        self._print(permission_question(event.reason, event.suggestion, accept_edits=accept_edits))
        self._headline_of = event.call_id
        self._set_activity("Waiting for your answer")

    # -- end of turn -------------------------------------------------------------------------

    def _on_turn_finished(self, event: TurnFinished) -> None:
        self.close()
        running, self._calls.started = self._calls.started, {}
        if event.error is not None and "interrupt" in event.error:
            if running:  # under the headline of the call that was cut short
                self.console.print(Text("  ⎿  Interrupted", style="yellow"))
                self.console.line()
            else:
                self.console.print(Text(INTERRUPTED_HINT, style="yellow"))
        elif event.subtype == "error_max_turns":
            self.console.print(Text("Stopped: the turn limit was reached.", style="yellow"))
        self.console.print(Text(turn_footer(event, self._given_up), style="dim"))

    def _print_error(self, message: str) -> None:
        first, _, rest = message.partition("\n")
        self._print(Text(f"✗ {first}", style="bold red"))
        if "Traceback (most recent call last)" in rest and not self.verbose:
            self._print(Text("  (traceback hidden; --verbose shows it)", style="dim"))
        elif rest.strip():
            self._print(Text(rest.rstrip(), style="red"))
        self.console.line()

    # -- the live region ---------------------------------------------------------------------

    def _print(self, renderable: RenderableType) -> None:
        self._headline_of = None
        if self._raw_open:
            self.console.out("")
            self._raw_open = False
        self.console.print(renderable)

    def _print_block(self, renderable: RenderableType) -> None:
        """Print a finished block and the blank line that separates it from the next."""
        self._print(renderable)
        self.console.line()

    def _on_waiting(self, event: ModelWaiting) -> None:
        """The endpoint is silent: the spinner says so and counts from its last byte (a plain
        output prints a line per notice)."""
        if self._use_live:
            what = "pings only" if event.pings_only else "silence"
            self._set_activity(f"{WAITING} (retried after {seconds(event.limit_s)} of {what})")
            self._activity_since = time.monotonic() - event.waited_s
            self._ensure_live()
            return
        self._end_stream()
        notice = waiting_notice(event.waited_s, event.limit_s, pings_only=event.pings_only)
        self._print(Text(f"… {notice}", style="dim"))

    def _set_activity(self, activity: str) -> None:
        if activity != self._activity:
            self._activity = activity
            self._activity_since = time.monotonic()

    def _ensure_live(self) -> None:
        if not self._use_live or self._region.shown:
            return
        self._activity_since = time.monotonic()
        self._region.start()

    def _stop_live(self) -> None:
        self._region.stop()

    def _live_view(self) -> RenderableType:
        """What the live region shows: the reply so far (its tail when taller than the
        screen), then the spinner line."""
        parts: list[RenderableType] = []
        height = max(3, self.console.size.height - 2)
        if self._text.strip():
            parts.append(Tail(reply_block(self._text), height))
        elif self._thinking.strip() and self.verbose:
            parts.append(Tail(Text(self._thinking.strip(), style="dim italic"), height))
        seconds = int(time.monotonic() - self._activity_since)
        label = Text(f"{self._activity}… ", style="bold")
        label.append(f"({seconds}s · {self._hint})", style="dim")
        parts.append(self._region.spinner_with(label))
        if self._draft:
            parts.append(Text(f"> {self._draft}▏", style="bold"))
        return Group(*parts)
