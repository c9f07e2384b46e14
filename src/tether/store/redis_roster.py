"""The roster half of the Redis team store (`redis_mailbox.RedisMailboxStore`): the team's
record and its members, on the same server and keys as its mailboxes.

Roster keys: `team` (the record's JSON), `members` (a hash: name to JSON), `joined` (names,
scored in the order they joined), `joined_seq`; `mailboxes` (the members with a stream, for
`delete_team`), and the `posted:<sender>:<id>` marks, dropped with the team.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from tether.store.mailbox import Member, MemberBusy, TeamRecord
from tether.store.mailbox_records import (
    changed_member,
    check_member,
    check_team_record,
    dumps,
    team_exists,
    unknown_member,
)
from tether.store.task_records import StoreUnavailable

if TYPE_CHECKING:
    from redis import Redis

T = TypeVar("T")

PUT_MEMBER = """
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), ARGV[1])
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
"""
"""A member's record put, and its place in the order of joining kept (given once)."""


class RedisRoster:
    """The roster's calls, and the keys and error handling the mailboxes share; the store
    (`RedisMailboxStore`) sets what is declared here when it connects."""

    team: str
    url: str
    _prefix: str
    _r: Redis
    _errors: tuple[type[Exception], ...]
    _response_error: type[Exception]
    _watch_error: type[Exception]
    _groups: set[str]
    _put_member: Any
    """`PUT_MEMBER`, registered with the server."""

    def key(self, name: str) -> str:
        return self._prefix + name

    def _mailbox(self, member: str) -> str:
        return self.key(f"mailbox:{member}")

    def _call(self, step: Callable[[], T]) -> T:
        try:
            return step()
        except (*self._errors, self._response_error) as e:
            raise StoreUnavailable(f"mailbox store {self.url}: {e}") from None

    def create_team(self, record: TeamRecord) -> TeamRecord:
        check_team_record(self.team, record)
        created = self._call(lambda: self._r.set(self.key("team"), dumps(record), nx=True))
        if not created:
            existing = self.team_record()
            raise team_exists(self.team, existing or record)
        return record

    def delete_team(self) -> None:
        def delete() -> None:
            with self._r.pipeline(transaction=True) as pipe:
                while True:
                    try:
                        pipe.watch(self.key("mailboxes"))
                        names: set[str] = pipe.smembers(self.key("mailboxes"))  # pyright: ignore[reportAssignmentType]
                        # The ids its messages were posted under go too: a team made again
                        # under the name starts with none held.
                        posted = list(self._r.scan_iter(match=self.key("posted:*"), count=1000))
                        pipe.multi()
                        pipe.delete(
                            *[self.key(k) for k in ("team", "members", "joined", "joined_seq")],
                            self.key("mailboxes"),
                            *[self._mailbox(n) for n in names],
                            *posted,
                        )
                        pipe.execute()
                        return
                    except self._watch_error:
                        continue

        self._call(delete)
        self._groups.clear()

    def team_record(self) -> TeamRecord | None:
        raw = self._call(lambda: self._r.get(self.key("team")))
        return None if raw is None else TeamRecord.model_validate_json(str(raw))

    def put_member(self, member: Member) -> Member:
        check_member(member)
        keys = [self.key("members"), self.key("joined"), self.key("joined_seq")]

        def put() -> None:
            self._put_member(keys=keys, args=[member.name, dumps(member)])
            self._r.publish(self.key("roster"), member.name)

        self._call(put)
        return member

    def update_member(
        self,
        name: str,
        changes: Mapping[str, Any],
        *,
        unless: Callable[[Member], str | None] | None = None,
    ) -> Member:
        def update() -> Member:
            with self._r.pipeline(transaction=True) as pipe:
                while True:
                    try:
                        pipe.watch(self.key("members"))
                        raw = pipe.hget(self.key("members"), name)
                        if raw is None:
                            names = pipe.zrange(self.key("joined"), 0, -1)
                            raise unknown_member(self.team, name, names)  # pyright: ignore[reportArgumentType]
                        current = Member.model_validate_json(str(raw))
                        busy = unless(current) if unless is not None else None
                        if busy is not None:
                            raise MemberBusy(busy)
                        member = changed_member(current, changes)
                        pipe.multi()
                        pipe.hset(self.key("members"), name, dumps(member))
                        pipe.publish(self.key("roster"), name)
                        pipe.execute()
                        return member
                    except self._watch_error:
                        continue

        return self._call(update)

    def members(self) -> list[Member]:
        def read() -> list[Member]:
            with self._r.pipeline(transaction=True) as pipe:
                pipe.zrange(self.key("joined"), 0, -1)
                pipe.hgetall(self.key("members"))
                names, records = pipe.execute()
            return [Member.model_validate_json(records[n]) for n in names if n in records]

        return self._call(read)

    def wait_members(
        self, until: Callable[[list[Member]], bool], timeout_s: float, *, recheck_s: float
    ) -> bool:
        def wait() -> bool:
            deadline = time.monotonic() + timeout_s
            changes = self._r.pubsub(ignore_subscribe_messages=True)
            try:
                changes.subscribe(self.key("roster"))  # before the first read: none missed
                while not until(self.members()):
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return False
                    changes.get_message(timeout=min(left, recheck_s))
                    while changes.get_message(timeout=0.0) is not None:
                        pass  # every change told so far: one read sees them all
                return True
            finally:
                changes.close()

        return self._call(wait)
