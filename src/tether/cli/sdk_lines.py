"""The stream-json lines Claude Code writes, field for field, made from a session's events:
what the Claude Agent SDK's message parser reads (`system` init and task lines, `assistant`
lines one per content block, `user` lines one per tool result with its `tool_use_result`,
`stream_event`s, hook lines, the `result`).

One `LineMaker` per session: it remembers, within a turn, what the lines need from earlier
events (a call's name and input for its result, the partial message being streamed).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tether.cli.client_parts import structured_answer
from tether.cli.sdk_abandoned import abandoned
from tether.cli.sdk_line_shapes import (
    Line,
    assistant_line,
    new_message_id,
    stop_feedback_line,
    stream_line,
    tool_result_line,
    user_line,
)
from tether.cli.sdk_message_json import block_json, only_reminders, synthetic
from tether.cli.sdk_model_usage import Limits, ModelSpend
from tether.cli.sdk_session_lines import (
    SessionFacts,
    SessionSoFar,
    aborted_by,
    init_line,
    result_line,
)
from tether.cli.sdk_stream import PartialMessage
from tether.cli.sdk_system_lines import SystemLines
from tether.cli.sdk_task_lines import TaskLines
from tether.core.cut_replies import refusal_told

if TYPE_CHECKING:
    from tether.core.loop import Agent
    from tether.tools.background_shells import BackgroundShell
from tether.protocol import (
    BlockCompleted,
    ContentBlock,
    MessageCompleted,
    ModelRetry,
    ResponseStarted,
    SessionStarted,
    StatusChanged,
    SubagentFinished,
    SubagentMessage,
    SubagentStarted,
    ThinkingBlock,
    ToolFinished,
    ToolInputDelta,
    ToolResultBlock,
    ToolStarted,
    TurnFinished,
    Usage,
)


@dataclass
class LineMaker:
    session_id: str
    include_partial: bool = False
    _calls: dict[str, tuple[str, dict[str, Any]]] = field(
        default_factory=dict[str, tuple[str, dict[str, Any]]]
    )
    _finished: dict[str, ToolFinished] = field(default_factory=dict[str, ToolFinished])
    _partial: PartialMessage | None = None
    _spend: ModelSpend = field(default_factory=ModelSpend)
    """Per model, what the session used and cost so far (Claude Code's `modelUsage`)."""
    _agent: Agent | None = None
    """The session's agent (`watch_aside`): the limits its calls are made with."""
    _cost_usd: float = 0.0
    _api_ms: int = 0
    _results_unread: bool = False
    """The turn's newest message is tool results the model has not read (yet)."""
    _user_messages: int = 0
    """The turn's user messages after its prompt, as Claude Code keeps them: one per tool
    result, one per message of tether's own (an interruption's mark, words sent meanwhile)."""
    _aborted: str | None = None
    """The terminal reason of an interrupt seen this turn (`aborted_tools`...)."""
    _model: str = ""
    _early: list[tuple[ContentBlock, str | None]] = field(default_factory=list)  # pyright: ignore[reportUnknownVariableType]
    """The blocks of the reply being streamed already written, with their entries' uuids (a
    line per block as it closes, as Claude Code)."""
    _early_id: str | None = None
    _last_reply_id: str | None = None
    """The endpoint's id of the newest reply of the session's agent (a refusal's note names it)."""
    _started_id: str | None = None
    """The endpoint's id of the reply being streamed, and of its request (`ResponseStarted`)."""
    _request_id: str | None = None
    _started_usage: Usage = field(default_factory=Usage)
    """What the reply's start said of its usage: the lines of blocks written as they close
    carry it (the reply's end knows the rest)."""
    _after_results: list[Line] = field(default_factory=list[Line])
    """What a PostToolUse hook said, written after the results' lines (as Claude Code)."""
    untold: list[str] = field(default_factory=list[str])
    """The session's start-up notices, written as lines after the first `init` line."""
    system: SystemLines = field(init=False)
    """The `system` lines reporting on the session beside its messages."""

    tasks: TaskLines = field(init=False)
    """The task lines of the session's subagents and background commands."""

    def __post_init__(self) -> None:
        self.system = SystemLines(self.session_id)
        self.tasks = TaskLines(self.session_id)

    def init(self, started: SessionStarted, facts: SessionFacts) -> Line:
        self._model = started.model
        return init_line(started, facts, self.session_id)

    def start_notices(self) -> list[Line]:
        """The start-up notices (said on stderr too), each once, as `notice` lines: after the
        first `init` line, so that a client that reads only stdout hears them."""
        told = [self.system.notice(notice) for notice in self.untold]
        self.untold.clear()
        return told

    def tool_started(self, event: ToolStarted) -> None:
        self._calls[event.call_id] = (event.name, event.input)

    def tool_finished(self, event: ToolFinished) -> list[Line]:
        """A call's end: remembered for its result's line; a denial's own line now, and a
        background command's `task_started`."""
        self._finished[event.call_id] = event
        if event.denial is not None:
            return self.system.denied(event.denial)
        structured: Any = event.structured
        task_id = structured.get("backgroundTaskId") if isinstance(structured, dict) else None
        if not isinstance(task_id, str):
            return []
        _name, tool_input = self._calls.get(event.call_id, ("", {}))
        what = str(tool_input.get("description") or tool_input.get("command") or "")
        return self.tasks.command_started(task_id, event.call_id, what)

    def command_ended(self, shell: BackgroundShell) -> list[Line]:
        """A background command's end, unless it was stopped: the client that stopped it was
        told then; KillShell's or the session's end is not a task's end to tell."""
        code = shell.returncode
        if shell.stopped or code is None:
            return []
        exit_code = code if code >= 0 else 128 - code  # died of a signal: as a shell says it
        return self.tasks.command_ended(shell.id, exit_code, str(shell.log_path))

    def hook_said(self, said_by: str, told: str) -> list[Line]:
        """A hook's `systemMessage`, as Claude Code's `informational` line: at once, or for a
        hook run once a call ended, after the call's result."""
        line = self.system.informational(told)
        if said_by.startswith("PostToolUse"):  # (and PostToolUseFailure)
            self._after_results.append(line)
            return []
        return [line]

    def take_held(self) -> list[Line]:
        """Lines held for the results that did not come (the turn ended first)."""
        held, self._after_results = self._after_results, []
        return held

    def text(self, text: str, kind: str) -> list[Line]:
        """A streamed piece of text or thinking, as `stream_event`s (when asked for)."""
        if not self.include_partial:
            return []
        partial = self._streaming()
        return self._streamed(partial, partial.delta(kind, text))

    def tool_input(self, event: ToolInputDelta) -> list[Line]:
        """A tool call's input as it streams, as `stream_event`s (when asked for)."""
        if not self.include_partial:
            return []
        partial = self._streaming()
        return self._streamed(
            partial, partial.tool_input(event.call_id, event.name, event.partial_json)
        )

    def response_started(self, event: ResponseStarted) -> list[Line]:
        """The reply began: with partial messages, its `message_start` now, with the
        endpoint's message id, the usage known at the start and `ttft_ms` (as Claude Code);
        after the end of a reply asked again unannounced (an error event in its stream)."""
        given_up = self._give_up()
        self._started_id, self._request_id = event.message_id, event.request_id
        self._started_usage = event.usage
        if not self.include_partial:
            return []
        self._partial = PartialMessage(event.message_id or new_message_id(), self._model)
        lines = self._streamed(self._partial, self._partial.start(event.usage))
        lines[0]["ttft_ms"] = event.ttft_ms
        return given_up + lines

    def _streaming(self) -> PartialMessage:
        if self._partial is None:
            self._partial = PartialMessage(new_message_id(), self._model)
        return self._partial

    def _streamed(self, partial: PartialMessage, events: list[dict[str, Any]]) -> list[Line]:
        return [stream_line(self.session_id, e, None, partial.message_id) for e in events]

    def block_completed(self, event: BlockCompleted) -> list[Line]:
        """A block of the reply being streamed closed: its assistant line now, as Claude Code
        writes it (the reply's end gives its stop reason and usage to the lines after)."""
        partial = self._streaming() if self.include_partial else None
        if partial is not None:
            message_id = partial.message_id
        else:
            message_id = self._early_id = self._early_id or self._started_id or new_message_id()
        self._early.append((event.block, event.entry_uuid))
        body = block_json(event.block)
        # As Claude Code: the block's line, then its `content_block_stop` event.
        line = assistant_line(
            self.session_id,
            body,
            message_id,
            event.model,
            None,
            self._started_usage,
            None,
            self._request_id,
        )
        if event.entry_uuid:
            line["uuid"] = event.entry_uuid  # the block's entry in the session file
        lines = [line]
        if partial is not None:
            if isinstance(event.block, ThinkingBlock):  # before the block's line, as it came
                lines[:0] = self._streamed(partial, partial.signature(event.block.signature))
            lines.extend(self._streamed(partial, partial.block_done()))
        return lines

    def status(self, event: StatusChanged) -> list[Line]:
        """What the session is busy with: as Claude Code, `requesting` (before each request)
        only for a client of partial messages, a compaction's start and end for every one."""
        if event.status == "requesting" and not self.include_partial:
            return []
        return [self.system.status(event)]

    def retry(self, event: ModelRetry) -> list[Line]:
        """The model call is tried again: the `api_retry` line, except for an error event
        inside the stream, which Claude Code asks again without one."""
        given_up = self._give_up()
        return given_up if event.in_stream else [*given_up, self.system.retry(event)]

    def _give_up(self) -> list[Line]:
        """What was streamed of the reply is void: its message closed as abandoned."""
        closed = abandoned(self.session_id, self._partial, len(self._early))
        self._partial, self._early_id, self._started_id, self._request_id = None, None, None, None
        self._early.clear()
        self._started_usage = Usage()
        return closed

    def completed(self, event: MessageCompleted, parent: str | None = None) -> list[Line]:
        """Assistant lines, one per content block; user lines, one per tool result."""
        message = event.message
        if parent is None:
            self._results_unread = message.role == "user" and bool(message.tool_results())
            self._aborted = aborted_by(message) or self._aborted
        if message.role == "user":
            results = message.tool_results()
            if parent is None and (results or event.synthetic or not only_reminders(message)):
                # A message of reminders only (a background command ended) is Claude Code's
                # meta message: not counted.
                self._user_messages += len(results) or 1
            if results:
                lines = [self._result_line(b, parent) for b in results]
                if len(event.entry_uuids) == len(lines):
                    for line, named in zip(lines, event.entry_uuids, strict=True):
                        line["uuid"] = named  # the result's entry in the session file
                return lines + (self.take_held() if parent is None else [])
            refused = self._last_reply_id
            if event.synthetic == "refusal":
                told = self.system.informational(refusal_told(self._model))
                return [
                    told,
                    synthetic(
                        user_line(self.session_id, message, parent), event.synthetic, refused
                    ),
                ]
            if event.synthetic == "stop_feedback":
                return [stop_feedback_line(self.session_id, message, parent)]
            if event.synthetic is not None:
                return [
                    synthetic(user_line(self.session_id, message, parent), event.synthetic, refused)
                ]
            return [user_line(self.session_id, message, parent)]
        if event.model is not None and event.usage is not None:
            self.spent(event.model, event.usage, event.cost_usd, event.limits)
        partial = None
        if parent is None and self.include_partial:  # a subagent's replies are not streamed
            # A reply nothing was streamed of (its calls came whole) still has its events.
            partial, self._partial = self._streaming(), None
        early, self._early = (self._early, []) if parent is None else ([], self._early)
        early_id, self._early_id = (self._early_id, None) if parent is None else (None, None)
        if parent is None:
            self._started_id = self._request_id = None
            self._started_usage = Usage()
        message_id = event.message_id or (
            partial.message_id if partial is not None else early_id or new_message_id()
        )
        if parent is None:
            self._last_reply_id = message_id
        lines: list[Line] = []
        if partial is not None:
            lines.extend(
                stream_line(self.session_id, e, parent, message_id) for e in partial.finish(event)
            )
        blocks = list(message.content)
        uuids = list(event.entry_uuids) if len(event.entry_uuids) == len(blocks) else []
        # The blocks written as they closed are not written again: known by their entry's
        # uuid or by the block itself, not by their place or type (a call whose
        # input is not JSON closes only with the reply, after the calls that follow it).
        for index, block in enumerate(blocks):
            named = uuids[index] if uuids else None
            seen = next((e for e in early if (named and e[1] == named) or e[0] == block), None)
            if seen is not None:
                early.remove(seen)
                continue
            line = assistant_line(
                self.session_id,
                block_json(block),
                message_id,
                event.model or "",
                event.stop_reason,
                event.usage or Usage(),
                parent,
                event.request_id,
            )
            if uuids:
                line["uuid"] = uuids[index]  # the block's entry in the session file
            lines.append(line)
        return lines

    def goes_on_from(
        self, cost_usd: float, api_ms: int, by_model: Mapping[str, tuple[Usage, float]]
    ) -> None:
        """Results count from what a resumed session had spent before (its cost, API time and
        `modelUsage`), as Claude Code's, whose totals a resume (or a fork) restores: a local
        command's result (`/cost`) then says the session's figures, not $0."""
        self._cost_usd, self._api_ms = cost_usd, api_ms
        for model, (usage, cost) in by_model.items():
            self._spend.add(model, usage, cost, None)

    def watch_aside(self, agent: Agent) -> None:
        """Count the calls `agent` makes aside on its model in `modelUsage`, as Claude Code
        counts every request it makes."""
        self._agent = agent
        agent.aside_watchers.append(lambda u: self.spent(agent.model_id, u, agent.price(u)))

    def spent(
        self, model: str, usage: Usage, cost_usd: float, limits: Limits | None = None
    ) -> None:
        """Count a model call in `modelUsage`: a reply of the conversation or a subagent's,
        with the `limits` its call was made with, or a call made aside on the session's model
        (a compaction summary, WebSearch's search request), with the limits the session's
        agent makes its calls with."""
        if limits is None and self._agent is not None:
            limits = self._agent.call_limits()
        self._spend.add(model, usage, cost_usd, limits)

    def subagent(self, event: SubagentStarted | SubagentMessage | SubagentFinished) -> list[Line]:
        if isinstance(event, SubagentMessage):
            lines = self.completed(event.completed, parent=event.call_id)
            description = self.tasks.description(event.agent_id)
            for line in lines:
                line["agent_id"] = event.agent_id
                line["subagent_type"] = event.agent_type
                if description is not None:  # as Claude Code's: what it is for
                    line["task_description"] = description
            return lines + self.tasks.progress(event)
        if isinstance(event, SubagentStarted):
            return self.tasks.started(event)
        return self.tasks.finished(event)

    def result(self, finished: TurnFinished, facts: SessionFacts) -> Line:
        """The turn's result. As Claude Code: `usage` and `num_turns` are the turn's,
        `total_cost_usd`, `modelUsage` and `duration_api_ms` the session's so far."""
        self._cost_usd += finished.cost_usd
        self._api_ms += finished.duration_api_ms
        line = result_line(
            finished,
            facts,
            SessionSoFar(self.session_id, self._cost_usd, self._api_ms, self._spend),
            self._num_turns(finished),
            structured_answer(self._calls, self._finished),
            self._aborted,
        )
        self._results_unread = False
        self._user_messages = 0
        self._aborted = None
        self._calls.clear()
        self._finished.clear()
        return line

    def _num_turns(self, finished: TurnFinished) -> int:
        """Claude Code counts the turn's user messages: its prompt, each tool result (three
        calls in one reply are three), the mark of an interruption; a prompt a hook blocked
        is not kept, and not counted. At the turn limit it counts model calls instead, and a
        round of results left unread as one more."""
        if finished.subtype == "error_max_turns":
            return finished.num_turns + int(self._results_unread)
        if finished.subtype == "error_max_budget_usd":  # the prompt counts, as Claude Code's
            return max(1, finished.num_turns)
        if finished.num_turns == 0 and self._user_messages == 0 and not finished.api_error_status:
            return 0  # a prompt a hook blocked (a prompt the API refused counts, as Claude Code's)
        return 1 + self._user_messages

    def _result_line(self, block: ToolResultBlock, parent: str | None) -> Line:
        name, _input = self._calls.get(block.tool_use_id, ("", {}))
        finished = self._finished.get(block.tool_use_id)
        return tool_result_line(self.session_id, block, name, finished, parent)


Writer = Callable[[Line], None]
