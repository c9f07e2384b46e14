"""Continuing a session (`--resume`, `--continue`, `--fork-session`): which one, its file
reopened or forked, what it already cost, and the calls a crash left open."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from tether import __version__
from tether.core.recording import UNFINISHED_AT_EXIT, Restored, SessionRecorder
from tether.core.session import Session
from tether.protocol import ConfigError
from tether.store import (
    LoadedSession,
    SessionWriter,
    find_session,
    fork_session,
    latest_session,
    load_session,
)

if TYPE_CHECKING:
    from tether.cli.setup import RunOptions


def session_to_resume(opts: RunOptions, home: Path, workspace: Path) -> LoadedSession | None:
    if opts.resume is not None:
        return load_session(find_session(home, workspace, opts.resume))
    if opts.continue_latest:
        latest = latest_session(home, workspace)
        if latest is None:
            raise ConfigError(f"no session to continue in {workspace}: start one with tether")
        return load_session(latest)
    if opts.fork:
        raise ConfigError("--fork-session needs --resume ID or --continue")
    return None


def recorder_for(
    opts: RunOptions,
    loaded: LoadedSession | None,
    directory: Path,
    session_id: str,
    workspace: Path,
    model_id: str,
) -> SessionRecorder:
    if loaded is None:

        def start() -> SessionWriter:
            writer = SessionWriter.create(directory, session_id, cwd=workspace, model=model_id)
            writer.meta(model=model_id, version=__version__)
            return writer

        return SessionRecorder(start)
    if opts.fork:
        writer = fork_session(loaded.path, directory, session_id, cwd=workspace, model=model_id)
    else:
        writer = SessionWriter.reopen(
            loaded.path, cwd=workspace, last_uuid=loaded.last_uuid, model=model_id
        )
    return SessionRecorder.continuing(writer)


def tell_resumed(session: Session, loaded: LoadedSession, restored: Restored, forked: bool) -> None:
    """Count what the session already cost, answer calls a crash left open, and say so."""
    for usage in restored.usage:
        session.usage = session.usage + usage
        session.cost_usd += session.agent.price(usage)
    repaired = restored.history.answer_unanswered(UNFINISHED_AT_EXIT)
    session.startup_notices.extend(loaded.warnings)
    title = f" ({loaded.title})" if loaded.title else ""
    how = f"forked from {loaded.session_id}{title} as" if forked else "resumed"
    note = f"{how} session {session.session_id}: {len(restored.history)} messages"
    if repaired:
        note += f"; {len(repaired)} tool call(s) left unfinished were marked as interrupted"
    session.resumed = note


def new_session_id(opts: RunOptions) -> str:
    """`--session-id`, which must be a UUID (as Claude Code requires), or a fresh one."""
    if opts.session_id is None:
        return str(uuid.uuid4())
    try:
        return str(uuid.UUID(opts.session_id))
    except ValueError:
        raise ConfigError(f"--session-id must be a UUID, not {opts.session_id!r}") from None
