"""`OtelSink`: OpenTelemetry as one more consumer of the event log's records (a `hub.Sink`).

The hub's writer thread offers each record; the sink turns it into metric points and spans
in memory (the SDK's own threads export them), so the session's loop never waits for it.
Imported only when telemetry is on: this module imports the SDK (`otel_export` says in one
line when it is not installed).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

from tether.observe.otel_config import OtelConfig
from tether.observe.otel_export import Exporters, build_exporters
from tether.observe.otel_facts import Decision, SessionFacts, decide
from tether.observe.otel_metrics import OtelMetrics
from tether.observe.otel_traces import OtelTraces
from tether.observe.records import EventRecord

_CallKey = tuple[str, str, str]
"""session id, agent id, call id."""


class OtelSink:
    def __init__(self, config: OtelConfig, exporters: Exporters) -> None:
        self._exporters = exporters
        self._lock = threading.Lock()
        self._metrics = (
            OtelMetrics(exporters.meter, config) if exporters.meter is not None else None
        )
        self._traces = OtelTraces(exporters.tracer) if exporters.tracer is not None else None
        self._sessions: dict[str, SessionFacts] = {}
        self._inputs: dict[_CallKey, Mapping[str, Any]] = {}
        self._asked: set[_CallKey] = set()
        self._closed = False
        self.failures = 0
        """Records the sink could not turn into telemetry (a bug, said at close)."""
        self._failure: str | None = None

    def session_opened(self, facts: SessionFacts) -> None:
        with self._lock:
            if self._closed:
                return
            self._sessions[facts.session_id] = facts
            if self._metrics is not None:
                self._metrics.session_opened(facts)
            if self._traces is not None:
                self._traces.session_opened(facts, time.time_ns())

    def session_closed(self, session_id: str) -> None:
        """Once its hub has offered every record: end what the session left open."""
        with self._lock:
            if self._traces is not None and not self._closed:
                self._traces.session_closed(session_id, time.time_ns())
            self._sessions.pop(session_id, None)
            for key in [k for k in self._inputs if k[0] == session_id]:
                del self._inputs[key]
            self._asked = {k for k in self._asked if k[0] != session_id}

    def offer(self, record: EventRecord) -> None:
        with self._lock:
            if self._closed:
                return
            try:
                self._take(record)
            except Exception as e:  # telemetry must not end what it watches: counted, said
                self.failures += 1
                self._failure = self._failure or f"{record.kind}: {type(e).__name__}: {e}"

    def close(self, deadline: float) -> str | None:
        with self._lock:
            if self._closed:
                return None
            self._closed = True
            if self._traces is not None:
                self._traces.close(time.time_ns())
        report = self._exporters.shutdown(deadline)
        if self.failures:
            lost = f"telemetry: {self.failures} events not turned into telemetry ({self._failure})"
            return f"{report}; {lost}" if report else lost
        return report

    def _take(self, record: EventRecord) -> None:
        facts = self._sessions.get(record.session_id) or SessionFacts(
            record.session_id, record.agent_id, record.task_id, "", None
        )
        p = record.payload
        decision: Decision | None = None
        tool_input: Mapping[str, Any] | None = None
        if record.kind in ("tool_started", "tool_finished", "permission_asked"):
            # a subagent's question is asked through its caller: the payload names whose
            agent_id = p.get("agent_id") if record.kind == "permission_asked" else None
            key = (record.session_id, str(agent_id or record.agent_id), str(p.get("call_id")))
            if record.kind == "tool_started":
                found = p.get("input")
                self._inputs[key] = found if isinstance(found, Mapping) else {}  # pyright: ignore[reportUnknownMemberType]
            elif record.kind == "permission_asked":
                self._asked.add(key)
            else:
                tool_input = self._inputs.pop(key, None)
                if tool_input is None:
                    denial = p.get("denial")
                    tool_input = denial.get("tool_input") if isinstance(denial, dict) else None  # pyright: ignore[reportUnknownMemberType]
                asked = key in self._asked
                self._asked.discard(key)
                decision = decide(p, asked)
        if self._metrics is not None:
            self._metrics.take(record, tool_input, decision)
        if self._traces is not None:
            self._traces.take(record, facts, decision)


def open_otel_sink(config: OtelConfig) -> OtelSink:
    """The SDK's providers and exporters for `config`, and the sink feeding them."""
    return OtelSink(config, build_exporters(config))
