"""Spans from the event log's records, with the GenAI semantic conventions.

- A turn: `invoke_agent <agent>`, a trace's root (a worker's or teammate's turns are children
  of their task's `tether.task` span: a task is a trace).
- A model call: `chat <model>`, from the request (`response_started` less its time to first
  token) to the reply (`message_completed`), with `gen_ai.usage.*` and finish reasons.
- A tool call: `execute_tool <name>`, `tool_started` to `tool_finished`, with its decision.
- A subagent: `invoke_agent <type>`, a child of the Task call's span; the subagent's own model
  and tool spans are its children.

Times are the records' own (when the session emitted the event), not when they got here.
Called with the sink's lock held, from the hub's writer threads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer

from tether.observe.otel_facts import Decision, SessionFacts, record_ns, usage_of
from tether.observe.records import EventRecord

AgentKey = tuple[str, str]
"""session id, agent id."""


TEAM_KINDS = frozenset({"task_changed", "teammate_state_changed"})
"""The team's own records (`tether.protocol.team_events`)."""


@dataclass
class _Agent:
    turn: Span | None = None
    model: Span | None = None
    tools: dict[str, Span] = field(default_factory=dict[str, Span])
    last_ns: int = 0
    """When this agent last did something: where a model call that failed began, at most."""


class OtelTraces:
    def __init__(self, tracer: Tracer) -> None:
        self._tracer = tracer
        self._agents: dict[AgentKey, _Agent] = {}
        self._subagents: dict[AgentKey, Span] = {}
        self._tasks: dict[AgentKey, tuple[str, Span]] = {}

    # the session's life: told by the sink

    def session_opened(self, facts: SessionFacts, now_ns: int) -> None:
        if facts.task_id is not None:
            self._task_span((facts.session_id, facts.agent_id), facts, facts.task_id, now_ns)

    def session_closed(self, session_id: str, now_ns: int) -> None:
        """End what the session left open: a turn cut short, its task's span."""
        for key in [k for k in self._agents if k[0] == session_id]:
            agent = self._agents.pop(key)
            for span in (*agent.tools.values(), agent.model, agent.turn):
                if span is not None:
                    span.end(now_ns)
        for key in [k for k in self._subagents if k[0] == session_id]:
            self._subagents.pop(key).end(now_ns)
        for key in [k for k in self._tasks if k[0] == session_id]:
            self._tasks.pop(key)[1].end(now_ns)

    def close(self, now_ns: int) -> None:
        for session_id in {k[0] for k in (*self._agents, *self._subagents, *self._tasks)}:
            self.session_closed(session_id, now_ns)

    # the records

    def take(self, record: EventRecord, facts: SessionFacts, decision: Decision | None) -> None:
        key = (record.session_id, record.agent_id)
        when = record_ns(record)
        p = record.payload
        # A board's lifecycle change is filed under its task but is no work in it (a worker
        # claiming between tasks, `tether tasks add`): it starts no task's span.
        working = record.kind not in TEAM_KINDS
        if working and key not in self._subagents and record.task_id is not None:
            self._task_span(key, facts, record.task_id, when)
        match record.kind:
            case "turn_started":
                agent = self._agent(key)
                if agent.turn is not None:
                    agent.turn.end(when)
                agent.turn = self._tracer.start_span(
                    f"invoke_agent {record.agent_id}",
                    context=self._context(self._outer(key)),
                    kind=SpanKind.INTERNAL,
                    attributes={
                        **_whose(record),
                        "gen_ai.operation.name": "invoke_agent",
                        "gen_ai.agent.name": record.agent_id,
                    },
                    start_time=when,
                )
            case "turn_finished":
                agent = self._agent(key)
                if p.get("api_error_status") is not None or p.get("api_error_type"):
                    self._failed_call(record, facts, agent, when)
                if agent.turn is not None:
                    usage = usage_of(p.get("usage"))
                    agent.turn.set_attributes(
                        {
                            **_usage_attributes(usage),
                            "tether.turn.subtype": str(p.get("subtype")),
                            "tether.turn.model_calls": int(p.get("num_turns") or 0),
                            "tether.cost_usd": float(p.get("cost_usd") or 0.0),
                        }
                    )
                    if p.get("is_error"):
                        agent.turn.set_status(Status(StatusCode.ERROR, str(p.get("subtype"))))
                    agent.turn.end(when)
                    agent.turn = None
            case "response_started":
                agent = self._agent(key)
                if agent.model is not None:
                    agent.model.end(when)
                start = when - int(p.get("ttft_ms") or 0) * 1_000_000
                agent.model = self._model_span(record, facts, str(p.get("model") or ""), start)
            case "message_completed":
                usage = p.get("usage")
                message: Mapping[str, Any] = p.get("message") or {}
                if usage is None or message.get("role") != "assistant":
                    return
                agent = self._agent(key)
                span = agent.model or self._model_span(
                    record, facts, str(p.get("model") or ""), when
                )
                agent.model = None
                _end_model_span(span, p, when)
            case "tool_started":
                agent = self._agent(key)
                call_id = str(p.get("call_id"))
                agent.tools[call_id] = self._tool_span(record, call_id, when)
            case "tool_finished":
                agent = self._agent(key)
                call_id = str(p.get("call_id"))
                span = agent.tools.pop(call_id, None) or self._tool_span(record, call_id, when)
                attributes: dict[str, Any] = {
                    "success": not p.get("is_error"),
                    "duration_ms": int(p.get("duration_ms") or 0),
                }
                if decision is not None:
                    attributes["decision"] = decision.decision
                    attributes["source"] = decision.source
                span.set_attributes(attributes)
                if p.get("is_error"):
                    span.set_status(Status(StatusCode.ERROR, _first_line(p.get("content"))))
                span.end(when)
            case "subagent_started":
                child = (record.session_id, str(p.get("agent_id")))
                parent = self._agent(key).tools.get(str(p.get("call_id"))) or self._outer(key)
                self._subagents[child] = self._tracer.start_span(
                    f"invoke_agent {p.get('agent_type')}",
                    context=self._context(parent),
                    kind=SpanKind.INTERNAL,
                    attributes={
                        **_whose(record),
                        "gen_ai.operation.name": "invoke_agent",
                        "gen_ai.agent.id": child[1],
                        "gen_ai.agent.name": str(p.get("agent_type")),
                        "gen_ai.agent.description": str(p.get("description") or ""),
                        "gen_ai.tool.call.id": str(p.get("call_id")),
                        "tether.parent_agent.id": record.agent_id,
                    },
                    start_time=when,
                )
            case "subagent_finished":
                child = (record.session_id, str(p.get("agent_id")))
                span = self._subagents.pop(child, None)
                if span is None:
                    return
                span.set_attributes(
                    {
                        **_usage_attributes(usage_of(p.get("usage"))),
                        "tether.subagent.status": str(p.get("status")),
                        "tether.subagent.tool_uses": int(p.get("tool_uses") or 0),
                    }
                )
                if p.get("status") == "failed":
                    span.set_status(Status(StatusCode.ERROR, _first_line(p.get("summary"))))
                leftover = self._agents.pop(child, None)
                if leftover is not None:
                    for open_span in (*leftover.tools.values(), leftover.model, leftover.turn):
                        if open_span is not None:
                            open_span.end(when)
                span.end(when)
            case _:
                return
        if (agent := self._agents.get(key)) is not None:
            agent.last_ns = when

    def _failed_call(
        self, record: EventRecord, facts: SessionFacts, agent: _Agent, when: int
    ) -> None:
        """The model call the API refused (after its retries): a `chat` span with the
        conventions' `error.type`, from the agent's last step (or its open request) to now."""
        p = record.payload
        status = p.get("api_error_status")
        error_type = str(p.get("api_error_type") or status)
        span = agent.model or self._model_span(record, facts, "", agent.last_ns or when)
        agent.model = None
        span.set_attribute("error.type", error_type)
        if status is not None:
            span.set_attribute("http.response.status_code", int(status))
        span.set_status(Status(StatusCode.ERROR, _first_line(p.get("error") or error_type)))
        span.end(when)

    # helpers

    def _agent(self, key: AgentKey) -> _Agent:
        agent = self._agents.get(key)
        if agent is None:
            agent = self._agents[key] = _Agent()
        return agent

    def _outer(self, key: AgentKey) -> Span | None:
        """What an agent's turn (or a call outside a turn) hangs under: its subagent span,
        its task's span, or nothing (a root)."""
        if (span := self._subagents.get(key)) is not None:
            return span
        if (task := self._tasks.get(key)) is not None:
            return task[1]
        return None

    def _parent(self, key: AgentKey) -> Span | None:
        agent = self._agents.get(key)
        if agent is not None and agent.turn is not None:
            return agent.turn
        return self._outer(key)

    @staticmethod
    def _context(parent: Span | None) -> Any:
        return trace.set_span_in_context(parent) if parent is not None else None

    def _task_span(self, key: AgentKey, facts: SessionFacts, task_id: str, when: int) -> None:
        held = self._tasks.get(key)
        if held is not None and held[0] == task_id:
            return
        if held is not None:  # a teammate moved on to another task
            held[1].end(when)
        self._tasks[key] = (
            task_id,
            self._tracer.start_span(
                "tether.task",
                context=None,
                kind=SpanKind.INTERNAL,
                attributes={
                    "session.id": key[0],
                    "gen_ai.conversation.id": key[0],
                    "tether.agent.id": key[1],
                    "tether.task.id": task_id,
                    "gen_ai.request.model": facts.model,
                },
                start_time=when,
            ),
        )

    def _model_span(self, record: EventRecord, facts: SessionFacts, model: str, start: int) -> Span:
        key = (record.session_id, record.agent_id)
        attributes: dict[str, Any] = {
            **_whose(record),
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": model or facts.model,
        }
        if facts.provider:
            attributes["gen_ai.system"] = facts.provider
            attributes["gen_ai.provider.name"] = facts.provider
        return self._tracer.start_span(
            f"chat {model or facts.model}",
            context=self._context(self._parent(key)),
            kind=SpanKind.CLIENT,
            attributes=attributes,
            start_time=start,
        )

    def _tool_span(self, record: EventRecord, call_id: str, when: int) -> Span:
        name = str(record.payload.get("name"))
        key = (record.session_id, record.agent_id)
        return self._tracer.start_span(
            f"execute_tool {name}",
            context=self._context(self._parent(key)),
            kind=SpanKind.INTERNAL,
            attributes={
                **_whose(record),
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": name,
                "gen_ai.tool.call.id": call_id,
                "gen_ai.tool.type": "function",
            },
            start_time=when,
        )


def _end_model_span(span: Span, p: Mapping[str, Any], when: int) -> None:
    attributes: dict[str, Any] = _usage_attributes(usage_of(p.get("usage")))
    if model := p.get("model"):
        attributes["gen_ai.response.model"] = str(model)
    if message_id := p.get("message_id"):
        attributes["gen_ai.response.id"] = str(message_id)
    if stop := p.get("stop_reason"):
        attributes["gen_ai.response.finish_reasons"] = (str(stop),)
    attributes["tether.cost_usd"] = float(p.get("cost_usd") or 0.0)
    span.set_attributes(attributes)
    span.end(when)


def _usage_attributes(usage: Mapping[str, int]) -> dict[str, Any]:
    """`gen_ai.usage.input_tokens` counts every input token, the cached ones included (as the
    conventions ask); the cache's share are in their own attributes."""
    cache_read = usage["cache_read_input_tokens"]
    cache_write = usage["cache_creation_input_tokens"]
    return {
        "gen_ai.usage.input_tokens": usage["input_tokens"] + cache_read + cache_write,
        "gen_ai.usage.output_tokens": usage["output_tokens"],
        "gen_ai.usage.cache_read.input_tokens": cache_read,
        "gen_ai.usage.cache_creation.input_tokens": cache_write,
    }


def _whose(record: EventRecord) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "session.id": record.session_id,
        "gen_ai.conversation.id": record.session_id,
        "tether.agent.id": record.agent_id,
    }
    if record.task_id is not None:
        attributes["tether.task.id"] = record.task_id
    return attributes


def _first_line(text: object) -> str:
    return str(text or "").strip().split("\n", 1)[0][:200]
