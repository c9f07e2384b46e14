"""A session's claims on its team's board across its runs: noted in its session file as they
change, and taken back when it starts again (a teammate restarted after a crash, a session
resumed), so that what its agent then does (its model calls' spend, its events) is filed under
the task it works on, and an agent whose claim went to another meanwhile is told so."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from tether.protocol import Event, Notice

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
    from tether.teams.board import OWNER_ENV

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
