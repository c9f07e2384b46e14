"""The posted marks an older store wrote, keyed by the id alone: SQLite's `posted` table
(`posted (team, id)`) and Redis's `posted:<id>` keys. A teammate killed inside its
SendMessage under the older code, after its message was stored, runs the call again under
this one: the older mark must still say the message is stored, or it is stored twice. The
mark holds no sender, so it is read as its sender's only through the message it was written
with: while that message waits in its recipient's mailbox, its own sender decides (another
sender's message under the id is its own); once read and gone, the mark counts, as it did
for the code that wrote it (a second copy of a message is worse than the rare collision the
sender-keyed marks exist for)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any

OLD_TABLE = "posted"
"""The older SQLite table of posted ids, keyed by team and id."""


def held_by_sender(datas: Iterable[Any], sender: str, message_id: str) -> bool:
    """Whether the older mark of `message_id` is `sender`'s, given the stored messages that
    may be the one it was written with: the one of that id decides, and none (it was read
    and acknowledged) leaves the mark counting."""
    for data in datas:
        try:
            fields = json.loads(data)
        except (TypeError, ValueError):
            continue  # an entry a foreign writer left: not the marked message
        if isinstance(fields, dict) and fields.get("id") == message_id:  # pyright: ignore[reportUnknownMemberType]
            return fields.get("sender") == sender  # pyright: ignore[reportUnknownMemberType]
    return True


def sqlite_old_mark(db: sqlite3.Connection, team: str, sender: str, message_id: str) -> bool:
    """Whether an older file's `posted` table marks `sender`'s message `message_id` stored."""
    has_table = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (OLD_TABLE,)
    ).fetchone()
    if has_table is None:
        return False
    marked = db.execute(
        f"SELECT 1 FROM {OLD_TABLE} WHERE team = ? AND id = ?", (team, message_id)
    ).fetchone()
    if marked is None:
        return False
    rows = db.execute(
        "SELECT data FROM mailbox WHERE team = ? AND data LIKE ?",
        (team, f"%{message_id}%"),
    ).fetchall()
    return held_by_sender((data for (data,) in rows), sender, message_id)


def sqlite_drop_old_marks(db: sqlite3.Connection, team: str) -> None:
    """Delete a team's older marks with the team (a team made again holds none)."""
    has_table = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (OLD_TABLE,)
    ).fetchone()
    if has_table is not None:
        db.execute(f"DELETE FROM {OLD_TABLE} WHERE team = ?", (team,))


def old_key(prefix: str, message_id: str) -> str:
    """The older Redis mark of a posted id (`posted:<id>`)."""
    return f"{prefix}posted:{message_id}"


def redis_old_mark(
    client: Any, prefix: str, sender: str, message_id: str, mailboxes: Iterable[str]
) -> bool:
    """Whether an older Redis mark `posted:<id>` marks `sender`'s message stored, its message
    looked for in `mailboxes` (the recipient's, or every one when it is not known). Only an id
    marked the older way is looked for: after an upgrade, a few."""
    if not client.exists(old_key(prefix, message_id)):
        return False
    datas: list[Any] = []
    for mailbox in mailboxes:
        for _, fields in client.xrange(f"{prefix}mailbox:{mailbox}"):
            datas.append(fields.get("data"))
    return held_by_sender(datas, sender, message_id)
