"""The REPL's session switching: `:sessions`, `/resume [ID]` (with its picker), `:resume ID`,
`:fork ID`, and the end of a resumed conversation shown where it stopped."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prompt_toolkit import PromptSession
from rich.console import Console
from rich.text import Text

from tether.cli.picker_question import ask_picker
from tether.cli.terminal_text import terminal_safe
from tether.config.settings import sessions_home

PICK_QUESTION = "resume which? (number or id, Enter for none) "
NOT_PICKED = "No session resumed: this one goes on."

if TYPE_CHECKING:
    from tether.cli.setup import RunOptions
    from tether.cli.startup import Ready
    from tether.core.session import Session


async def session_to_switch_to(
    console: Console,
    prompt: PromptSession[str],
    ready: Ready,
    command: str,
    ref: str,
    model_spec: str | None,
) -> RunOptions | None:
    """What `command` (`:sessions`, `/resume`, `:resume`, `:fork`) with `ref` asks for: the
    options of the session to continue here, or None (a listing, a choice not made, an error,
    said on `console`)."""
    from tether.cli.sessions_cmd import print_sessions
    from tether.protocol import ConfigError
    from tether.store import find_session, list_sessions

    workspace, home = Path(ready.session.started().cwd), sessions_home(ready.options.env)
    if command == ":sessions" or (command == "/resume" and not ref):
        skipped: list[str] = []
        sessions = list_sessions(home, workspace, skipped)
        if command == "/resume":  # as in Claude Code, the picker offers only other sessions
            sessions = [s for s in sessions if s.session_id != ready.session.session_id]
        sessions = sessions[:20]
        for line in skipped:
            console.print(Text(terminal_safe(line), style="yellow"))
        if command == "/resume" and not sessions:
            console.print(Text(f"No other session to resume in {workspace}.", style="dim"))
            return None
        listing = io.StringIO()
        print_sessions(sessions, workspace, listing)
        console.print(listing.getvalue(), end="", markup=False, highlight=False)
        if command == ":sessions" or not sessions:
            return None
        picked = await ask_picker(prompt, PICK_QUESTION)
        if not picked:
            console.print(Text(NOT_PICKED, style="dim"))
            return None
        ref = picked
        if ref.isdigit() and 1 <= int(ref) <= len(sessions):
            ref = sessions[int(ref) - 1].session_id
        elif ref.isdigit() and len(ref) <= len(str(len(sessions))):
            # A number of the list's size is a choice, not the start of an id.
            choices = f"choose 1 to {len(sessions)}" if len(sessions) > 1 else "choose 1"
            console.print(Text(f"✗ no session {ref} in the list: {choices}", style="red"))
            console.print(Text(NOT_PICKED, style="dim"))
            return None
    if not ref:
        console.print(Text(f"{command} needs a session id (see :sessions)", style="yellow"))
        return None
    try:
        path = find_session(home, workspace, ref)
    except ConfigError as e:
        console.print(Text(f"✗ {terminal_safe(str(e))}", style="red"))
        return None
    if path.stem == ready.session.session_id and command != ":fork":
        console.print(Text("That is the current session.", style="dim"))
        return None
    return opening(
        ready.options,
        resume=path.stem,
        fork=command == ":fork",
        model=model_spec or ready.options.model,
    )


def opening(
    options: RunOptions,
    *,
    resume: str | None = None,
    resume_at: str | None = None,
    fork: bool = False,
    **changes: Any,
) -> RunOptions:
    """`options` made to open one session, the one `resume` names (from `resume_at`, forked)
    or a new one: every way of choosing a session they held before (`--continue`, a point to
    resume at, a session id) is dropped, so none outlives a switch (a rewind's point, kept,
    made the next `/clear` refuse to start)."""
    return replace(
        options,
        resume=resume,
        resume_at=resume_at,
        continue_latest=False,
        fork=fork,
        session_id=None,
        **{"start_source": None, "kept_mcp": None, "kept_run": None, **changes},
    )


def show_recent(console: Console, session: Session, count: int | None = 4) -> None:
    """The end of a resumed conversation as the user saw it, so they see where it stopped
    (its last `count` pieces; None: all of it, after a rewind)."""
    from tether.cli.seen_messages import seen_view

    workspace = Path(session.started().cwd)
    pieces = seen_view(session.messages, workspace=workspace, width=console.width)
    for piece in pieces if count is None else pieces[-count:]:
        console.print(piece, highlight=False)
    console.line()
