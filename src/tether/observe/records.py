"""The event log's record: one JSON object a line, the same shape for every writer and reader.

    {"session_id": "...", "agent_id": "main", "task_id": null, "ts": "2026-12-03T06:10:00.123456Z",
     "kind": "tool_finished", "payload": {...the event's other fields...}}

- `session_id`: the session the event belongs to (a subagent's events carry its parent's).
- `agent_id`: `"main"` for a session's own agent; a subagent's id (`SubagentStarted.agent_id`);
  a teammate's member name or a worker's owner name for the sessions they run. A subagent's
  `subagent_started`, `subagent_message` and `subagent_finished` are the records of the agent
  that started it: the outer subagent's for a nested one (the events' `parent_agent_id`).
- `task_id`: the board task the session works on (a worker's task), else null.
- `ts`: when the event was emitted, ISO 8601 in UTC with microseconds and a `Z`.
- `kind`: the event's `kind` (`tether.protocol` events), or `webhook_dropped` for the log's own.
- `payload`: the event's fields but `kind`, as `model_dump(mode="json")` gives them.

The files: `$TETHER_HOME/events/events.jsonl`, rotated by size to `events.1.jsonl` (the newest
rotated) ... `events.N.jsonl` (the oldest); `log_files` lists them oldest first.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

MAIN_AGENT = "main"
"""The `agent_id` of a session's own agent."""

LOG_DIR = "events"
LOG_NAME = "events.jsonl"
FIELDS = ("session_id", "agent_id", "task_id", "ts", "kind", "payload")


class RecordError(ValueError):
    """A line that is not a valid record; the message says what is wrong with it."""


@dataclass(frozen=True, slots=True)
class EventRecord:
    session_id: str
    agent_id: str
    task_id: str | None
    ts: str
    kind: str
    payload: dict[str, Any] = field(default_factory=dict[str, Any])

    def to_json(self, *, seq: int | None = None, stream: str | None = None) -> str:
        """The record as one line of JSON (no newline); `stream` and `seq`, when given, end
        it (a webhook's numbering of what one process sends it, and the record's number in
        it: `webhooks.py`)."""
        fields: dict[str, Any] = {
            "session_id": self.session_id,
            "agent_id": self.agent_id,
            "task_id": self.task_id,
            "ts": self.ts,
            "kind": self.kind,
            "payload": self.payload,
        }
        if stream is not None:
            fields["stream"] = stream
        if seq is not None:
            fields["seq"] = seq
        return json.dumps(
            fields,
            ensure_ascii=False,
            separators=(",", ":"),
        )

    @property
    def time(self) -> datetime:
        return datetime.fromisoformat(self.ts)


def timestamp(moment: datetime | None = None) -> str:
    """`ts` for `moment` (now by default)."""
    moment = moment or datetime.now(UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_record(line: str) -> EventRecord:
    """A record from one line of the log; `RecordError` says which field is wrong."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as e:
        raise RecordError(f"not JSON: {e}") from None
    if not isinstance(data, dict):
        raise RecordError("not a JSON object")
    data = cast(dict[str, Any], data)
    for name in ("session_id", "agent_id", "ts", "kind"):
        if not isinstance(data.get(name), str):
            raise RecordError(f'"{name}" must be a string')
    task_id = data.get("task_id")
    if task_id is not None and not isinstance(task_id, str):
        raise RecordError('"task_id" must be a string or null')
    payload = data.get("payload", {})
    if not isinstance(payload, dict):
        raise RecordError('"payload" must be an object')
    return EventRecord(
        session_id=data["session_id"],
        agent_id=data["agent_id"],
        task_id=task_id,
        ts=data["ts"],
        kind=data["kind"],
        payload=cast(dict[str, Any], payload),
    )


def log_dir(home: Path) -> Path:
    """Where the event log lives under `$TETHER_HOME`."""
    return home / LOG_DIR


def rotated_name(index: int) -> str:
    return LOG_NAME if index == 0 else f"events.{index}.jsonl"


def log_files(home: Path) -> list[Path]:
    """The log's files that exist, oldest first (the current file last)."""
    directory = log_dir(home)
    found: list[tuple[int, Path]] = []
    if directory.is_dir():
        for path in directory.iterdir():
            index = _index(path.name)
            if index is not None:
                found.append((index, path))
    return [path for _, path in sorted(found, key=lambda item: -item[0])]


class Seen:
    """The event ids read so far (a payload's `event_id`: a board task's change, delivered at
    least once from its board's outbox), the newest `keep`: `first` is False for a second
    delivery of one."""

    __slots__ = ("_ids", "keep")

    def __init__(self, keep: int = 100_000) -> None:
        self._ids: dict[str, None] = {}
        self.keep = keep

    def first(self, record: EventRecord) -> bool:
        event_id = record.payload.get("event_id")
        if not isinstance(event_id, str):
            return True
        if event_id in self._ids:
            return False
        self._ids[event_id] = None
        if len(self._ids) > self.keep:
            del self._ids[next(iter(self._ids))]
        return True


def read_records(home: Path) -> Iterator[EventRecord]:
    """Every record of the log, oldest first, an event delivered twice once (`Seen`); a line
    that is not a record is skipped (a torn line can only come from a process killed
    mid-write, which O_APPEND writes make rare)."""
    seen = Seen()
    for path in log_files(home):
        try:
            with path.open(encoding="utf-8", errors="replace") as lines:
                for line in lines:
                    try:
                        record = parse_record(line)
                    except RecordError:
                        continue
                    if seen.first(record):
                        yield record
        except FileNotFoundError:  # rotated away while we read the ones before
            continue


def _index(name: str) -> int | None:
    if name == LOG_NAME:
        return 0
    parts = name.split(".")
    if len(parts) == 3 and parts[0] == "events" and parts[2] == "jsonl" and parts[1].isdigit():
        return int(parts[1])
    return None
