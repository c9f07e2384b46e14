"""A session's claims on its team's board across its runs: noted in its session file as they
change, and taken back when it starts again (a teammate restarted after a crash, a session
resumed), so that what its agent then does (its model calls' spend, its events) is filed under
the task it works on, and an agent whose claim went to another meanwhile is told so."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, cast

from tether.protocol import Event, Notice
from tether.slotted import Slotted

if TYPE_CHECKING:
    from tether.core.session import Session
    from tether.teams.board import TaskBoard

CLAIMS_NOTE = "tether-claims"
"""A session file's line naming the board claims its session holds (`claims`: `lent_value`s,
`team`), written each time they change."""


def newest_note(path: Path, kind: str) -> dict[str, Any] | None:
    """The newest bookkeeping line of type `kind` in the session file at `path`, if any."""
    found: dict[str, Any] | None = None
    try:
        with path.open("rb") as lines:
            for line in lines:
                if kind.encode() not in line:
                    continue
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if isinstance(entry, dict) and entry.get("type") == kind:  # pyright: ignore[reportUnknownMemberType]
                    found = cast(dict[str, Any], entry)
    except OSError:
        return None
    return found


def noted_claims(path: Path, team: str) -> list[str]:
    """The claims the session file at `path` says its session held on `team`'s board."""
    note = newest_note(path, CLAIMS_NOTE)
    if note is None or note.get("team") != team:
        return []
    claims = note.get("claims")
    if not isinstance(claims, list):
        return []
    return [c for c in cast(list[object], claims) if isinstance(c, str)]


def attach_board_claims(
    session: Session, board: TaskBoard, env: Mapping[str, str], resumed: Path | None
) -> None:
    """Note `board`'s claims in the session file as they change; and when the session may
    hold claims from an earlier run (resumed from `resumed`, or a teammate: its owner name is
    its member's, the same in each run), take them back before its first model call, the
    agent told what it holds again and what it lost. A worker's task session holds only its
    worker's claim, lent to it: nothing to take back."""
    from tether.teams.membership import OWNER_ENV

    recorder = session.recorder
    if recorder is not None:
        noted: list[list[str]] = [[]]

        def note(_task: str | None) -> None:
            held = board.held_values()
            if held != noted[0]:
                noted[0] = held
                recorder.bookkeeping(CLAIMS_NOTE, team=board.team, claims=held)

        board.on_task.append(note)
    if board.lent or (resumed is None and not env.get(OWNER_ENV)):
        return
    if resumed is not None:
        board.held_before = noted_claims(resumed, board.team)
    session.preparations.append(_taking_back(session, board))


def _taking_back(session: Session, board: TaskBoard) -> Callable[[Callable[[Event], None]], Any]:
    async def take_back(emit: Callable[[Event], None]) -> None:
        from tether.store.task_records import StoreUnavailable, TaskStoreError

        try:
            said = await board.take_back()
        except (StoreUnavailable, TaskStoreError) as e:
            emit(Notice(level="warning", message=f"the claims held before were not checked: {e}"))
            return
        for line in said:
            emit(Notice(level="info" if line.startswith("You hold") else "warning", message=line))
            session.steer(line)

    return take_back


class ResumedBoard(Slotted):
    """The board a resumed session works on, as its file notes it."""

    __slots__ = ("env", "notes", "task")
    env: Final[Mapping[str, str]]
    """The environment the session's board is chosen from: the process's, with the team, the
    store and (a teammate's) the owner name the session file notes where it names none."""
    task: Final[tuple[str, float] | None]
    """A worker's task session: the task it was run for (id, when it was made on its board)."""
    notes: Final[list[str]]

    def __init__(
        self,
        env: Mapping[str, str],
        task: tuple[str, float] | None = None,
        notes: list[str] | None = None,
    ) -> None:
        self.env = env
        self.task = task
        self.notes = [] if notes is None else notes


def resumed_board(path: Path, env: Mapping[str, str]) -> ResumedBoard:
    """The board of the session resumed from `path`: a worker's task session or a teammate's
    was on its team's board through its environment, which `tether -r ID` (or `-c` in a task
    worktree) does not have; its `meta` entry names the board, and the task a worker ran it
    for. The environment's own team or store, when it names one, wins."""
    from tether.cli.resuming import BOARD_META, TASK_META, TEAMMATE_META, session_meta
    from tether.teams.membership import STORE_ENV, TEAM_ENV

    meta = session_meta(path)
    data = meta.get("data") if meta is not None else None
    if not isinstance(data, dict):
        return ResumedBoard(env)
    fields = cast(dict[str, object], data)
    board, task = _fields(fields.get(BOARD_META)), _fields(fields.get(TASK_META))
    mate = fields.get(TEAMMATE_META)
    if not (board or task or mate):
        return ResumedBoard(env)
    from tether.teams.board import lent_claims  # a team's session only
    from tether.teams.membership import CLAIM_ENV, OWNER_ENV

    chosen = dict(env)
    notes: list[str] = []
    if (board or task) and not (env.get(TEAM_ENV) or env.get(STORE_ENV)):
        team, store = board.get("team") or task.get("team"), board.get("store")
        if isinstance(store, str) and ":***@" in store:
            notes.append(
                f"this session worked on the board in {store}, whose password its file does "
                f"not keep: set {STORE_ENV} to that URL to resume it on that board"
            )
        else:
            if isinstance(team, str) and team:
                chosen[TEAM_ENV] = team
            if isinstance(store, str) and store:
                chosen[STORE_ENV] = store
    if isinstance(mate, str) and mate:
        chosen.setdefault(OWNER_ENV, mate)
    claim = task.get("claim")
    lent = lent_claims({CLAIM_ENV: claim}) if isinstance(claim, str) else {}
    ran_for = next(((i, made) for i, (_fence, made) in lent.items()), None)
    return ResumedBoard(chosen, ran_for, notes)


def _fields(value: object) -> dict[str, object]:
    return cast(dict[str, object], value) if isinstance(value, dict) else {}


def attach_task_run(session: Session, board: TaskBoard, task: tuple[str, float]) -> None:
    """A worker's task session resumed: before its first model call, once the board says the
    task is still the one it was run for, what it does (its spend, its events) goes under
    that task. The worker's claim is not taken back: the task may be done, or another's."""
    task_id, made = task

    async def file(emit: Callable[[Event], None]) -> None:
        from tether.store.task_records import StoreUnavailable, TaskStoreError

        try:
            found = await board.call(lambda s: s.get(task_id))
        except StoreUnavailable as e:
            emit(Notice(level="warning", message=f"task #{task_id} was not checked: {e}"))
            return
        except TaskStoreError:
            found = None
        if found is None or found.created_at != made:
            emit(
                Notice(
                    level="warning",
                    message=f"task #{task_id}, which a worker ran this session for, is no longer "
                    f"on team {board.team}'s board: its spend goes under no task",
                )
            )
            return
        board.file_under(task_id)
        emit(
            Notice(
                level="info",
                message=f"this session ran task #{task_id} ({found.subject}, {found.status} now) "
                f"for a worker on team {board.team}'s board: its spend goes under that task",
            )
        )

    session.preparations.append(file)
