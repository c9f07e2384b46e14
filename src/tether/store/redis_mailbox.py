"""Mailboxes and the roster for many machines, in Redis.

A member's mailbox is a stream, `tether:{TEAM}:mailbox:MEMBER`, with one consumer group,
`readers`, made with the stream (`XGROUP CREATE ... 0 MKSTREAM`: from the first entry, so
messages sent before any consumer are kept). `send` is `XADD`; `receive` takes back entries
another consumer held past `reclaim_after_s` (`XAUTOCLAIM`, their delivery counts from
`XPENDING`), then new ones (`XREADGROUP ... BLOCK`: the server wakes it, nothing polls);
`ack` is `XACK` and `XDEL` in one transaction, so a stream holds exactly the messages not yet
handled and `unread` is `XLEN`.

A server that comes back empty (restarted without its data) is noticed, not hidden: each store
remembers the team's `epoch` key (a random value, set once) and reads it with every `receive`.
Gone or changed: the groups are made again and `receive` raises `MailboxesLost` once, saying
what was lost; messages sent since are kept and delivered.

The roster (the team's record and members) is `redis_roster`'s half of the store.
"""

from __future__ import annotations

import math
import re
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from tether.store.legacy_marks import redis_old_mark
from tether.store.mailbox import (
    DEFAULT_RECLAIM_AFTER_S,
    Delivery,
    MailboxError,
    MailboxesLost,
    Member,
    Message,
)
from tether.store.mailbox_post import GROUP, posted_key, redis_client, send_once
from tether.store.mailbox_records import (
    changed_member,
    dumps,
    read_stored,
    stored,
)
from tether.store.redis_connect import failures, probe
from tether.store.redis_roster import PUT_MEMBER, RedisRoster
from tether.store.store_url import cannot_use, redacted
from tether.store.task_records import StoreUnavailable

if TYPE_CHECKING:
    from redis import Redis

T = TypeVar("T")

BLOCK_CHUNK_S = 10.0
"""The longest one `XREADGROUP ... BLOCK` waits: below the socket's timeout, and a waiting
`receive` looks again for entries whose hold ran out at least this often."""
RECLAIM_LOOK = 100
"""How many held entries (oldest first) a waiting `receive` looks at for the next to come due."""
_ENTRY_ID = re.compile(r"\d+-\d+")


class RedisMailboxStore(RedisRoster):
    """A team's mailboxes and roster on a Redis server: both a `MailboxStore` and a
    `RosterStore`. Unreachable at start or later: `StoreUnavailable` naming the URL."""

    def __init__(self, url: str, team: str) -> None:
        import redis

        self.team, self.url = team, redacted(url)
        self._errors: tuple[type[Exception], ...] = failures()
        self._response_error = redis.ResponseError
        self._watch_error = redis.WatchError
        self._prefix = f"tether:{{{team}}}:"
        self._groups: set[str] = set()
        probe(url, "mailbox")
        try:
            self._r: Redis = redis_client(url, socket_timeout_s=BLOCK_CHUNK_S + 20)
            self._epoch = self._adopt_epoch()
        except (*self._errors, self._response_error, ValueError) as e:
            raise StoreUnavailable(cannot_use("mailbox", url, e)) from None
        self._put_member = self._r.register_script(PUT_MEMBER)

    def _adopt_epoch(self) -> str:
        self._r.set(self.key("epoch"), uuid.uuid4().hex, nx=True)
        return str(self._r.get(self.key("epoch")))

    # -- mailboxes

    def send(self, message: Message) -> Message:
        data = stored(message)
        self._call(lambda: self._send_once(message, data))
        return message

    def posted(self, sender: str, message_id: str) -> bool:
        key = posted_key(self._prefix, sender, message_id)

        def read() -> bool:
            if self._r.exists(key):
                return True
            mailboxes = [str(name) for name in self._r.smembers(self.key("mailboxes"))]  # pyright: ignore[reportUnknownVariableType, reportGeneralTypeIssues]
            return redis_old_mark(self._r, self._prefix, sender, message_id, mailboxes)

        return self._call(read)

    def send_as(self, message: Message, sender_changes: Mapping[str, Any]) -> Message:
        data = stored(message)

        def read(pipe: Any) -> Callable[[Any], None]:
            raw = pipe.hget(self.key("members"), message.sender)
            member = (
                None
                if raw is None
                else changed_member(Member.model_validate_json(str(raw)), sender_changes)
            )

            def queue(pipe: Any) -> None:
                if member is not None:
                    pipe.hset(self.key("members"), message.sender, dumps(member))
                    pipe.publish(self.key("roster"), message.sender)

            return queue

        self._call(lambda: self._send_once(message, data, read))
        return message

    def _send_once(
        self,
        message: Message,
        data: str,
        read: Callable[[Any], Callable[[Any], None]] | None = None,
    ) -> None:
        """Add the message to its recipient's mailbox (its group made with the stream), with
        what `read` gives, unless its sender posted its id already (`send_once`)."""
        watched = (self.key("members"),) if read is not None else ()
        send_once(
            self._r,
            self._prefix,
            message.sender,
            message.id,
            message.recipient,
            data,
            watched=watched,
            read=read,
        )

    def _make_group(self, client: Any, member: str) -> None:
        """Queue `XGROUP CREATE ... MKSTREAM` (its BUSYGROUP reply, when the group is there,
        is expected and left unraised by the caller)."""
        client.xgroup_create(self._mailbox(member), GROUP, id="0", mkstream=True)

    def _ensure_group(self, member: str) -> None:
        if member in self._groups:
            return
        with self._r.pipeline(transaction=True) as pipe:
            pipe.sadd(self.key("mailboxes"), member)
            self._make_group(pipe, member)
            for result in pipe.execute(raise_on_error=False):
                if isinstance(result, Exception) and "BUSYGROUP" not in str(result):
                    raise result
        self._groups.add(member)

    def receive(
        self,
        member: str,
        consumer: str,
        *,
        max_count: int = 16,
        block_s: float = 0.0,
        reclaim_after_s: float = DEFAULT_RECLAIM_AFTER_S,
    ) -> list[Delivery]:
        if max_count < 1:
            raise MailboxError(f"max_count must be at least 1, not {max_count}")
        deadline = time.monotonic() + block_s
        while True:
            got = self._call(lambda: self._reclaim(member, consumer, max_count, reclaim_after_s))
            remaining = deadline - time.monotonic()
            # Nothing to take back: wait on the server for new ones (in chunks, so entries
            # whose hold runs out meanwhile are looked for again).
            wait_ms = None
            if not got and remaining > 0:
                due = self._call(lambda: self._next_reclaim_s(member, reclaim_after_s))
                wait_ms = max(1, math.ceil(min(remaining, BLOCK_CHUNK_S, due) * 1000))
            count = max_count - len(got)
            if count:
                got += self._call(partial(self._read_new, member, consumer, count, wait_ms))
            if got or deadline - time.monotonic() <= 0:
                return got

    def _reclaim(
        self, member: str, consumer: str, max_count: int, reclaim_after_s: float
    ) -> list[Delivery]:
        """Entries other consumers held past `reclaim_after_s`, now this consumer's."""
        self._ensure_group(member)
        stream, idle_ms = self._mailbox(member), int(reclaim_after_s * 1000)
        with self._r.pipeline(transaction=False) as pipe:
            pipe.get(self.key("epoch"))
            pipe.xautoclaim(stream, GROUP, consumer, idle_ms, "0-0", count=max_count)
            epoch, claimed = pipe.execute(raise_on_error=False)
        if epoch != self._epoch:
            self._recover(member)
        if isinstance(claimed, Exception):
            if "NOGROUP" not in str(claimed):
                raise claimed
            self._groups.discard(member)
            return self._reclaim(member, consumer, max_count, reclaim_after_s)
        cursor, entries = claimed[0], _present(claimed[1])
        # XAUTOCLAIM looks at 10 x COUNT held entries a call: go on through the rest.
        try:
            while cursor != "0-0" and len(entries) < max_count:
                cursor, more, *_ = self._r.xautoclaim(
                    stream, GROUP, consumer, idle_ms, cursor, count=max_count - len(entries)
                )
                entries += _present(more)
            attempts = self._attempts(stream, entries)
        except self._response_error as e:
            self._raise_unless_group_lost(member, e)
            # Deleted with its team while being read: what was claimed is delivered once.
            attempts = [1] * len(entries)
        return self._deliveries(member, entries, attempts)

    def _raise_unless_group_lost(self, member: str, error: Exception) -> None:
        """Every step of a receive may find its mailbox's group gone (the team deleted, or the
        server's data lost, between two steps): that is forgotten, for the next step to make the
        group again and go on; any other error is raised."""
        if not str(error).startswith(("NOGROUP", "UNBLOCKED")):
            raise error
        self._groups.discard(member)

    def _next_reclaim_s(self, member: str, reclaim_after_s: float) -> float:
        """Seconds until the longest-held entry of `member`'s mailbox may be taken back (a
        successor waits that long, not a whole block chunk, for a killed consumer's)."""
        try:
            held = self._r.xpending_range(self._mailbox(member), GROUP, "-", "+", RECLAIM_LOOK)
        except self._response_error as e:
            self._raise_unless_group_lost(member, e)
            return 0.001  # look again at once, making the group
        if not held:
            return BLOCK_CHUNK_S
        longest = max(int(p["time_since_delivered"]) for p in held) / 1000
        return max(0.001, reclaim_after_s - longest)

    def _attempts(self, stream: str, entries: list[tuple[str, Any]]) -> list[int]:
        if not entries:
            return []
        with self._r.pipeline(transaction=False) as pipe:
            for entry_id, _ in entries:
                pipe.xpending_range(stream, GROUP, entry_id, entry_id, 1)
            pending = pipe.execute()
        return [int(p[0]["times_delivered"]) if p else 1 for p in pending]

    def _read_new(
        self, member: str, consumer: str, count: int, block_ms: int | None
    ) -> list[Delivery]:
        stream = self._mailbox(member)
        try:
            reply = self._r.xreadgroup(GROUP, consumer, {stream: ">"}, count=count, block=block_ms)
        except self._response_error as e:
            # UNBLOCKED: the stream was deleted while this read waited on it (its team deleted).
            self._raise_unless_group_lost(member, e)
            return []  # the caller looks again, making the group (and noticing a lost server)
        entries = _stream_entries(reply, stream)
        return self._deliveries(member, entries, [1] * len(entries))

    def _deliveries(
        self, member: str, entries: list[tuple[str, Any]], attempts: list[int]
    ) -> list[Delivery]:
        return [
            Delivery(
                message=read_stored(
                    (fields or {}).get("data"), receipt=entry_id, member=member, fields=fields
                ),
                receipt=entry_id,
                attempt=attempt,
            )
            for (entry_id, fields), attempt in zip(entries, attempts, strict=True)
        ]

    def _recover(self, member: str) -> None:
        """The server lost the team's data: make the groups again, adopt a new epoch, and say
        so once."""
        remade = sorted(self._groups | {member})
        self._groups.clear()
        for name in remade:
            self._ensure_group(name)
        self._epoch = self._adopt_epoch()
        raise MailboxesLost(
            f"mailbox store {self.url}: the server no longer has the data of team {self.team!r} "
            "(restarted without it?): messages to "
            f"{', '.join(map(repr, remade))} not yet received before then are gone; "
            "messages sent since are kept"
        )

    def ack(self, member: str, receipts: Sequence[str]) -> None:
        bad = [r for r in receipts if not _ENTRY_ID.fullmatch(r)]
        if bad:
            raise MailboxError(f"not a receipt of this store: {', '.join(map(repr, bad))}")
        if not receipts:
            return

        def ack_all() -> None:
            stream = self._mailbox(member)
            with self._r.pipeline(transaction=True) as pipe:
                pipe.xack(stream, GROUP, *receipts)
                pipe.xdel(stream, *receipts)
                for result in pipe.execute(raise_on_error=False):
                    # NOGROUP: the server lost the group, and with it what was held: nothing
                    # is left to acknowledge (the next `receive` says what was lost).
                    if isinstance(result, Exception) and "NOGROUP" not in str(result):
                        raise result

        self._call(ack_all)

    def unread(self, member: str) -> int:
        return self._call(lambda: int(self._r.xlen(self._mailbox(member))))  # pyright: ignore[reportArgumentType]

    def close(self) -> None:
        self._r.close()


def _present(entries: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """Claimed entries without those deleted meanwhile (their fields are nil)."""
    return [(i, f) for i, f in entries if f is not None]


def _stream_entries(reply: Any, stream: str) -> list[tuple[str, Any]]:
    """The entries of one stream from an `XREADGROUP` reply (RESP2's list of pairs, or
    RESP3's map)."""
    if not reply:
        return []
    if isinstance(reply, dict):
        found: Any = reply.get(stream) or []  # pyright: ignore[reportUnknownMemberType]
        return [(i, f) for i, f in (found[0] if found and isinstance(found[0], list) else found)]
    return [(i, f) for name, entries in reply for i, f in entries if name == stream]
