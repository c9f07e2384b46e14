"""`EventHub`: takes a session's events from its hot path and writes them out off it.

The session's `emit` calls `observe` (through `observer`), which only stamps the time and the
context and puts the event on a queue: well under a millisecond. A background thread turns
queued events into records (`records.py`), appends each batch to the event log and its views
in one write (`log_file.py`), and offers every record to the sinks (webhooks), which queue
it and return. `close` waits for what is queued, within a deadline, and says what was lost.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, Protocol

from tether.observe.bounded import FIELD_CHARS, bounded, changed_lines
from tether.observe.log_file import AppendFile
from tether.observe.records import MAIN_AGENT, EventRecord, timestamp
from tether.protocol import Record
from tether.slotted import Slotted, slot_fields

BATCH = 512
"""At most this many events per write."""
GATHER_S = 0.02
"""How long the writer thread lets events gather once one comes (`flush` and `close` cut it
short): fewer, larger writes, and fewer times the session's thread hands it the interpreter
(each hand-off can cost the session a wait for a CPU on a busy machine)."""


class EventContext(Slotted):
    """Whose events these are; a teammate sets `task_id` as it moves from task to task."""

    __slots__ = ("agent_id", "session_id", "task_id")
    session_id: str
    agent_id: str
    task_id: str | None

    def __init__(
        self, session_id: str, agent_id: str = MAIN_AGENT, task_id: str | None = None
    ) -> None:
        self.session_id = session_id
        self.agent_id = agent_id
        self.task_id = task_id

    def child(self, agent_id: str) -> EventContext:
        """The context of a subagent this agent starts: the same session and task."""
        return EventContext(self.session_id, agent_id, self.task_id)


class Sink(Protocol):
    """Where records go besides the files; `offer` must return at once (queue, never wait)."""

    def offer(self, record: EventRecord) -> None: ...

    def close(self, deadline: float) -> str | None:
        """Deliver what is queued until `deadline` (`time.monotonic()`); what was lost, said
        for the user, or None."""
        ...


REPORT_GRACE_S = 0.1
"""How long after the deadline a sink closing is waited for still: it stops waiting at the
deadline, then only counts what it lost, into the report."""


def close_sinks(sinks: Sequence[Sink], deadline: float) -> list[str | None]:
    """Each sink's `close(deadline)`, side by side: each has the time until the deadline to
    itself, so an endpoint that never answers does not take the time of another (which then
    could not tell its receiver what it lost). In their order; None for one that did not end
    (or failed) in time."""
    if len(sinks) <= 1:
        return [sink.close(deadline) for sink in sinks]
    reports: list[str | None] = [None] * len(sinks)

    def close(n: int) -> None:
        reports[n] = sinks[n].close(deadline)

    threads = [
        threading.Thread(target=close, args=(n,), name="tether-sink-close", daemon=True)
        for n in range(1, len(sinks))
    ]
    for thread in threads:
        thread.start()
    close(0)
    for thread in threads:
        thread.join(max(0.0, deadline + REPORT_GRACE_S - time.monotonic()))
    return reports


WRITTEN_WAIT_S = 2.0
"""How long `written_observer` waits for its event to be written (a log locked meanwhile)."""

_Queued = tuple[str, str, str | None, float, Record | dict[str, Any]]
"""session id, agent id, task id, epoch seconds, event (or the hub's own, as a dict)."""


class _Flush:
    def __init__(self) -> None:
        self.done = threading.Event()


class EventHub:
    def __init__(
        self,
        log: AppendFile | None,
        *,
        views: Sequence[AppendFile] = (),
        sinks: Sequence[Sink] = (),
        on_error: Callable[[str], None] = lambda _: None,
        owner: EventContext | None = None,
    ) -> None:
        """`log`: the shared event log (None: none); `views`: files that get the same records
        (the `eventLog` setting); `on_error`: told once when a file cannot be written; `owner`:
        whose the hub's own records are (a webhook's losses, `webhook_dropped`)."""
        self.owner = owner
        self.log = log
        self.views = tuple(views)
        self.sinks = tuple(sinks)
        self._on_error = on_error
        self._queue: queue.SimpleQueue[_Queued | _Flush | None] = queue.SimpleQueue()
        self._hurry = threading.Event()
        """Set by `flush` and `close`: what is queued is written without gathering more."""
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._closed = False
        self._failed: set[str] = set()
        self._soon = False
        """Set by `close_soon`: the writer thread closes the files, nobody waits to."""
        self._then: Callable[[], None] | None = None
        """What `close_soon` asked to run once the writer is done."""
        self.written = 0
        """Records written so far (to the log, or to the views when there is no log)."""

    def observe(self, context: EventContext, event: Record) -> None:
        """Queue `event` as `context`'s, now: the hot path (no I/O, no serialisation)."""
        if self._closed:
            return
        if self._thread is None:
            self._start()
        # A nested subagent's start, messages and end reach the session through its callers:
        # they are the subagent's that started it, which the event names.
        # The fields are looked up among the class's: `getattr` with a default on a record
        # that lacks the field raises and catches an AttributeError, whose message it formats.
        fields = slot_fields(type(event))
        by = event.parent_agent_id if "parent_agent_id" in fields else None  # type: ignore[attr-defined]
        agent_id = by if isinstance(by, str) else context.agent_id
        # A task's own event (`TaskChanged`) is filed under that task, whatever the agent
        # works on: a lead creating tasks, a worker between two.
        named = event.task_id if "task_id" in fields else None  # type: ignore[attr-defined]
        task_id = named if isinstance(named, str) else context.task_id
        self._queue.put((context.session_id, agent_id, task_id, time.time(), event))

    def observer(self, context: EventContext) -> Callable[[Record], None]:
        """`observe` bound to `context`: a `Session.observers` entry."""
        return lambda event: self.observe(context, event)

    def written_observer(self, context: EventContext) -> Callable[[Record], None]:
        """`observe` bound to `context`, returning once the event is written (within
        `WRITTEN_WAIT_S`): for a change recorded elsewhere first (a board task's), so that a
        process killed right after loses at most the event of the step under way. Not for
        the loop: called on a store's thread."""

        def record(event: Record) -> None:
            self.observe(context, event)
            self.flush(WRITTEN_WAIT_S)

        return record

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until everything queued so far is written and offered to the sinks."""
        if self._thread is None or not self._thread.is_alive():
            return True  # nothing was queued, or the writer is done (closed)
        marker = _Flush()
        self._queue.put(marker)
        self._hurry.set()
        return marker.done.wait(timeout)

    def close(self, timeout: float = 3.0) -> list[str]:
        """Write what is queued, give the sinks until `timeout` seconds from now to deliver
        theirs, close the files; what was lost, said for the user."""
        deadline = time.monotonic() + timeout
        self._closed = True
        if self._thread is not None:
            self._queue.put(None)
            self._hurry.set()
            self._thread.join(max(0.0, deadline - time.monotonic()))
        reports = [r for r in close_sinks(self.sinks, deadline) if r is not None]
        if reports and self.owner is not None:
            when = time.time()
            self._write([(*_whose(self.owner), when, _dropped(r)) for r in reports])
        for file in (self.log, *self.views):
            if file is not None:
                file.close()
        return reports

    def close_soon(self, then: Callable[[], None] | None = None) -> None:
        """Close without waiting (its session was dropped unclosed, and this may run in a
        finalizer): the writer thread writes what is queued, closes the files, calls `then`
        and ends. The sinks are the process's, closed at its exit."""
        self._closed = self._soon = True
        self._then = then
        if self._thread is None:
            self._finish()
            return
        self._queue.put(None)
        self._hurry.set()

    def _finish(self) -> None:
        for file in (self.log, *self.views):
            if file is not None:
                file.close()
        if self._then is not None:
            self._then()

    def _start(self) -> None:
        with self._start_lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._drain, name="tether-events", daemon=True
                )
                self._thread.start()

    def _drain(self) -> None:
        while True:
            item = self._queue.get()
            if isinstance(item, tuple):
                self._hurry.wait(GATHER_S)
            batch: list[_Queued] = []
            markers: list[_Flush] = []
            stop = False
            while True:
                if item is None:
                    stop = True
                elif isinstance(item, _Flush):
                    markers.append(item)
                else:
                    batch.append(item)
                if stop or len(batch) >= BATCH:
                    break
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
            if markers:
                self._hurry.clear()  # a flush after this one sets it again
            self._write(batch)
            for marker in markers:
                marker.done.set()
            if stop:
                if self._soon:  # nobody waits to close the files
                    self._finish()
                return

    def _write(self, batch: list[_Queued]) -> None:
        if not batch:
            return
        try:
            records = [_record(item) for item in batch]
        except Exception as e:  # an observer must not end what it observes: said, not raised
            self._on_error(f"cannot record events: {type(e).__name__}: {e}")
            return
        records = [_bounded(r) for r in coalesced(records)]
        lines = [r.to_json() for r in records]
        for file in (self.log, *self.views):
            if file is None:
                continue
            try:
                file.append(lines)
            except OSError as e:
                if str(file.path) not in self._failed:  # said once, not per batch
                    self._failed.add(str(file.path))
                    self._on_error(f"cannot write the event log {file.path}: {e.strerror or e}")
        self.written += len(records)
        for sink in self.sinks:
            for record in records:
                sink.offer(record)


def _dropped(message: str) -> dict[str, Any]:
    """The record of a webhook's losses (a dict: a model class made at import costs start-up
    pydantic's plugin loader)."""
    return {"kind": "webhook_dropped", "message": message}


def _whose(context: EventContext) -> tuple[str, str, str | None]:
    return context.session_id, context.agent_id, context.task_id


def _record(item: _Queued) -> EventRecord:
    session_id, agent_id, task_id, seconds, event = item
    payload = dict(event) if isinstance(event, dict) else event.model_dump(mode="json")
    kind = payload.pop("kind", None)
    return EventRecord(
        session_id=session_id,
        agent_id=agent_id,
        task_id=task_id,
        ts=timestamp(datetime.fromtimestamp(seconds, UTC)),
        kind=kind if isinstance(kind, str) else type(event).__name__,
        payload=payload,
    )


def _bounded(record: EventRecord) -> EventRecord:
    """`record` with its long strings cut (`bounded.py`); a diff cut keeps its count of lines
    added and removed (`diff_lines`), which OpenTelemetry's lines-of-code metric reads."""
    payload = record.payload
    diff = payload.get("diff") if record.kind == "tool_finished" else None
    if isinstance(diff, str) and len(diff) > FIELD_CHARS:
        added, removed = changed_lines(diff)
        payload = {**payload, "diff_lines": {"added": added, "removed": removed}}
    cut = bounded(payload)
    return record if cut is record.payload else replace(record, payload=cut)


def coalesced(records: list[EventRecord]) -> list[EventRecord]:
    """`records` with the streamed pieces of a tool's input recorded by their size: each run
    of `tool_input_delta` records of one call is one record (the first piece's time) whose
    `chars` counts the input text streamed, without the text (`partial_json`). The input is
    in the call's `tool_started` record, and whole in the session's transcript; the pieces
    of a large input are thousands of records, each as big as its envelope again."""
    out: list[EventRecord] = []
    for record in records:
        if record.kind != "tool_input_delta":
            out.append(record)
            continue
        piece = record.payload.get("partial_json")
        chars = len(piece) if isinstance(piece, str) else 0
        last = out[-1] if out else None
        if (
            last is not None
            and last.kind == "tool_input_delta"
            and (last.session_id, last.agent_id) == (record.session_id, record.agent_id)
            and last.payload.get("call_id") == record.payload.get("call_id")
        ):
            out[-1] = replace(
                last, payload={**last.payload, "chars": last.payload["chars"] + chars}
            )
        else:
            payload = {k: v for k, v in record.payload.items() if k != "partial_json"}
            out.append(replace(record, payload={**payload, "chars": chars}))
    return out
