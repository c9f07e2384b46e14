"""What a store raises when it cannot be used, and the default claim lease: apart from the
task records' models (pydantic), so that a command that only posts a message (`tether team
send`) imports none of them. `task_records` names them too, as it always has."""

from __future__ import annotations

from pathlib import Path

DEFAULT_LEASE_S = 60.0
"""How long a claim holds without a heartbeat before its task goes back to `pending`."""


class StoreUnavailable(Exception):
    """The store cannot be used at all (Redis unreachable, a file that is not a task store):
    the message names where and why. Nothing falls back to another store. The message ends
    without a full stop (a driver's own ends with one), as it is often said with more after it
    ("...: trying again")."""

    def __init__(self, message: str = "", *more: object) -> None:
        super().__init__(message.rstrip().rstrip("."), *more)


class StoreDamaged(StoreUnavailable):
    """The store answers, but what it holds is damaged (a SQLite file that is malformed or
    not a database): waiting will not mend it, so nothing retries it. The message names the
    file and what to do."""


class StoreAbsent(StoreUnavailable):
    """A command that only reads (`tether tasks list`, `board`, `team status`) found no
    SQLite store where it looked: reading never makes one, so a look at a project where no
    task or team was ever made leaves no file behind. `where`: the file looked for; `named`:
    whether a URL named it (a mistyped `--store`?) rather than the project's default place."""

    def __init__(self, message: str, *, where: Path, team: str, named: bool) -> None:
        super().__init__(message)
        self.where, self.team, self.named = where, team, named


class StoreLost(StoreUnavailable):
    """The board this client opened is gone: its identity key is missing or another's (a
    Redis server restarted without its data, or flushed). Its tasks went with it; nothing
    retries it, and nothing done on it since may be reported as done."""
