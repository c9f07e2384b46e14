"""The task store for many machines: a team's board in Redis.

Claiming, the hot path, is one Lua script: it walks the ready set in claim order (priority,
then age) and takes the first task the owner may have, atomically on the server. Every other
change runs `tether.store.task_graph`'s rules in an optimistic transaction: WATCH each key as
it is read, MULTI/EXEC the writes, and run again if another client changed one meanwhile.
Times are the server's (`TIME`), so leases mean the same on every machine.

Keys, under `tether:{TEAM}:`: `task:ID` (a hash: the task's JSON in `data`, and the fields a
claim changes beside it), `ids` (every id), `ready` (claimable ids, scored in claim order),
`leases` (held ids, scored by expiry), `deps:ID` (ids of the tasks that depend on ID),
`seq` and `fence` (counters), `epoch` (the team's data identity: a random value set once,
shared with the mailboxes), `outbox` (a stream: the events of changes not delivered yet, each
XADDed in its change's MULTI/EXEC or claim script, and taken out, once delivered, in the
next one; `task_outbox`). How a task is kept and one transaction made: `redis_board_tx`.

A store remembers the epoch it opened and checks it with every step (watched in a
transaction, compared in the claim script): a server that restarted without its data, or was
flushed, has lost it or holds another, and every step then raises `StoreLost` instead of
reading the empty board as "no tasks" or "task removed".
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from tether.protocol.team_events import TaskChanged
from tether.store import task_graph as graph
from tether.store.graph_store import GraphStore
from tether.store.redis_board_tx import DELIVERED_LUA, RedisTx, task_from_hash
from tether.store.redis_connect import CONNECT_TIMEOUT_S, failures, probe
from tether.store.redis_tls import tls_options
from tether.store.store_url import cannot_use, redacted
from tether.store.task_graph import BoardTx
from tether.store.task_outbox import OutboxEvent
from tether.store.task_records import (
    DEFAULT_LEASE_S,
    DEFAULT_MAX_ATTEMPTS,
    Claim,
    StoreLost,
    StoreUnavailable,
    Task,
)

if TYPE_CHECKING:
    from redis import Redis

T = TypeVar("T")

MAX_CONFLICTS = 200
"""Optimistic transactions run again at most this often before the store is said busy."""

_CLAIM_SCRIPT = (
    """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
if redis.call('GET', KEYS[4]) ~= ARGV[4] then return -1 end
local OUTBOX, FIRST = KEYS[5], 9
"""
    + DELIVERED_LUA
    + """
local prefix, owner, lease = ARGV[1], ARGV[2], tonumber(ARGV[3])
local offset = 0
while true do
  local ids = redis.call('ZRANGE', KEYS[1], offset, offset + 99)
  if #ids == 0 then return false end
  for _, id in ipairs(ids) do
    local key = prefix .. id
    local f = redis.call('HMGET', key, 'status', 'owner', 'attempts')
    if f[1] == 'pending' and (not f[2] or f[2] == '' or f[2] == owner) then
      local fence = redis.call('INCR', KEYS[3])
      local expires = string.format('%.6f', now + lease)
      local started = string.format('%.6f', now)
      redis.call('HSET', key, 'status', 'in_progress', 'owner', owner,
        'attempts', tostring(tonumber(f[3]) + 1), 'fence', tostring(fence),
        'lease_expires_at', expires, 'started_at', started, 'updated_at', started)
      redis.call('ZREM', KEYS[1], id)
      redis.call('ZADD', KEYS[2], expires, id)
      local event = false
      if ARGV[5] ~= '' then
        local data = cjson.decode(redis.call('HGET', key, 'data'))
        event = cjson.encode({kind = 'task_changed', event_id = ARGV[6], team = ARGV[7],
          task_id = id, change = 'claimed', by = ARGV[5], subject = data.subject,
          status = 'in_progress', owner = owner, attempts = tonumber(f[3]) + 1,
          cost_usd = data.cost_usd or 0})
        redis.call('XADD', KEYS[5], '*', 'event', event, 'writer', ARGV[8],
          'made_at', started)
      end
      return {id, tostring(fence), expires, redis.call('HGETALL', key), event}
    end
  end
  offset = offset + 100
end
"""
)
"""The claim: the first ready task the owner may have (ARGV 1 to 8: the task keys' prefix,
owner, lease, epoch, and the event's maker, id, team and writer, empty when no event is kept),
the delivered events named after them (ARGV 9...) taken out of the outbox in the same step."""

_LAST_ID_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return '0-0' end
local info = redis.call('XINFO', 'STREAM', KEYS[1])
for i = 1, #info, 2 do
  if info[i] == 'last-generated-id' then return info[i + 1] end
end
return '0-0'
"""
"""The outbox stream's last id ever given (kept when its entries are deleted), `0-0` before
the first: a mark `wait_change` reads from."""


class RedisTaskStore(GraphStore):
    """A team's board on a Redis server; unreachable at start or later: `StoreUnavailable`."""

    def __init__(self, url: str, team: str, *, made: bool = True) -> None:
        """`made=False`: the board exists already (a session lent a worker's claim): one whose
        identity key is gone is `StoreLost`, not made again under a new identity."""
        import redis

        self.team, self.url = team, redacted(url)
        self._errors: tuple[type[Exception], ...] = (*failures(), redis.ResponseError)
        self._watch_error = redis.WatchError
        self._prefix = f"tether:{{{team}}}:"
        probe(url, "task")
        try:
            self._r: Redis = redis.Redis.from_url(
                url,
                socket_connect_timeout=CONNECT_TIMEOUT_S,
                socket_timeout=30,
                decode_responses=True,
                **tls_options(url),
            )
            self._r.ping()
        except (*self._errors, ValueError) as e:
            raise StoreUnavailable(cannot_use("task", url, e)) from None
        self._claim = self._r.register_script(_CLAIM_SCRIPT)
        self._last_id = self._r.register_script(_LAST_ID_SCRIPT)
        self._start_outbox()
        try:
            if made:
                self._r.set(self.key("epoch"), uuid.uuid4().hex, nx=True)
            found = self._r.get(self.key("epoch"))
        except self._errors as e:
            raise StoreUnavailable(f"cannot reach the task store at {self.url}: {e}") from None
        self._epoch = str(found)
        if found is None:
            self._check_epoch(found)

    def _check_epoch(self, found: object) -> None:
        """`StoreLost` unless `found` is the epoch this store opened."""
        if found == self._epoch:
            return
        what = "its epoch key is gone" if found is None else "its epoch key is another board's"
        raise StoreLost(
            f"the board of team {self.team!r} at {self.url} lost its data ({what}: the Redis "
            "server restarted without persistence, or was flushed); the tasks that were on it "
            "are gone, none was completed by this worker since. Add them again with `tether "
            "tasks add`, and keep Redis's data (appendonly yes) for a board that must outlive "
            "a restart"
        )

    def key(self, name: str) -> str:
        return self._prefix + name

    def _transact(self, step: Callable[[BoardTx], T]) -> T:
        for conflicts in range(MAX_CONFLICTS):
            try:
                with self._r.pipeline(transaction=True) as pipe:
                    pipe.watch(self.key("epoch"))
                    self._check_epoch(pipe.get(self.key("epoch")))
                    seconds, micros = self._r.time()
                    tx = RedisTx(self.team, self.key, self._r, pipe, seconds + micros / 1e6)
                    result = step(tx)
                    pipe.multi()
                    tx.flush()
                    pipe.execute()
                    return result
            except self._watch_error:
                time.sleep(random.uniform(0, 0.002 * min(conflicts + 1, 10)))
            except self._errors as e:
                raise StoreUnavailable(f"task store {self.url}: {e}") from None
        raise StoreUnavailable(f"task store {self.url}: too busy ({MAX_CONFLICTS} conflicts)")

    def list(self) -> list[Task]:
        try:
            ids = self._r.zrange(self.key("ids"), 0, -1)
            with self._r.pipeline(transaction=True) as pipe:
                pipe.get(self.key("epoch"))
                for task_id in ids:
                    pipe.hgetall(self.key(f"task:{task_id}"))
                    pipe.smembers(self.key(f"deps:{task_id}"))
                epoch, *replies = pipe.execute()
        except self._errors as e:
            raise StoreUnavailable(f"task store {self.url}: {e}") from None
        self._check_epoch(epoch)
        tasks: list[Task] = []
        for fields, blocks in zip(replies[::2], replies[1::2], strict=True):
            if fields:
                task = task_from_hash(fields)
                task.blocks = sorted(blocks, key=int)
                tasks.append(task)
        return tasks

    def claim_next(
        self,
        owner: str,
        *,
        lease_s: float = DEFAULT_LEASE_S,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        reaped: list[Task] | None = None,
    ) -> Claim | None:
        expired = self.reap_expired(max_attempts=max_attempts)
        if reaped is not None:
            reaped.extend(expired)
        outbox, drop = self._outbox, self._to_drop()
        try:
            keys = [self.key(name) for name in ("ready", "leases", "fence", "epoch", "outbox")]
            args: list[str | float] = [self.key("task:"), owner, lease_s, self._epoch]
            if outbox is None:
                args += ["", "", "", ""]
            else:
                args += [outbox.by, uuid.uuid4().hex, self.team, outbox.writer]
            taken: object = self._claim(keys=keys, args=[*args, *drop])
            if taken == -1:  # the epoch was not this store's: say which way
                self._check_epoch(self._r.get(self.key("epoch")))
        except self._errors as e:
            self._reached = False
            raise StoreUnavailable(f"task store {self.url}: {e}") from None
        self._reached = True
        if taken == -1:  # refused before any write
            return None
        if not isinstance(taken, list):
            self._committed(drop, [])
            return None
        _, fence, expires, flat, *event = cast("list[Any]", taken)
        task = task_from_hash(dict(zip(flat[::2], flat[1::2], strict=True)))
        made = [TaskChanged.model_validate_json(event[0])] if event and event[0] else []
        self._committed(drop, made)  # Lua's false (no event) comes back as None
        return Claim(task=task, owner=owner, fence=int(fence), lease_expires_at=float(expires))

    def reap_expired(self, *, max_attempts: int = DEFAULT_MAX_ATTEMPTS) -> list[Task]:
        try:
            seconds, micros = self._r.time()
            expired = self._r.zrangebyscore(self.key("leases"), "-inf", seconds + micros / 1e6)
        except self._errors as e:
            raise StoreUnavailable(f"task store {self.url}: {e}") from None
        reaped = [self._run(lambda tx, i=i: self._reap(tx, str(i), max_attempts)) for i in expired]
        return [t for t in reaped if t is not None]

    def _reap(self, tx: BoardTx, task_id: str, max_attempts: int) -> Task | None:
        task = graph.reap(tx, task_id, max_attempts)
        return None if task is None else self._told(tx, "lease_expired", task)

    def pending_events(self, limit: int = 1000) -> list[OutboxEvent]:
        try:
            with self._r.pipeline(transaction=True) as pipe:
                pipe.time()
                pipe.xrange(self.key("outbox"), "-", "+", count=limit)
                (seconds, micros), entries = pipe.execute()
        except self._errors as e:
            raise StoreUnavailable(f"task store {self.url}: {e}") from None
        now = seconds + micros / 1e6
        found: list[OutboxEvent] = []
        for _, fields in cast("list[tuple[str, dict[str, str]]]", entries):
            event = TaskChanged.model_validate_json(fields["event"])
            found.append(OutboxEvent(event, fields["writer"], now - float(fields["made_at"])))
        return found

    def change_mark(self) -> str:
        try:
            return str(self._last_id(keys=[self.key("outbox")]))
        except self._errors as e:
            raise StoreUnavailable(f"task store {self.url}: {e}") from None

    def wait_change(self, mark: str, timeout_s: float) -> bool:
        """Blocks on the outbox stream (XREAD BLOCK from `mark`), not a poll. The stream's
        last id is read first: an event written and already delivered (deleted) since the
        mark is seen by that id, not by XREAD."""
        if self.change_mark() != mark:
            return True
        try:
            found = self._r.xread(
                {self.key("outbox"): mark}, count=1, block=max(1, int(timeout_s * 1000))
            )
        except self._errors as e:
            raise StoreUnavailable(f"task store {self.url}: {e}") from None
        return bool(found)

    def close(self) -> None:
        self._flush_at_close()
        self._r.close()
