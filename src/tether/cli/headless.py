"""Headless mode: `tether -p PROMPT` prints text, one JSON result, or JSON lines (stream-json)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
import time
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from tether.cli.background_wait import stopped_with_the_loop, wait_limit_s, woken_within
from tether.cli.headless_input import headless_turn, prepared
from tether.cli.setup import Built, RunOptions, build
from tether.cli.stream_wakes import unless_stopped
from tether.cli.terminal_text import terminal_safe, waiting_notice
from tether.core.session import Session
from tether.protocol import (
    ConfigError,
    ContextCompacted,
    ErrorOccurred,
    Event,
    MessageCompleted,
    ModelRetry,
    ModelWaiting,
    Notice,
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
    UserInput,
)

if TYPE_CHECKING:
    from tether.cli.sdk_lines import LineMaker, SessionFacts


def read_prompt(arg: str | None, stdin: TextIO) -> str | None:
    """The prompt argument, followed by piped stdin when there is some."""
    piped = None if stdin.isatty() else stdin.read()
    parts = [p for p in (arg, piped) if p and p.strip()]
    return "\n\n".join(parts) if parts else None


def run_headless_sync(
    opts: RunOptions, prompt: str, output_format: str, *, include_partial: bool = False
) -> int:
    try:
        return asyncio.run(
            run_headless(opts, prompt, output_format, include_partial=include_partial)
        )
    except ConfigError as e:
        print(f"tether: {terminal_safe(str(e))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("tether: interrupted", file=sys.stderr)
        return 130


async def run_headless(
    opts: RunOptions,
    prompt: str,
    output_format: str,
    *,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    include_partial: bool = False,
) -> int:
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    wait_s = wait_limit_s()
    started = time.monotonic()  # `/cost`'s wall time counts from here
    built = build(opts)
    session = built.session
    session.run_started = started  # the wall time the replies carry counts as `/cost`'s does
    progress = _progress_renderer(err) if opts.verbose else None
    for notice in session.startup_notices:
        print(f"tether: {terminal_safe(notice)}", file=err)
    finished: TurnFinished | None = None
    results: list[dict[str, Any]] = []
    """Each turn's result line, written once the last turn has ended (as Claude Code)."""
    shown_errors: set[str] = set()  # printed as they happened: not again as the result
    # Claude Code's JSON shapes, only for the formats that print them (text needs none of it).
    lines = _line_maker(session, include_partial) if output_format != "text" else None
    streaming = output_format == "stream-json"
    signalled = asyncio.Event()
    stopped_by = _stop_on_signals(session, signalled)

    # Text mode on a terminal (stdout and stderr both): an API error is said once, by stdout's
    # `API Error:` line (Claude Code's); tether's own line (with the endpoint) is held until
    # the turn ends, and said only if the error was not that. With stdout captured or stderr
    # sent to a log, both are said: the terminal or the log has tether's fuller line.
    one_screen = lines is None and out.isatty() and err.isatty()
    held_errors: list[str] = []

    def on_event(event: Event) -> None:
        nonlocal finished
        if isinstance(event, ErrorOccurred):
            shown_errors.add(_first_line(event.message))
        if progress is not None:
            progress.render(event)
        elif isinstance(event, ErrorOccurred | ModelWaiting):
            # Retries are not printed: a call that fails in the end is one line, the final
            # error (--verbose shows each retry).
            said = f"tether: {terminal_safe(_one_line(event))}"
            if one_screen and isinstance(event, ErrorOccurred):
                held_errors.append(said)
            else:
                print(said, file=err)
        else:
            _warn(event, err)
        if isinstance(event, TurnFinished):
            if event.api_error_status is None or not one_screen:
                for said in held_errors:
                    print(said, file=err)
            held_errors.clear()
            finished = event
            if lines is not None:
                facts = _facts(built, opts)
                if streaming and event.api_error_status is not None:
                    # As Claude Code: the refusal is an assistant message of its own first.
                    from tether.cli.sdk_api_error import assistant_line

                    said = assistant_line(event, lines.session_id, facts.model_id, facts.endpoint)
                    _write(out, said)
                for line in lines.take_held() if streaming else ():
                    _write(out, line)
                results.append(lines.result(event, facts))
                if len(results) > 1:  # a turn a background subagent's end woke
                    from tether.cli.sdk_task_lines import TASK_NOTIFICATION_ORIGIN

                    results[-1]["origin"] = TASK_NOTIFICATION_ORIGIN
        elif lines is not None:
            # json reads them too: the result counts what the turn's lines said (num_turns,
            # modelUsage); only stream-json prints them.
            produced = _stream_lines(lines, event)
            for line in produced if streaming else ():
                _write(out, line)

    def say(message: str) -> None:
        on_event(Notice(level="warning", message=message))

    session.between_turns.append(on_event)  # a background subagent's, after its turn
    try:
        # Before the init line, which names the tools, MCP servers' included. Repository MCP
        # servers are taken as configured: nobody is there to approve them.
        for event in await prepared(session):
            _warn(event, err)
        turn: UserInput | None = UserInput(text=prompt)
        while turn is not None:
            if streaming and lines is not None:
                _write(out, lines.init(session.started(), _facts(built, opts)))
                for line in lines.start_notices():
                    _write(out, line)
            async for event in headless_turn(session, turn, front_started=started):
                on_event(event)
            # A background subagent or command still running is waited for, at most `wait_s`
            # and said (`background_wait`), and what it ends with is a turn of its own before
            # the process exits. A signal ends that wait at once: the session's close stops
            # the commands, by their id. Not after a turn the repeat guard ended: what it left
            # running is stopped with the session (it would wake a loop again).
            turn = None
            background = session.agent.tool_context.background
            if not stopped_by and not session.looped:
                woke = woken_within(background, wait_s, say)
                turn = await unless_stopped(woke, signalled)
            elif session.looped:
                stopped_with_the_loop(background, say)
            if turn is not None and lines is None and finished_text(finished, out):
                print(file=out)  # as Claude Code: each turn's answer, a blank line between
    finally:
        for said in held_errors:  # the turn never ended: said as they came
            print(said, file=err)
        if progress is not None:
            progress.close()
        left = await built.lead.unanswered() if built.lead is not None else None
        if left is not None:  # said before the session closes its team side
            print(f"tether: {terminal_safe(left)}", file=err)
        for news in await session.aclose():
            print(f"tether: warning: {terminal_safe(news)}", file=err)
        _restore_signals()
    assert finished is not None
    if lines is None:
        if finished.is_error:
            from tether.cli.text_mode_errors import stdout_error

            # As Claude Code: a limit or an API error is said on stdout, in its words, so
            # `out=$(tether -p ...)` holds it; other errors are told on stderr.
            facts = _facts(built, opts)
            told = stdout_error(finished, facts)
            if told is not None:
                print(terminal_safe(told) if out.isatty() else told, file=out)
            else:
                from tether.cli.sdk_session_lines import error_text

                said = error_text(finished, facts)
                if _first_line(said) not in shown_errors:
                    print(f"tether: {terminal_safe(said)}", file=err)
        else:
            finished_text(finished, out)
    elif streaming:
        for line in results:
            _write(out, line)
    else:
        _write(out, results[-1])
    out.flush()
    if stopped_by:
        if finished.result != _stopped_by(stopped_by[0]):
            # It came after the turn had ended (while background work was waited for, or the
            # session closed): the answer stands, and the signal is still told, as elsewhere.
            print(f"tether: {_stopped_by(stopped_by[0])}", file=err)
        return 128 + stopped_by[0]
    return 1 if finished.is_error else 0


def finished_text(finished: TurnFinished | None, out: TextIO) -> bool:
    """Print a turn's answer (as sent when it goes to a file or a pipe, safe on a terminal);
    False when it ended in an error (said once the run is over)."""
    if finished is None or finished.is_error:
        return False
    print(terminal_safe(finished.result) if out.isatty() else finished.result, file=out)
    return True


def _line_maker(session: Session, include_partial: bool) -> LineMaker:
    from tether.cli.sdk_lines import LineMaker

    lines = LineMaker(session.session_id, include_partial, untold=list(session.startup_notices))
    lines.goes_on_from(session.cost_usd, session.api_ms, session.earlier_by_model)
    lines.watch_aside(session.agent)
    return lines


def _facts(built: Built, opts: RunOptions) -> SessionFacts:
    from tether.cli.sdk_facts import session_facts

    return session_facts(built, opts.permission_mode or "default")


def _stream_lines(lines: LineMaker, event: Event) -> list[dict[str, Any]]:
    """An event's stream-json lines, as the SDK front end writes them."""
    match event:
        case TextDelta(text=piece):
            return lines.text(piece, "text")
        case ThinkingDelta(text=piece):
            return lines.text(piece, "thinking")
        case ToolInputDelta():
            return lines.tool_input(event)
        case ModelRetry():
            return lines.retry(event)
        case MessageCompleted():
            return lines.completed(event)
        case ToolStarted():
            lines.tool_started(event)
        case ToolFinished():
            return lines.tool_finished(event)
        case SubagentStarted() | SubagentMessage() | SubagentFinished():
            return lines.subagent(event)
        case ContextCompacted():
            return [lines.system.compacted(event)]
        case StatusChanged():
            return lines.status(event)
        case Notice(blocked_reason=str(reason)):
            return [lines.system.prompt_blocked(event.message, reason, event.kept)]
        case Notice(level="warning", message=message) if event.for_client:
            return [lines.system.notice(message)]
        case Notice(said_by=str(said_by)) if said_by:  # a hook's `systemMessage`
            return lines.hook_said(said_by, event.told)
        case _:
            pass
    return []


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""Each ends the turn as an interrupt does. SIGHUP (the terminal closed, or `kill -HUP`)
ended tether at once, with no word: now the session is saved as for SIGTERM, and the line
is said where a terminal is still there to read it."""


def _warn(event: Event, err: TextIO) -> None:
    """Warnings (a server that did not start, a session no longer saved) go to stderr."""
    if isinstance(event, Notice) and event.level == "warning":
        print(f"tether: warning: {terminal_safe(event.message)}", file=err)


def _stop_on_signals(session: Session, signalled: asyncio.Event) -> list[int]:
    """SIGINT, SIGTERM and SIGHUP end the turn the way an interrupt does: tools stopped, every call
    answered, the session file complete, and a result printed; a wait for background work
    after the turn ends at once (`signalled` is set). Returns the signals seen."""
    seen: list[int] = []
    loop = asyncio.get_running_loop()

    def stop(signum: int) -> None:
        seen.append(signum)
        signalled.set()
        # At every signal, named by the first: a stop is sent again, never taken as heard
        # (the one turn headless runs may not have started yet).
        session.interrupt_next_turn(_stopped_by(seen[0]))
        for agent in session.agent.tool_context.background.running_agents():
            agent.run.cancel()  # not waited for: the process ends

    # Outside the main thread (tests run the CLI in-process) signals stay as they are.
    for signum in _STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, stop, signum)
    return seen


def _stopped_by(signum: int) -> str:
    """The turn's error when a signal stopped it. Ctrl+C is said as it is before the turn
    starts (`tether: interrupted`): one wording, whenever it lands."""
    if signum == signal.SIGINT:
        return "interrupted"
    return f"stopped by {signal.Signals(signum).name}"


def _restore_signals() -> None:
    loop = asyncio.get_running_loop()
    for signum in _STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.remove_signal_handler(signum)


def _write(out: TextIO, obj: dict[str, Any]) -> None:
    out.write(json.dumps(obj, ensure_ascii=False) + "\n")
    out.flush()


def _one_line(event: ErrorOccurred | ModelWaiting) -> str:
    if isinstance(event, ModelWaiting):
        return waiting_notice(event.waited_s, event.limit_s, pings_only=event.pings_only)
    return _first_line(event.message) or "error"


def _first_line(message: str) -> str:
    """An error as printed: its first line (an internal error's traceback follows it)."""
    return message.splitlines()[0] if message else ""


def _progress_renderer(err: TextIO) -> _Renderer:
    """Tool calls and retries as the REPL shows them, on stderr (--verbose)."""
    from rich.console import Console

    from tether.cli.render import HEADLESS_HINT, EventRenderer

    # Not wrapped at 80 columns when it goes to a file or pipe: each message stays one line.
    console = Console(file=err, stderr=True, soft_wrap=not err.isatty())
    return EventRenderer(console, verbose=True, hint=HEADLESS_HINT)


class _Renderer(Protocol):
    def render(self, event: Event) -> None: ...
    def close(self) -> None: ...
