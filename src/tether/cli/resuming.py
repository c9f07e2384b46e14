"""Continuing a session (`--resume`, `--continue`, `--fork-session`, `--session-id`): which file,
a new session's recorder, and what a resumed one says and already cost."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, cast

from tether import __version__
from tether.cli.teams_tools import TEAMMATE_ENV
from tether.core.history import History
from tether.core.loop import next_request
from tether.core.recording import SessionRecorder
from tether.core.session import Session
from tether.protocol import ConfigError, HarnessError, ToolUseBlock, Usage
from tether.store import (
    EntryWatcher,
    SessionNotFound,
    SessionWriter,
    find_session,
    latest_session,
)
from tether.teams.membership import board_note, worker_task

if TYPE_CHECKING:
    from tether.cli.setup import RunOptions
    from tether.core.lifecycle import Lifecycle
    from tether.core.loop import Agent
    from tether.core.resume import Restored, Resumption
    from tether.models.resolve import ResolvedModel


TEAMMATE_META = "teammate"
"""The `meta` entry's field naming the member whose session it is (a teammate's)."""
TASK_META = "task"
"""The `meta` entry's field naming the task a worker ran the session for (`team`, `id`, and
`claim`: the worker's claim, `ID@FENCE@CREATED`)."""
BOARD_META = "board"
"""The `meta` entry's field naming the board the session's environment put it on (`team`,
`store`): a worker's task session's, a teammate's."""


def session_to_resume(
    opts: RunOptions,
    home: Path,
    workspace: Path,
    skipped: list[str] | None = None,
    *,
    teammate: str | None = None,
    kept_with: Path | None = None,
) -> Path | None:
    """The file of the session `--resume` or `--continue` names; None for a new session
    (`--continue` where there is none yet is one). `--continue` outside a teammate (`teammate`
    None) passes over the sessions tether ran for others, teammates' and workers' tasks: a
    lead, a user, continues its own; in a task's worktree, it continues the newest session
    run there (the task's). The sessions are looked for with the project `kept_with`'s (a task
    worktree's are kept with its main workspace's), `workspace` by default. Entries of the
    session folders that cannot be examined are said in `skipped`."""
    kept = kept_with if kept_with is not None else workspace
    if opts.resume is not None:
        found: list[str] = []
        try:
            return find_session(home, kept, opts.resume, found)
        except SessionNotFound as e:
            raise SessionNotFound("; ".join([str(e), *found])) from None
        finally:
            if skipped is not None:
                skipped.extend(found)
    if opts.continue_latest:
        where = workspace.resolve()
        project = worktree_project(where)

        def passed_over(path: Path) -> bool:
            if project is not None:  # the task's own sessions: those run in this worktree
                return not ran_in(path, where)
            return not teammate and delegated_session(path, where)

        # None: nothing to continue, and, as in Claude Code, a new session starts.
        return latest_session(home, project or kept, skipped, passed_over=passed_over)
    if opts.fork:
        raise ConfigError("--fork-session needs --resume ID or --continue")
    if opts.resume_at is not None:
        raise ConfigError("--resume-session-at needs --resume ID or --continue")
    return None


def delegated_session(path: Path, workspace: Path) -> bool:
    """Whether the session file is one tether ran for someone other than the user: a
    teammate's, or a worker's for a task (its `meta` entry, first, says so; a worker's written
    before the mark, by the task worktree it ran in)."""
    meta = session_meta(path)
    if meta is None:
        return False
    data = meta.get("data")
    if isinstance(data, dict) and (data.get(TEAMMATE_META) or data.get(TASK_META)):  # pyright: ignore[reportUnknownMemberType]
        return True
    from tether.teams.records import WORKTREES_DIR  # the team's records: not for a new session

    cwd = meta.get("cwd")
    return isinstance(cwd, str) and Path(cwd).is_relative_to(workspace / WORKTREES_DIR)


def worktree_project(where: Path) -> Path | None:
    """The project whose task worktree `where` is (it lies under the project's
    `.tether/worktrees/`), None when it is none."""
    from tether.teams.records import WORKTREES_DIR  # the team's records: not for a new session

    marks, parts = WORKTREES_DIR.parts, where.parts
    for i in range(len(parts) - len(marks) - 1, 0, -1):
        if parts[i : i + len(marks)] == marks:
            return Path(*parts[:i])
    return None


def ran_in(path: Path, where: Path) -> bool:
    """Whether the session file's session ran in the directory `where` (its `meta` cwd)."""
    meta = session_meta(path)
    cwd = meta.get("cwd") if meta is not None else None
    return isinstance(cwd, str) and Path(cwd).resolve() == where


def session_meta(path: Path) -> dict[str, object] | None:
    """The session file's first entry when it is its `meta` entry."""
    try:
        with path.open("rb") as lines:
            first = lines.readline(64 * 1024)
        entry = json.loads(first)
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("type") != "meta":  # pyright: ignore[reportUnknownMemberType]
        return None
    return cast("dict[str, object]", entry)


def new_recorder(
    directory: Path,
    session_id: str,
    workspace: Path,
    model_id: str,
    env: Mapping[str, str],
) -> SessionRecorder:
    """A new session's recorder. Its `meta` entry marks a session tether runs for someone
    else: a teammate's (`TETHER_TEAMMATE`), a worker's task's (the claim it lends)."""
    teammate, task, board = env.get(TEAMMATE_ENV), worker_task(env), board_note(env)
    watchers: list[EntryWatcher] = []

    def start() -> SessionWriter:
        writer = SessionWriter.create(
            directory, session_id, cwd=workspace, model=model_id, watchers=watchers
        )
        try:
            more: dict[str, object] = {TEAMMATE_META: teammate} if teammate else {}
            if task:
                more[TASK_META] = dict(task)
            if board:
                more[BOARD_META] = dict(board)
            writer.meta(model=model_id, version=__version__, **more)
        except HarnessError:
            # Not half-made: the recorder tries again at the next entry, from scratch.
            with contextlib.suppress(HarnessError):
                writer.close()
            writer.path.unlink(missing_ok=True)
            raise
        return writer

    return SessionRecorder(start, watchers=watchers)


def open_session(
    agent: Agent,
    opts: RunOptions,
    session_id: str,
    resumption: Resumption | None,
    restored: Restored | None,
    *,
    lifecycle: Lifecycle,
    sessions_dir: Path,
    workspace: Path,
    env: Mapping[str, str],
) -> Session:
    """The session, new or resumed (`resumption`, its conversation `restored`): recorded to
    the resumed file, to a new one, or (`--no-session-persistence`) nowhere; what resuming
    found said, or that there was nothing to continue."""
    recorder = (
        resumption.recorder
        if resumption is not None
        else new_recorder(sessions_dir, session_id, workspace, agent.model_id, env)
        if opts.persist_session
        else None
    )
    session = Session(
        agent,
        session_id=session_id,
        history=restored.history if restored is not None else None,
        lifecycle=lifecycle,
        recorder=recorder,
    )
    if resumption is not None and restored is not None:
        tell_resumed(session, resumption, restored)
    elif opts.continue_latest:
        session.startup_notices.append(
            f"no earlier session in {workspace} to continue: this is a new one"
        )
    return session


def tell_resumed(session: Session, resumption: Resumption, restored: Restored) -> None:
    """Count what the session already cost, answer calls a crash left open, and say so: what
    of the file could not be resumed as written, why it forked, why it is not saved."""
    from tether.cli.resumed_reads import restore_reads
    from tether.core.resume import UNFINISHED_AT_EXIT

    loaded = resumption.loaded
    session.usage = session.usage + restored.usage
    session.cost_usd += restored.cost_usd
    session.usage = session.usage + restored.side_usage
    session.cost_usd += restored.side_cost_usd
    session.api_ms += restored.api_ms
    # At least the API time: a file from before replies carried the wall time has only that.
    session.earlier_wall_ms = max(restored.wall_ms, restored.api_ms)
    session.earlier_by_model = dict(restored.by_model)
    if restored.side_cost_usd or restored.side_usage != Usage():
        # Spend entries name no model: counted as the session's, so that `modelUsage`
        # adds up to the total cost as Claude Code's does.
        model = session.agent.model_id
        used, spent = session.earlier_by_model.get(model, (Usage(), 0.0))
        side = (used + restored.side_usage, spent + restored.side_cost_usd)
        session.earlier_by_model[model] = side
    session.lines_added += restored.lines_added
    session.lines_removed += restored.lines_removed
    # A window the endpoint reported for this model holds, and what its count taught the
    # estimate: no request known to be too long.
    model = session.agent.model_id
    reported = restored.windows.get(model)
    if reported is not None:
        restored.history.sizer.resumed(reported.tokens, reported.chars_per_token)
    measured = restored.estimates.get(model)
    if measured is not None:  # what the requests as sent took (the file cannot say it)
        restored.history.sizer.resumed_ratio(measured)
        restored.history.kept_ratio = measured
    _calibrate(session, restored.history)
    tools = session.agent.tools

    def rerun(call: ToolUseBlock) -> bool:
        tool = tools.get(call.name)
        return tool is not None and tool.rerun_after_crash

    repaired = restored.history.answer_unanswered(UNFINISHED_AT_EXIT, leave=rerun)
    restore_reads(session, loaded)  # Edit takes what the conversation shows was read
    session.startup_notices.extend(resumption.notices)
    session.startup_notices.extend(restored.damage)
    title = f" ({loaded.title})" if loaded.title else ""
    how = f"forked from {loaded.session_id}{title} as" if resumption.forked else "resumed"
    note = f"{how} session {session.session_id}: {len(restored.history)} messages"
    if repaired:
        note += f"; {len(repaired)} tool call(s) left unfinished were marked as interrupted"
    session.resumed = note


def _calibrate(session: Session, history: History) -> None:
    """The estimate of a resumed session's requests, from the newest reply's usage and what
    the conversation held before it: an endpoint that counts more than the assumed ratio
    must not refuse the resume's first request (see `RequestSizer.resumed_from`)."""
    view, usage = history.view(), history.last_usage
    last = next((i for i in range(len(view) - 1, -1, -1) if view[i].role == "assistant"), None)
    if last is None or usage is None or session.agent.compaction is None:
        return
    asked = dataclasses.replace(next_request(session.agent, history), messages=view[:last])
    window = history.sizer.window(session.agent.compaction.policy.window)
    history.sizer.resumed_from(asked, usage, window)


def new_session_id(opts: RunOptions) -> str:
    """`--session-id`, which must be a UUID (as Claude Code requires), or a fresh one."""
    if opts.session_id is None:
        return str(uuid.uuid4())
    try:
        return str(uuid.UUID(opts.session_id))
    except ValueError:
        raise ConfigError(f"--session-id must be a UUID, not {opts.session_id!r}") from None


def resumption_for(
    opts: RunOptions,
    *,
    sessions_home: Path,
    sessions_dir: Path,
    workspace: Path,
    model_id: str,
    skipped: list[str],
    teammate: str | None,
    kept_with: Path | None = None,
) -> Resumption | None:
    """The session `opts` continues, its file claimed (or forked: `resume_session`); None for
    a new session. Entries of the session folders that cannot be examined are said in
    `skipped`."""
    path = session_to_resume(
        opts, sessions_home, workspace, skipped, teammate=teammate, kept_with=kept_with
    )
    if path is None:
        return None
    from tether.core.resume import resume_session

    return resume_session(
        path,
        fork=opts.fork,
        directory=sessions_dir,
        cwd=workspace,
        model=model_id,
        new_id=lambda: new_session_id(opts),
        at=opts.resume_at,
        persist=opts.persist_session,
    )


def restored_for(resumption: Resumption | None, resolved: ResolvedModel) -> Restored | None:
    """The resumed conversation as a request to the resolved model's window could hold it in
    full, with room to spare (a token is three to four bytes of JSON): the rest is kept as
    head and tail (see `tether.core.resume.restore`); None for a new session. Each earlier
    call is priced at the rates of the model that answered it: a session resumed on another
    model keeps what the first one cost."""
    if resumption is None:
        return None
    from tether.core.resume import FULL_BYTES_PER_TOKEN, restore
    from tether.models.catalogue import cost_usd, model_info

    info = resolved.info

    def price(model: str | None, usage: Usage) -> float:
        answered = (
            info if model is None or model == info.id else model_info(model, resolved.provider)
        )
        return cost_usd(answered, usage)

    full_bytes = FULL_BYTES_PER_TOKEN * info.context_window
    return restore(resumption.loaded, full_bytes=full_bytes, price=price)
