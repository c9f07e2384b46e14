"""A session's costs recorded in the ledger (`tether.ledger`): its events observed from the
start, under its task's id when a worker runs it and its teammate's name when it is one.

The recorder starts once the first response begins (the first request is then on its way:
SQLite's import never delays it); the events before are kept and recorded then. Its writes go
to the process's `LedgerWriter`, shared by its sessions (a REPL's after /clear, a worker's
tasks), which opens the file and writes from its own thread: nothing here waits for the file
or its lock. A session's end waits (up to `SESSION_END_WAIT_S`) until what it queued is
written, so that a library reading the ledger after `aclose` finds every row; the end of the
command, or the interpreter's exit for a library's sessions (however they ended: closed, not
closed, their close cancelled), closes what is still open and gives the writer
`CLOSE_WAIT_S` to write what is queued."""

from __future__ import annotations

import asyncio
import atexit
import sys
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from tether.cli.observing import event_context
from tether.cli.terminal_text import terminal_safe
from tether.core.session import Session
from tether.models.catalogue import MODELS, ModelInfo, web_search_usd
from tether.protocol import (
    ContextCompacted,
    Event,
    Message,
    MessageCompleted,
    ResponseStarted,
    SubagentMessage,
    Usage,
)
from tether.teams.membership import CLAIM_TEAM_ENV

if TYPE_CHECKING:
    from tether.ledger import LedgerRecorder, LedgerWriter, Rates
    from tether.teams.board import TaskBoard  # only a team's session has one

_UNTOLD = "untold"
"""No claim taken or finished yet: the task is the environment's (a worker's)."""
LEDGER_OFF_ENV = "TETHER_NO_LEDGER"
"""Set (to anything but empty) to record nothing in the ledger."""
CLOSE_WAIT_S = 10.0
"""How long the end of the command waits for the ledger's queued writes (only ever waited
for while another process holds its lock)."""

SESSION_END_WAIT_S = 5.0
"""How long a session's end waits for its rows to be written (only ever waited for while
another process holds the ledger's lock); what is left is written at exit."""
GOES_ON = ("clear", "resume")
"""The end reasons of a session the process replaces with another (`/clear`, `/resume`):
its end waits for no write (the process's writer goes on; its exit waits), so a locked
ledger never holds up the next session."""

_WRITERS: dict[Path, LedgerWriter] = {}
"""The process's ledger writers, by file (one, unless tests change `TETHER_HOME`)."""


def _writer(home: Path) -> LedgerWriter:
    from tether.ledger import LedgerWriter, ledger_path

    path = ledger_path(home)
    writer = _WRITERS.get(path)
    if writer is None:
        if not _WRITERS:
            atexit.register(close_process_ledger)
        writer = _WRITERS[path] = LedgerWriter(path, warn=_warn)
    return writer


def flush_process_ledger(path: Path, timeout: float) -> None:
    """Wait (up to `timeout`) until what this process queued for the ledger at `path` is
    written: before reading it back (`/cost`)."""
    writer = _WRITERS.get(path)
    if writer is not None:
        writer.flush(timeout)


def close_process_ledger() -> None:
    """At the end of a command: what is queued is written (within `CLOSE_WAIT_S`), and
    what could not be is said (also done at exit, for a library's sessions)."""
    for waiting in list(_OPEN):  # sessions never closed, or whose close was cut short
        waiting.close()
    writers = list(_WRITERS.values())
    _WRITERS.clear()
    for writer in writers:
        writer.close(CLOSE_WAIT_S)


def attach_ledger(
    session: Session,
    *,
    home: Path,
    env: Mapping[str, str],
    info: ModelInfo,
    project: Path | None = None,
    board: TaskBoard | None = None,
) -> None:
    """Record `session` in the ledger under `home`, as work for `project` (the project's
    directory: a task worktree's project); a ledger that cannot be opened is said on stderr
    and the session runs unrecorded. With `board`, each cost under its team and the task the
    agent works on then (a teammate's claim, taken and finished as it goes)."""
    if env.get(LEDGER_OFF_ENV):
        return
    waiting = _Opening(session, home, env, info, session.sent_messages)
    waiting.project = str(project) if project is not None else None
    waiting.team = board.team if board is not None else env.get(CLAIM_TEAM_ENV)
    session.observers.append(waiting.observe)
    session.agent.aside_watchers.append(waiting.aside)
    if board is not None:
        board.on_task.append(waiting.working_on)

    _OPEN.add(waiting)
    # A session dropped without `aclose` (a library's): its end queued when it is collected.
    weakref.finalize(session, waiting.close)

    async def close() -> None:
        recorder = waiting.close()  # queued: the process's writer writes it
        if recorder is not None and session.end_reason not in GOES_ON:
            await asyncio.to_thread(recorder.writer.flush, SESSION_END_WAIT_S)

    session.on_close.append(close)


def _warn(message: str) -> None:
    print(f"tether: {terminal_safe(message)}", file=sys.stderr)


class _Opening:
    """The session's observer: events kept until the first response begins, then the
    ledger opened and everything recorded from there on."""

    def __init__(
        self,
        session: Session,
        home: Path,
        env: Mapping[str, str],
        info: ModelInfo,
        resumed: tuple[Message, ...],
    ) -> None:
        # Weakly: a session dropped unclosed is collected, and its end then closes this
        # (`attach_ledger`'s finalizer); a process-wide set of these holds no session.
        self._session_ref = weakref.ref(session)
        self._home, self._env, self._info = home, env, info
        self._resumed = resumed
        self._kept: list[Event | Usage] = []
        self._task: str | None = _UNTOLD
        self.recorder: LedgerRecorder | None = None
        self.team: str | None = None
        self.project: str | None = None

    @property
    def _session(self) -> Session:
        """The session: alive whenever it tells this anything."""
        session = self._session_ref()
        assert session is not None, "a collected session told its ledger an event"
        return session

    def observe(self, event: Event) -> None:
        if self.recorder is not None:
            if isinstance(event, ContextCompacted):
                self.recorder.compacted(self._session.sent_messages)
            else:
                self.recorder.observe(event)
            return
        self._kept.append(event)
        if isinstance(event, ResponseStarted | MessageCompleted | SubagentMessage):
            self._open()

    def aside(self, usage: Usage) -> None:
        """A model call outside the conversation, on the session's model."""
        if self.recorder is not None:
            self.recorder.aside(self._session.agent.model_id, usage)
        else:
            self._kept.append(usage)
            self._open()

    def _open(self) -> None:
        from tether.ledger import LedgerRecorder

        kept, self._kept = self._kept, []
        # Whose the costs are, as the event log says it: a worker's owner and its task too.
        whose = event_context(self._session.session_id, self._env)
        recorder = LedgerRecorder(
            _writer(self._home),
            session_id=self._session.session_id,
            rates_for=self._rates_for,
            task_id=whose.task_id if self._task is _UNTOLD else self._task,
            agent_id=whose.agent_id,
            team=self.team,
            project=self.project,
        )
        workspace = str(self._session.agent.tool_context.workspace)
        recorder.started(self._info.id, workspace, self._resumed)
        self.recorder = recorder
        for event in kept:
            if isinstance(event, Usage):
                recorder.aside(self._session.agent.model_id, event)
            else:
                recorder.observe(event)

    def close(self) -> LedgerRecorder | None:
        """The session ended: its last changes queued (once); its recorder, if it had one."""
        if self not in _OPEN:
            return None
        _OPEN.discard(self)
        if self.recorder is not None:
            self.recorder.close()
        return self.recorder

    def working_on(self, task_id: str | None) -> None:
        """The agent works on `task_id` now (a claim taken or finished): later costs are its."""
        self._task = task_id
        if self.recorder is not None:
            self.recorder.task_id = task_id

    def _rates_for(self, model_id: str) -> Rates:
        from tether.ledger import Rates

        info = MODELS.get(model_id) or (self._info if model_id == self._info.id else None)
        if info is None:
            return Rates()
        return Rates(
            info.input_per_mtok,
            info.output_per_mtok,
            info.cache_write_per_mtok,
            info.cache_read_per_mtok,
            web_search_usd(info),
        )


_OPEN: set[_Opening] = set()
"""The sessions recorded and not closed yet: closed at the end of the command or at exit."""
