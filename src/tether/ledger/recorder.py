"""`LedgerRecorder`: a session's events written into the ledger as they are emitted.

An observer of the session (`Session.observers`): every model call of the session and of its
subagents (their `SubagentMessage`s), every tool call with its cost (see `meter.py`), each
subagent, under the session's id and, for a worker, its task's id. What results cost in later
requests is written at each turn's end and within a long turn (`FLUSH_EVERY`) (a process killed
meanwhile loses that part of their cost, never a model call). Each event becomes a `Change`
(statements and rows) handed to a `LedgerWriter`, which writes it from its own thread: the
session's loop never waits for the file or another process's lock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime

from tether.ledger.meter import Charged, Charges, ConversationMeter, Rates
from tether.ledger.writer import Change, LedgerWriter, Statement
from tether.protocol import (
    ContextCompacted,
    Event,
    Message,
    MessageCompleted,
    SubagentFinished,
    SubagentMessage,
    SubagentStarted,
    TextBlock,
    ToolFinished,
    ToolResultBlock,
    TurnFinished,
    TurnStarted,
    Usage,
)

FLUSH_EVERY = 64
"""Model calls between two writes of what earlier results cost in them, at the least; each
write updates every result of the conversation, so the gap grows with it (half the calls so
far): a long turn's writes cost O(1) a call, not O(calls). A turn's end and closing write
them too."""

RatesFor = Callable[[str], Rates]
"""A model id's prices (zero when unknown)."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class LedgerRecorder:
    """Records one session (`agent_id` its own agent: "main", or a teammate's name)."""

    def __init__(
        self,
        writer: LedgerWriter,
        *,
        session_id: str,
        rates_for: RatesFor,
        task_id: str | None = None,
        agent_id: str = "main",
        team: str | None = None,
        project: str | None = None,
    ) -> None:
        self.writer = writer
        self.session_id, self.task_id, self.agent_id = session_id, task_id, agent_id
        self.team = team
        """The team the session works for (its task ids and member names are the team's)."""
        self.project = _storable(project) if project is not None else None
        """The project's directory (a task worktree's project, not the worktree)."""
        self._rates_for = rates_for
        self._meters: dict[str, ConversationMeter] = {}
        self._durations: dict[str, int] = {}
        self._calls = 0
        self._next_charges = FLUSH_EVERY
        self._finished: list[tuple[object, ...]] = []
        """How the calls whose results came since the last write ended."""

    @property
    def failed(self) -> str | None:
        """Why recording stopped, once it has (the writer's)."""
        return self.writer.failed

    def started(self, model: str, cwd: str, messages: Sequence[Message] = ()) -> None:
        """The session's own row (kept from the first start when it is resumed), and the
        conversation it resumes (its results go on costing in the requests to come)."""
        meter = self._meter(self.agent_id)
        for message in messages:
            meter.add(message)
        self._submit(
            (
                "INSERT OR IGNORE INTO sessions (session_id, started_at, model, cwd, task_id, "
                "team, project) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        self.session_id,
                        now(),
                        model,
                        _storable(cwd),
                        self.task_id,
                        self.team,
                        self.project,
                    )
                ],
            )
        )

    def observe(self, event: Event) -> None:
        """Record what `event` says; anything else is ignored."""
        if self.failed is not None:
            return
        match event:
            case MessageCompleted():
                self._message(self.agent_id, event)
            case SubagentMessage(agent_id=agent_id, completed=completed):
                self._message(agent_id, completed)
            case ToolFinished(call_id=call_id, duration_ms=duration_ms):
                self._durations[call_id] = duration_ms
            case TurnStarted(prompt=prompt):  # the prompt enters the history without an event
                self._meter(self.agent_id).add(_prompt(prompt))
            case TurnFinished():
                self.flush()
            case ContextCompacted():  # without the history: `compacted` is told it
                self._meter(self.agent_id).compacted()
            case SubagentStarted():
                self._meter(event.agent_id).add(_prompt(event.prompt))
                self._submit(
                    (
                        "INSERT OR IGNORE INTO subagents VALUES (?, ?, ?, ?, ?, ?, NULL, NULL)",
                        [
                            (
                                self.session_id,
                                event.agent_id,
                                event.call_id,
                                event.agent_type,
                                now(),
                                self.task_id,
                            )
                        ],
                    )
                )
            case SubagentFinished():
                self._submit(
                    (
                        "UPDATE subagents SET status = ?, duration_ms = ? "
                        "WHERE session_id = ? AND agent_id = ?",
                        [(event.status, event.duration_ms, self.session_id, event.agent_id)],
                    )
                )
            case _:
                pass

    def compacted(self, messages: Sequence[Message]) -> None:
        """The session's conversation was compacted into `messages` (the summary, and what
        it kept whole): the results kept go on costing, the others no longer do."""
        meter = self._meter(self.agent_id)
        meter.compacted()
        for message in messages:
            meter.add(message)

    def aside(self, model: str, usage: Usage) -> None:
        """A model call outside the conversation (a compaction's summary, a hook's judge):
        priced as any, no tool call its own."""
        charged = ConversationMeter().reply(
            Message(role="assistant", content=()), usage, self._rates_for(model)
        )
        self._charge(self.agent_id, model, charged)

    def _meter(self, agent_id: str) -> ConversationMeter:
        meter = self._meters.get(agent_id)
        if meter is None:
            meter = self._meters[agent_id] = ConversationMeter()
        return meter

    def _message(self, agent_id: str, event: MessageCompleted) -> None:
        meter = self._meter(agent_id)
        message = event.message
        if message.role == "assistant" and event.usage is not None:
            model = event.model or "unknown"
            charged = meter.reply(message, event.usage, self._rates_for(model))
            self._charge(agent_id, model, charged)
            return
        meter.add(message)
        # Written with the next model call or flush: one transaction fewer a turn.
        self._finished.extend(
            (
                int(b.is_error),
                self._durations.pop(b.tool_use_id, 0),
                self.session_id,
                agent_id,
                b.tool_use_id,
            )
            for b in message.content
            if isinstance(b, ToolResultBlock)
        )

    def _finished_statements(self) -> list[Statement]:
        if not self._finished:
            return []
        finished, self._finished = self._finished, []
        return [
            (
                "UPDATE tool_calls SET is_error = ?, duration_ms = ? "
                "WHERE session_id = ? AND agent_id = ? AND call_id = ?",
                finished,
            )
        ]

    def _charge(self, agent_id: str, model: str, charged: Charged) -> None:
        statements = self._finished_statements()
        at = now()
        usage, prompt = charged.usage, charged.prompt
        statements.append(
            (
                "INSERT INTO model_calls (at, session_id, agent_id, task_id, team, project, "
                "model, input_tokens, cache_read_tokens, cache_write_tokens, output_tokens, "
                "input_cost, cache_read_cost, cache_write_cost, output_cost, cost, cache_reads, "
                "possible_saving) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        at,
                        self.session_id,
                        agent_id,
                        self.task_id,
                        self.team,
                        self.project,
                        model,
                        usage.input_tokens,
                        usage.cache_read_input_tokens,
                        usage.cache_creation_input_tokens,
                        usage.output_tokens,
                        prompt.input_cost,
                        prompt.cache_read_cost,
                        prompt.cache_write_cost,
                        charged.output_cost,
                        charged.cost,
                        charged.cache_reads,
                        charged.possible_saving,
                    )
                ],
            )
        )
        self._calls += 1
        if self._calls >= self._next_charges:
            self._next_charges = self._calls + max(FLUSH_EVERY, self._calls // 2)
            statements.extend(self._charges())
        if charged.asked:
            statements.append(
                (
                    "INSERT OR IGNORE INTO tool_calls (session_id, call_id, at, agent_id, "
                    "task_id, tool, model, output_tokens, output_cost) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (
                            self.session_id,
                            a.call_id,
                            at,
                            agent_id,
                            self.task_id,
                            a.tool,
                            model,
                            a.output_tokens,
                            a.output_cost,
                        )
                        for a in charged.asked
                    ],
                )
            )
        self._submit(*statements, model_calls=1)

    def _charges(self) -> list[Statement]:
        """What results cost in the requests since the last time, and how calls ended."""
        statements = self._finished_statements()
        charges = [(agent_id, meter.take()) for agent_id, meter in self._meters.items()]
        charges = [(agent_id, c) for agent_id, c in charges if not c.empty]
        if charges:  # priced by the writer's thread, as it writes them: never on the loop
            statements.append((_ADD_CHARGES, _ChargeRows(self.session_id, charges)))
        return statements

    def flush(self) -> None:
        """Write what the results cost so far (at the end of each turn, and when closing)."""
        statements = self._charges()
        if statements:
            self._submit(*statements)

    def _submit(self, *statements: Statement, model_calls: int = 0) -> None:
        if self.writer.failed is None:
            self.writer.submit(Change(statements, model_calls))

    def close(self) -> None:
        """The session ended: what its results cost so far is queued (the writer, the
        process's, writes it; its owner closes it)."""
        self.flush()


_ADD_CHARGES = (
    "UPDATE tool_calls SET input_tokens = input_tokens + ?, "
    "cache_read_tokens = cache_read_tokens + ?, "
    "cache_write_tokens = cache_write_tokens + ?, input_cost = input_cost + ?, "
    "cache_read_cost = cache_read_cost + ?, cache_write_cost = cache_write_cost + ? "
    "WHERE session_id = ? AND agent_id = ? AND call_id = ?"
)


class _ChargeRows:
    """The rows of `_ADD_CHARGES`, made when first read (in the writer's thread: a pass over
    every result of the conversation), then kept (a locked ledger's retry reads them again)."""

    def __init__(self, session_id: str, charges: list[tuple[str, Charges]]) -> None:
        self._session_id = session_id
        self._charges = charges
        self._rows: list[tuple[object, ...]] | None = None

    def __iter__(self) -> Iterator[tuple[object, ...]]:
        if self._rows is None:
            self._rows = [
                (
                    b.input_tokens,
                    b.cache_read_tokens,
                    b.cache_write_tokens,
                    b.input_cost,
                    b.cache_read_cost,
                    b.cache_write_cost,
                    self._session_id,
                    agent_id,
                    call_id,
                )
                for agent_id, charges in self._charges
                for call_id, b in charges.billed().items()
            ]
        return iter(self._rows)


def _prompt(text: str) -> Message:
    return Message(role="user", content=(TextBlock(text=text),))


def _storable(text: str) -> str:
    """`text` as SQLite can keep it: a name that is not UTF-8 (kept in Python as surrogates)
    with its bytes shown as escapes, as tether shows such names."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
