"""Headless mode: `tether -p PROMPT` prints text, one JSON result, or JSON lines (stream-json)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from typing import Any, Protocol, TextIO

from tether.cli.setup import RunOptions, build_session
from tether.core.session import Session
from tether.protocol import (
    ConfigError,
    ErrorOccurred,
    Event,
    Message,
    MessageCompleted,
    ModelRetry,
    Notice,
    SessionStarted,
    TurnFinished,
    UserInput,
)


def read_prompt(arg: str | None, stdin: TextIO) -> str | None:
    """The prompt argument, followed by piped stdin when there is some."""
    piped = None if stdin.isatty() else stdin.read()
    parts = [p for p in (arg, piped) if p and p.strip()]
    return "\n\n".join(parts) if parts else None


def run_headless_sync(opts: RunOptions, prompt: str, output_format: str) -> int:
    try:
        return asyncio.run(run_headless(opts, prompt, output_format))
    except ConfigError as e:
        print(f"tether: {e}", file=sys.stderr)
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
) -> int:
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    session = build_session(opts)
    progress = _progress_renderer(err) if opts.verbose else None
    for notice in session.startup_notices:
        print(f"tether: {notice}", file=err)
    finished: TurnFinished | None = None
    shown_errors: set[str] = set()  # printed as they happened: not again as the result
    stopped_by = _stop_on_signals(session)
    try:
        # Before the init line, which names the tools, MCP servers' included. Repository MCP
        # servers are taken as configured: nobody is there to approve them.
        for event in await _prepared(session):
            _warn(event, err)
        started = session.started()
        if output_format == "stream-json":
            _write(out, init_line(started))
        async for event in session.submit(UserInput(text=prompt)):
            if isinstance(event, ErrorOccurred):
                shown_errors.add(event.message)
            if progress is not None:
                progress.render(event)
            elif isinstance(event, ErrorOccurred | ModelRetry):
                print(f"tether: {_one_line(event)}", file=err)
            else:
                _warn(event, err)
            if isinstance(event, MessageCompleted) and output_format == "stream-json":
                _write(out, message_line(event.message, started.session_id))
            if isinstance(event, TurnFinished):
                finished = event
    finally:
        if progress is not None:
            progress.close()
        await session.aclose()
        _restore_signals()
    assert finished is not None
    if output_format == "text":
        if finished.is_error:
            if finished.result not in shown_errors:
                print(f"tether: {finished.result or finished.subtype}", file=err)
        else:
            print(finished.result, file=out)
    else:
        _write(out, result_object(finished, session.session_id))
    out.flush()
    if stopped_by:
        return 128 + stopped_by[0]
    return 1 if finished.is_error else 0


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _warn(event: Event, err: TextIO) -> None:
    """Warnings (a server that did not start, a session no longer saved) go to stderr."""
    if isinstance(event, Notice) and event.level == "warning":
        print(f"tether: warning: {event.message}", file=err)


async def _prepared(session: Session) -> list[Event]:
    """The session's preparations (MCP servers connecting); a signal meanwhile stops them, and
    the turn then reports the interruption."""
    try:
        return await session.prepare()
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise
        return []


def _stop_on_signals(session: Session) -> list[int]:
    """SIGINT and SIGTERM end the turn the way an interrupt does: tools stopped, every call
    answered, the session file complete, and a result printed. Returns the signals seen."""
    seen: list[int] = []
    loop = asyncio.get_running_loop()

    def stop(signum: int) -> None:
        if not seen:
            session.interrupt(f"stopped by {signal.Signals(signum).name}")
        seen.append(signum)

    # Outside the main thread (tests run the CLI in-process) signals stay as they are.
    for signum in _STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, stop, signum)
    return seen


def _restore_signals() -> None:
    loop = asyncio.get_running_loop()
    for signum in _STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.remove_signal_handler(signum)


def init_line(started: SessionStarted) -> dict[str, Any]:
    return {
        "type": "system",
        "subtype": "init",
        "session_id": started.session_id,
        "model": started.model,
        "cwd": started.cwd,
        "tools": list(started.tools),
        "permissionMode": "default",
    }


def message_line(message: Message, session_id: str) -> dict[str, Any]:
    return {
        "type": message.role,
        "message": message_json(message),
        "parent_tool_use_id": None,
        "session_id": session_id,
    }


def message_json(message: Message) -> dict[str, Any]:
    """The message as the Messages API shapes it (no tether-internal fields)."""
    return {
        "role": message.role,
        "content": [
            b.model_dump(mode="json", exclude={"input_error", "raw_input"}) for b in message.content
        ],
    }


def result_object(finished: TurnFinished, session_id: str) -> dict[str, Any]:
    return {
        "type": "result",
        "subtype": finished.subtype,
        "is_error": finished.is_error,
        "result": finished.result,
        "stop_reason": finished.stop_reason,
        "session_id": session_id,
        "num_turns": finished.num_turns,
        "duration_ms": finished.duration_ms,
        "duration_api_ms": finished.duration_api_ms,
        "total_cost_usd": round(finished.cost_usd, 6),
        "usage": finished.usage.model_dump(),
        "permission_denials": [
            {"tool_name": d.tool_name, "tool_use_id": d.tool_use_id, "tool_input": d.tool_input}
            for d in finished.permission_denials
        ],
    }


def _write(out: TextIO, obj: dict[str, Any]) -> None:
    out.write(json.dumps(obj, ensure_ascii=False) + "\n")
    out.flush()


def _one_line(event: ErrorOccurred | ModelRetry) -> str:
    if isinstance(event, ModelRetry):
        return (
            f"model call failed ({event.reason}); retry {event.attempt}/{event.max_attempts - 1} "
            f"in {event.delay_s:.1f}s"
        )
    return event.message.splitlines()[0] if event.message else "error"


def _progress_renderer(err: TextIO) -> _Renderer:
    """Tool calls and retries as the REPL shows them, on stderr (--verbose)."""
    from rich.console import Console

    from tether.cli.render import EventRenderer

    # Not wrapped at 80 columns when it goes to a file or pipe: each message stays one line.
    console = Console(file=err, stderr=True, soft_wrap=not err.isatty())
    return EventRenderer(console, verbose=True)


class _Renderer(Protocol):
    def render(self, event: Event) -> None: ...
    def close(self) -> None: ...
