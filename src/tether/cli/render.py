"""Show a session's events in the terminal with rich.

On a terminal, a live region at the bottom holds what is still moving: the reply being streamed
(as Markdown) and a spinner with the current activity. Everything finished (a completed reply,
a tool call and its result, errors) is printed above it for good, once. On a pipe or a dumb
terminal there is no live region: text is written raw as it arrives and nothing is redrawn.

A call that needs the user's approval stops the live region: the question is printed and stays
still while the front end reads the answer, then `answered` resumes the region.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from tether.cli.startup import INTERRUPTED_HINT
from tether.cli.terminal_text import seconds, terminal_safe_event, waiting_notice
from tether.cli.toolview import (
    DIFF_LINES,
    PREVIEW_LINES,
    TODO_TOOL,
    VERBOSE_DIFF_LINES,
    VERBOSE_PREVIEW_LINES,
    PlanItem,
    cut_line,
    diff_view,
    display_path,
    permission_question,
    permission_verdict,
    plan_checklist,
    plan_items,
    proposed_diff,
    result_preview,
    tool_headline,
)
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
    ResponseStarted,
    SessionStarted,
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
    Usage,
)

if TYPE_CHECKING:
    from rich.live import Live
    from rich.spinner import Spinner

INTERRUPT_HINT = "ctrl+c to interrupt"
WAITING = "Waiting for the model"
REFRESH_INTERVAL_S = 0.1
PREVIEW_MAX_BYTES = 1_000_000
"""Files larger than this are not read to preview an Edit or Write that awaits approval."""


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
    ) -> None:
        """`live` forces the live region on or off; by default it is on for a real terminal."""
        self.console = console
        self.verbose = verbose
        self.workspace = workspace
        self._use_live = (
            live if live is not None else console.is_terminal and not console.is_dumb_terminal
        )
        self._live: Live | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._text = ""
        self._thinking = ""
        self._raw_open = False  # plain mode: raw text written and no newline after it yet
        self._saw_text = False  # text deltas arrived for the message being streamed
        self._activity = "Thinking"
        self._activity_since = time.monotonic()
        self._tools: dict[str, ToolStarted] = {}
        self._plan: list[PlanItem] | None = None  # set by the last TodoWrite that succeeded
        self._draft = ""  # typed during the turn, not sent yet
        self._headline_of: str | None = None  # the call whose headline was printed last
        self._spinner: Spinner | None = None
        """The live region's spinner, kept across refreshes: its frame follows the time since it
        was made, so a spinner made anew on each refresh would show its first frame only."""

    def render(self, event: Event) -> None:
        """Show one event (every string in it made safe for the terminal first: model, tool
        and endpoint text reach the screen only so)."""
        event = terminal_safe_event(event)
        match event:
            case SessionStarted(cwd=cwd):
                self.workspace = Path(cwd)
            case TurnStarted():
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
                self._end_stream()
                self._set_activity("Thinking")
                self._print(
                    Text(
                        f"⚠ Model call failed ({event.reason}); retrying in {event.delay_s:.1f}s "
                        f"(attempt {event.attempt + 1} of {event.max_attempts})",
                        style="yellow",
                    )
                )
            case Notice(level=level, message=message):
                self._end_stream()
                self._print(Text(message, style="yellow" if level == "warning" else "dim"))
            case ErrorOccurred(message=message):
                self._end_stream()
                self._print_error(message)
            case TurnFinished():
                self._on_turn_finished(event)
            case SubagentStarted() | SubagentMessage() | SubagentFinished():
                pass  # a subagent's work is summed up by its Task call's result
            case ToolInputDelta() | BlockCompleted():
                pass  # the call is shown once it starts, its input complete; text as it streams
            case ResponseStarted():
                pass  # the reply shows as it streams
            case ContextCompacted():
                pass  # its notice says it in words

    @property
    def live(self) -> bool:
        """Whether the live region is on screen (it is not while a question awaits an answer)."""
        return self._live is not None

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
        if self._live is not None:
            self._live.refresh()

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
        if self._plan is None:
            return None
        if not self._plan:
            return Text("The plan is empty.", style="dim")
        return plan_checklist(self._plan, width=self.console.width, lead="  ", indent="  ")

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

    def _end_stream(self) -> None:
        self._end_thinking()
        self._end_text()

    def _end_text(self) -> None:
        text, self._text = self._text, ""
        if self._use_live:
            if text.strip():
                self._print_block(_bulleted(_markdown(text)))
                self._set_activity("Thinking")
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

    # -- tools -------------------------------------------------------------------------------

    def _on_tool_started(self, event: ToolStarted) -> None:
        self._end_stream()
        asked = event.call_id in self._tools  # its question showed the headline already
        self._tools[event.call_id] = event
        if asked:
            return
        self._print_headline(event)
        self._set_activity(self._running())

    def _print_headline(self, event: ToolStarted) -> None:
        self._print(
            tool_headline(
                event.name, event.input, workspace=self.workspace, width=self.console.width
            )
        )
        self._headline_of = event.call_id

    def _running(self) -> str:
        """The activity while tools run: calls of one response run side by side."""
        names = [started.name for started in self._tools.values()]
        if len(names) <= 1:
            return f"Running {names[0]}" if names else "Thinking"
        return f"Running {len(names)} tools ({', '.join(names)})"

    def _on_tool_finished(self, event: ToolFinished) -> None:
        self._end_stream()
        started = self._tools.pop(event.call_id, None)
        width = self.console.width
        if started is not None and self._headline_of != event.call_id:
            # Other lines came between its headline and its result (calls running side by
            # side): name the call again so that the result is not read as another's.
            self._print_headline(started)
        if event.diff and not event.is_error:
            raw_path = started.input.get("file_path") if started else None
            path = display_path(raw_path, self.workspace) if isinstance(raw_path, str) else None
            limit = VERBOSE_DIFF_LINES if self.verbose else DIFF_LINES
            self._print_block(diff_view(event.diff, path, width=width, max_lines=limit))
        elif (plan := self._new_plan(event, started)) is not None:
            self._print_block(plan_checklist(plan, width=width))
        else:
            limit = VERBOSE_PREVIEW_LINES if self.verbose else PREVIEW_LINES
            self._print_block(
                result_preview(
                    event.name, event.content, is_error=event.is_error, width=width, max_lines=limit
                )
            )
        self._set_activity(self._running())

    def _new_plan(self, event: ToolFinished, started: ToolStarted | None) -> list[PlanItem] | None:
        """The plan a TodoWrite call set, remembered for `/todos`; None for other calls and
        for a TodoWrite the tool refused (its error is shown instead)."""
        if event.name != TODO_TOOL or event.is_error or started is None:
            return None
        plan = plan_items(started.input)
        if plan is not None:
            self._plan = plan
        return plan

    def _on_permission_asked(self, event: PermissionAsked) -> None:
        self._end_stream()
        # A redrawn region would fight the key reader below it; the spinner would mislead.
        self._stop_live()
        if event.call_id not in self._tools:
            self._on_tool_started(
                ToolStarted(call_id=event.call_id, name=event.tool, input=event.input)
            )
        preview = self._proposed_change(event)
        if preview is not None:
            self._print(preview)
        self._print(permission_question(event.reason, event.suggestion))
        self._headline_of = event.call_id
        self._set_activity("Waiting for your answer")

    def _proposed_change(self, event: PermissionAsked) -> Text | None:
        raw_path = event.input.get("file_path")
        if not isinstance(raw_path, str) or event.tool not in ("Edit", "Write"):
            return None
        path = Path(raw_path)
        if not path.is_absolute() and self.workspace is not None:
            path = self.workspace / path
        diff = proposed_diff(event.tool, event.input, _text_for_preview(path))
        if not diff:
            return None
        verb = "Would create" if event.tool == "Write" and not path.exists() else "Would update"
        limit = VERBOSE_DIFF_LINES if self.verbose else DIFF_LINES
        shown = display_path(raw_path, self.workspace)
        return diff_view(diff, shown, width=self.console.width, max_lines=limit, verb=verb)

    # -- end of turn -------------------------------------------------------------------------

    def _on_turn_finished(self, event: TurnFinished) -> None:
        self.close()
        running, self._tools = self._tools, {}
        if event.error is not None and "interrupt" in event.error:
            if running:  # under the headline of the call that was cut short
                self.console.print(Text("  ⎿  Interrupted", style="yellow"))
                self.console.line()
            else:
                self.console.print(Text(INTERRUPTED_HINT, style="yellow"))
        elif event.subtype == "error_max_turns":
            self.console.print(Text("Stopped: the turn limit was reached.", style="yellow"))
        self.console.print(Text(turn_footer(event), style="dim"))

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
        if not self._use_live or self._live is not None:
            return
        from rich.live import Live  # only terminals pay for it

        self._activity_since = time.monotonic()
        # Redrawn from this thread only: rich's refresh thread would race the prints above
        # the region and erase lines it miscounts.
        self._live = Live(
            console=self.console,
            get_renderable=self._live_view,
            auto_refresh=False,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
            vertical_overflow="crop",
        )
        self._live.start(refresh=True)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no event loop: the region is redrawn on each event only
        self._ticker = loop.create_task(self._tick())

    async def _tick(self) -> None:
        """Keep the spinner and the clock moving while no event arrives."""
        while self._live is not None:
            self._live.refresh()
            await asyncio.sleep(REFRESH_INTERVAL_S)

    def _stop_live(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None
        if self._live is not None:
            self._live.stop()
            self._live = None

    def _spinner_with(self, label: Text) -> Spinner:
        if self._spinner is None:
            from rich.spinner import Spinner

            self._spinner = Spinner("dots", text=label, style="cyan")
        else:
            self._spinner.update(text=label)
        return self._spinner

    def _live_view(self) -> RenderableType:
        """What the live region shows: the reply so far (its tail when taller than the
        screen), then the spinner line."""
        parts: list[RenderableType] = []
        height = max(3, self.console.size.height - 2)
        if self._text.strip():
            parts.append(_Tail(_bulleted(_markdown(self._text)), height))
        elif self._thinking.strip() and self.verbose:
            parts.append(_Tail(Text(self._thinking.strip(), style="dim italic"), height))
        seconds = int(time.monotonic() - self._activity_since)
        label = Text(f"{self._activity}… ", style="bold")
        label.append(f"({seconds}s · {INTERRUPT_HINT} · type to steer)", style="dim")
        parts.append(self._spinner_with(label))
        if self._draft:
            parts.append(Text(f"> {self._draft}▏", style="bold"))
        return Group(*parts)


def _text_for_preview(path: Path) -> str | None:
    """The file a proposed change applies to, read for its preview only: a file that cannot
    be read (or is too large to be worth it) shows the change alone."""
    try:
        if not path.is_file() or path.stat().st_size > PREVIEW_MAX_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _markdown(text: str) -> RenderableType:
    from rich.markdown import Markdown  # markdown-it costs ~50 ms; not needed for the prompt

    return Markdown(text)


def _bulleted(body: RenderableType) -> Table:
    grid = Table.grid(padding=0)
    grid.add_column(width=2, no_wrap=True)
    grid.add_column()
    grid.add_row(Text("●", style="bold"), body)
    return grid


class _Tail:
    """The last `max_lines` lines of a renderable, so a long reply scrolls inside the live
    region instead of being cut at the top."""

    def __init__(self, renderable: RenderableType, max_lines: int) -> None:
        self.renderable = renderable
        self.max_lines = max_lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self.renderable, options, pad=False)
        for line in lines[-self.max_lines :]:
            yield from line
            yield Segment.line()


def cache_line(usage: Usage) -> str:
    """One model call's prompt caching, for --verbose: hit or miss, and the tokens it saved."""
    read, wrote = usage.cache_read_input_tokens, usage.cache_creation_input_tokens
    total = usage.context_tokens
    verdict = "hit" if read else "miss"
    share = f"{read / total:.0%} of {format_tokens(total)} from cache" if total else "no prompt"
    # A cache read costs a tenth of a plain input token: 90% of each is saved.
    saved = f", ~{format_tokens(int(read * 0.9))} tokens' worth saved" if read else ""
    return f"  cache {verdict}: {share}, {format_tokens(wrote)} written{saved}"


def format_tokens(count: int) -> str:
    """1234 -> '1.2k', 2_500_000 -> '2.5M': short counts for footers."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.1f}M"


def format_usage(usage: Usage) -> str:
    """'12.3k in (10.0k cached) · 456 out'."""
    text = f"{format_tokens(usage.context_tokens)} in"
    if usage.cache_read_input_tokens:
        text += f" ({format_tokens(usage.cache_read_input_tokens)} cached)"
    return f"{text} · {format_tokens(usage.output_tokens)} out"


def turn_footer(event: TurnFinished) -> str:
    """The dim line after a turn: model calls, tokens, cost, time."""
    calls = f"{event.num_turns} model call" + ("" if event.num_turns == 1 else "s")
    parts = [calls, format_usage(event.usage)]
    if event.cost_usd:
        parts.append(f"${event.cost_usd:.4f}")
    parts.append(f"{event.duration_ms / 1000:.1f}s")
    return "─ " + " · ".join(parts)
