"""One optimistic transaction on a team's board in Redis (`BoardTx` for `RedisTaskStore`), and
how a task is kept there.

A task is a hash, `tether:{TEAM}:task:ID`: its JSON in `data`, beside it the fields the claim
script changes without decoding the JSON (`CLAIM_FIELDS`, `updated_at`). `RedisTx` WATCHes
each key as it reads it and keeps its writes (later reads see them) until `flush` queues them
after MULTI: a key another client changed meanwhile makes EXEC fail, and the store runs the
step again."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tether.protocol.team_events import TaskChanged
from tether.store.task_records import PRIORITY_RANK, Task

if TYPE_CHECKING:
    from redis import Redis
    from redis.client import Pipeline

CLAIM_FIELDS = ("status", "owner", "attempts", "fence", "lease_expires_at", "started_at")
"""The fields of a task's hash the claim script writes (`data` keeps their older values)."""

DELIVERED_LUA = """
local gone = {}
if #ARGV >= FIRST then
  local wanted = {}
  for i = FIRST, #ARGV do wanted[ARGV[i]] = true end
  for _, entry in ipairs(redis.call('XRANGE', OUTBOX, '-', '+')) do
    local fields = entry[2]
    for i = 1, #fields, 2 do
      if fields[i] == 'event' and wanted[cjson.decode(fields[i + 1]).event_id] then
        table.insert(gone, entry[1])
      end
    end
  end
  if #gone > 0 then redis.call('XDEL', OUTBOX, unpack(gone)) end
end
"""
"""Lua that takes the outbox's (`OUTBOX`) delivered events, by `event_id` (`ARGV[FIRST..]`),
out of it: run inside a change's MULTI/EXEC (`RedisTx.drop_events`) or its claim script."""

DELIVERED_SCRIPT = "local OUTBOX, FIRST = KEYS[1], 1\n" + DELIVERED_LUA + "return #gone\n"


def task_from_hash(fields: dict[str, str]) -> Task:
    """A task from its hash: the JSON, with the fields a claim script may have changed."""
    data: dict[str, Any] = Task.model_validate_json(fields["data"]).stored()
    for name in CLAIM_FIELDS:
        value = fields.get(name, "")
        if name in ("status", "owner"):
            data[name] = value or None
        elif name in ("attempts", "fence"):
            data[name] = int(value or 0)
        else:
            data[name] = float(value) if value else None
    data["updated_at"] = max(float(fields.get("updated_at") or 0), data["updated_at"])
    return Task.model_validate(data)


class RedisTx:
    """`BoardTx` over a WATCH/MULTI pipeline: each key watched before it is read; writes kept
    (and seen by later reads) until `flush` queues them after MULTI. `key` names a key of the
    team's board; `counters` is the client that increments `seq` and `fence` at once (outside
    the transaction: a number given out and not used is only a gap)."""

    def __init__(
        self,
        team: str,
        key: Callable[[str], str],
        counters: Redis,
        pipe: Pipeline,
        now: float,
    ) -> None:
        self.team, self._key, self._counters, self._pipe, self.now = team, key, counters, pipe, now
        self._tasks: dict[str, Task | None] = {}
        self._dependents: dict[str, set[str]] = {}
        self._writes: list[Callable[[Pipeline], object]] = []
        self.events: list[TaskChanged] = []

    def put_event(self, event: TaskChanged, writer: str) -> None:
        fields = {"event": event.model_dump_json(), "writer": writer, "made_at": num(self.now)}
        outbox = self._key("outbox")
        self._writes.append(lambda p: p.xadd(outbox, fields))  # pyright: ignore[reportArgumentType]
        self.events.append(event)

    def drop_events(self, ids: list[str]) -> None:
        outbox = self._key("outbox")
        self._writes.append(lambda p: p.eval(DELIVERED_SCRIPT, 1, outbox, *ids))

    def get(self, task_id: str) -> Task | None:
        if task_id not in self._tasks:
            if not task_id.isdigit():
                return None
            key = self._key(f"task:{task_id}")
            self._pipe.watch(key)
            fields: dict[str, str] = self._pipe.hgetall(key)  # pyright: ignore[reportAssignmentType]
            self._tasks[task_id] = task_from_hash(fields) if fields else None
        task = self._tasks[task_id]
        return task.model_copy(deep=True) if task is not None else None

    def dependents(self, task_id: str) -> list[str]:
        if task_id not in self._dependents:
            key = self._key(f"deps:{task_id}")
            self._pipe.watch(key)
            self._dependents[task_id] = set(self._pipe.smembers(key))  # pyright: ignore[reportArgumentType]
        return sorted(self._dependents[task_id], key=int)

    def save(self, task: Task, *, ready: bool) -> None:
        self.get(task.id)  # watched even when new: a concurrent writer of it conflicts
        self._tasks[task.id] = task.model_copy(deep=True)
        for dep in task.depends_on:
            self.dependents(dep)
            self._dependents[dep].add(task.id)
        key, tid = self._key, task.id
        fields: dict[Any, Any] = {
            "data": task.model_dump_json(exclude={"blocks"}),
            "status": task.status,
            "owner": task.owner or "",
            "attempts": str(task.attempts),
            "fence": str(task.fence),
            "lease_expires_at": num(task.lease_expires_at),
            "started_at": num(task.started_at),
            "updated_at": num(task.updated_at),
        }
        score = PRIORITY_RANK[task.priority] * 1e12 + task.seq
        lease = task.lease_expires_at if task.status == "in_progress" else None
        deps = list(task.depends_on)

        def write(p: Pipeline) -> None:
            p.hset(key(f"task:{tid}"), mapping=fields)
            p.zadd(key("ids"), {tid: task.seq})
            (p.zadd(key("ready"), {tid: score}) if ready else p.zrem(key("ready"), tid))
            (p.zadd(key("leases"), {tid: lease}) if lease else p.zrem(key("leases"), tid))
            for dep in deps:
                p.sadd(key(f"deps:{dep}"), tid)

        self._writes.append(write)

    def delete(self, task: Task) -> None:
        self._tasks[task.id] = None
        key, tid, deps = self._key, task.id, list(task.depends_on)

        def write(p: Pipeline) -> None:
            p.delete(key(f"task:{tid}"), key(f"deps:{tid}"))
            for name in ("ids", "ready", "leases"):
                p.zrem(key(name), tid)
            for dep in deps:
                p.srem(key(f"deps:{dep}"), tid)

        self._writes.append(write)

    def next_id(self) -> str:
        return str(self._counters.incr(self._key("seq")))

    def next_fence(self) -> int:
        return int(self._counters.incr(self._key("fence")))  # pyright: ignore[reportArgumentType]

    def flush(self) -> None:
        for write in self._writes:
            write(self._pipe)


def num(value: float | None) -> str:
    """A time as the hash keeps it: six decimals, empty for none."""
    return "" if value is None else f"{value:.6f}"
