"""A plain message posted to a team member's mailbox with what that takes alone: the store's
rows or keys and JSON, none of the roster's and messages' models (pydantic, some 50 ms to
import), for `tether team send`'s plain message. The stores (`sqlite_mailbox`,
`redis_mailbox`) keep their mailboxes through the same schema and keys (`SCHEMA`,
`queue_send`), so what is posted here is what their `send` stores: read back as a `Message`.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from tether.store.legacy_marks import redis_old_mark, sqlite_old_mark
from tether.store.store_errors import StoreUnavailable
from tether.store.store_url import absent_store, cannot_use, redacted, store_location

if TYPE_CHECKING:
    from redis import Redis

    from tether.store.sqlite_file import SqliteFile

T = TypeVar("T")

MAILBOX_SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS mailbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, team TEXT NOT NULL, member TEXT NOT NULL,
    data TEXT, consumer TEXT, held_since REAL, attempts INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS mailbox_order ON mailbox (team, member, seq);
CREATE TABLE IF NOT EXISTS teams (team TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS members (
    team TEXT NOT NULL, name TEXT NOT NULL, joined INTEGER NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (team, name));
CREATE TABLE IF NOT EXISTS posted_by (
    team TEXT NOT NULL, sender TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (team, id, sender));
"""
"""The SQLite mailboxes' and roster's tables (`sqlite_mailbox`). A posted id is its sender's
(`posted_by`): another sender's message under the same id is its own, not a post again. (An
older file's `posted` table, keyed by the id alone, is read too: `legacy_marks`.)"""
GROUP = "readers"
"""A Redis mailbox's consumer group (`redis_mailbox`)."""
POSTED_KEPT_S = 30 * 24 * 3600
"""How long a Redis store remembers a posted message's sender and id
(`posted:<sender>:<id>`), so that a post
tried again under it (a teammate's SendMessage run again after its process was killed, a
notice written again) is skipped: longer than any teammate stays stopped with a call open."""


class Poster(Protocol):
    team: str
    url: str

    def team_exists(self) -> bool: ...

    def member_names(self) -> list[str]:
        """The team's members, in the order they joined."""
        ...

    def post(
        self, sender: str, recipient: str, text: str, *, message_id: str | None = None
    ) -> tuple[str, bool]:
        """Store a plain message (`kind` "message") under `message_id` (None: a new one);
        its id, once durable, and whether this post stored it (False: `sender` had posted
        its id already)."""
        ...

    def close(self) -> None: ...


def message_data(
    sender: str, recipient: str, text: str, message_id: str | None = None
) -> tuple[str, str]:
    """A plain message's id (`message_id`, else a new one) and the JSON a store keeps for it
    (`Message`'s fields)."""
    message_id = message_id or uuid.uuid4().hex
    fields: dict[str, Any] = {
        "id": message_id,
        "sender": sender,
        "recipient": recipient,
        "kind": "message",
        "text": text,
        "reply_to": None,
        "data": {},
        "sent_at": time.time(),
    }
    return message_id, json.dumps(fields, ensure_ascii=False)


def open_poster(url: str | None, *, project: Path, team: str) -> Poster:
    """The mailboxes of a team that must exist already (as `open_team_store(read_only=True)`:
    a SQLite file is never made, `StoreAbsent`), `StoreUnavailable` naming a store that
    cannot be used."""
    where = store_location(url, project=project, team=team)
    if isinstance(where, str):
        return RedisPoster(where, team)
    if not where.exists():
        raise absent_store(where, url=url, team=team, made_by="`tether team up`")
    return SqlitePoster(where, team)


def mailbox_file(path: Path) -> SqliteFile:
    """The SQLite file of the mailboxes and roster (made with its folder when missing)."""
    from tether.store.sqlite_file import SqliteFile

    return SqliteFile(
        path,
        what="mailbox store",
        schema=SCHEMA,
        schema_key="mailbox_schema",
        version=MAILBOX_SCHEMA_VERSION,
    )


class SqlitePoster:
    def __init__(self, path: Path, team: str) -> None:
        self.team, self.url = team, str(path)
        self._file = mailbox_file(path)

    def team_exists(self) -> bool:
        try:
            with self._file.reading() as db:
                row = db.execute("SELECT 1 FROM teams WHERE team = ?", (self.team,)).fetchone()
        except sqlite3.DatabaseError as e:
            raise self._file.unavailable(e) from None
        return row is not None

    def member_names(self) -> list[str]:
        try:
            with self._file.reading() as db:
                rows = db.execute(
                    "SELECT name FROM members WHERE team = ? ORDER BY joined", (self.team,)
                ).fetchall()
        except sqlite3.DatabaseError as e:
            raise self._file.unavailable(e) from None
        return [str(name) for (name,) in rows]

    def post(
        self, sender: str, recipient: str, text: str, *, message_id: str | None = None
    ) -> tuple[str, bool]:
        message_id, data = message_data(sender, recipient, text, message_id)
        try:
            with self._file.transaction() as db:
                stored = insert_once(db, self.team, sender, message_id, recipient, data)
        except sqlite3.DatabaseError as e:
            raise self._file.unavailable(e) from None
        return message_id, stored

    def close(self) -> None:
        self._file.close()


def insert_once(
    db: sqlite3.Connection, team: str, sender: str, message_id: str, recipient: str, data: str
) -> bool:
    """Put a message into its recipient's mailbox in the caller's transaction, unless its
    sender posted a message of its id already (then nothing, False): its id and the message
    go in together, so a post run again after a crash is never lost nor stored twice (an
    older file's mark of the id counts too, `legacy_marks`)."""
    if sqlite_old_mark(db, team, sender, message_id):
        return False
    claimed = db.execute(
        "INSERT OR IGNORE INTO posted_by (team, sender, id) VALUES (?, ?, ?)",
        (team, sender, message_id),
    )
    if claimed.rowcount == 0:
        return False
    db.execute("INSERT INTO mailbox (team, member, data) VALUES (?, ?, ?)", (team, recipient, data))
    return True


def redis_client(url: str, *, socket_timeout_s: float) -> Redis:
    """A client of the team's Redis as the mailbox store makes it (TLS as the URL says; an
    entry that is not UTF-8 decoded so that it is said invalid, not a crash)."""
    import redis

    from tether.store.redis_connect import CONNECT_TIMEOUT_S
    from tether.store.redis_tls import tls_options

    return redis.Redis.from_url(
        url,
        socket_connect_timeout=CONNECT_TIMEOUT_S,
        socket_timeout=socket_timeout_s,
        decode_responses=True,
        encoding_errors="surrogateescape",
        **tls_options(url),
    )


def posted_key(prefix: str, sender: str, message_id: str) -> str:
    """The mark of an id its sender posted (a member name holds no colon: the key reads one
    way)."""
    return f"{prefix}posted:{sender}:{message_id}"


def send_once(
    client: Redis,
    prefix: str,
    sender: str,
    message_id: str,
    recipient: str,
    data: str,
    *,
    watched: tuple[str, ...] = (),
    read: Callable[[Any], Callable[[Any], None]] | None = None,
) -> bool:
    """Add a message to its recipient's mailbox unless its sender posted a message of its id
    already (then nothing, False). The mark (`posted_key`) and the message go in one
    MULTI/EXEC, watched from the mark's check on: a crash between them cannot lose the
    message nor store it twice, and of two posts of one id at once one is stored. `read`
    runs after the check on the watched `watched` keys and gives what to queue with it (a
    sender's roster record). An older store's mark of the id (`posted:<id>`) counts too
    (`legacy_marks`)."""
    import redis

    posted = posted_key(prefix, sender, message_id)
    with client.pipeline(transaction=True) as pipe:
        while True:
            try:
                pipe.watch(posted, *watched)
                if pipe.exists(posted) or redis_old_mark(
                    pipe, prefix, sender, message_id, [recipient]
                ):
                    pipe.unwatch()
                    return False
                queue_more = read(pipe) if read is not None else None
                pipe.multi()
                if queue_more is not None:
                    queue_more(pipe)
                pipe.set(posted, "1", ex=POSTED_KEPT_S)
                queue_send(pipe, prefix, recipient, data)
                return True
            except redis.WatchError:
                continue


def queue_send(pipe: Any, prefix: str, recipient: str, data: str) -> None:
    """Queue a message into its recipient's mailbox (its group made with the stream), and
    run the transaction."""
    mailbox = f"{prefix}mailbox:{recipient}"
    pipe.sadd(prefix + "mailboxes", recipient)
    pipe.xgroup_create(mailbox, GROUP, id="0", mkstream=True)
    pipe.xadd(mailbox, {"data": data})
    for result in pipe.execute(raise_on_error=False):
        if isinstance(result, Exception) and "BUSYGROUP" not in str(result):
            raise result


class RedisPoster:
    def __init__(self, url: str, team: str) -> None:
        import redis

        from tether.store.redis_connect import failures, probe

        self.team, self.url = team, redacted(url)
        self._prefix = f"tether:{{{team}}}:"
        self._errors = (*failures(), redis.ResponseError)
        probe(url, "mailbox")
        try:
            self._r = redis_client(url, socket_timeout_s=30.0)
        except (*self._errors, ValueError) as e:
            raise StoreUnavailable(cannot_use("mailbox", url, e)) from None

    def _call(self, step: Callable[[], T]) -> T:
        try:
            return step()
        except self._errors as e:
            raise StoreUnavailable(f"mailbox store {self.url}: {e}") from None

    def team_exists(self) -> bool:
        return bool(self._call(lambda: self._r.exists(self._prefix + "team")))

    def member_names(self) -> list[str]:
        def read() -> list[str]:
            with self._r.pipeline(transaction=True) as pipe:
                pipe.zrange(self._prefix + "joined", 0, -1)
                pipe.hkeys(self._prefix + "members")
                names, recorded = pipe.execute()
            return [str(name) for name in names if name in recorded]

        return self._call(read)

    def post(
        self, sender: str, recipient: str, text: str, *, message_id: str | None = None
    ) -> tuple[str, bool]:
        message_id, data = message_data(sender, recipient, text, message_id)
        stored = self._call(
            lambda: send_once(self._r, self._prefix, sender, message_id, recipient, data)
        )
        return message_id, stored

    def close(self) -> None:
        self._r.close()
