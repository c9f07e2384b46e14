"""The agent loop: call the model, run the tools it asks for, feed results back, repeat.

Kept small on purpose. New capabilities are new tools, events or providers, never branches here.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tether.core import cut_replies, interruption, turn_stop
from tether.core.compactor import Compaction
from tether.core.gate import Asker, ToolGate
from tether.core.history import History
from tether.core.model_call import RetryPolicy
from tether.core.repeated_calls import Awaited, RepeatedFailures
from tether.core.result_context import results_with_context
from tether.core.surroundings import Surroundings
from tether.core.tool_calls import CallsStopped, PathLocks, run_calls
from tether.core.window import call_within_window
from tether.models.base import Model, ModelRequest
from tether.protocol import (
    BlockCompleted,
    ContentBlock,
    Event,
    HarnessError,
    Message,
    MessageCompleted,
    ModelRetry,
    Notice,
    PermissionDenial,
    ResponseStarted,
    StopReason,
    TextBlock,
    TextDelta,
    ToolResultBlock,
    ToolUseBlock,
    TurnSubtype,
    Usage,
)
from tether.store import ReplyEntries
from tether.tools.context import ToolContext
from tether.tools.plan import todo_reminder
from tether.tools.registry import ToolRegistry

INTERRUPTED = "Interrupted by the user; this tool call did not complete."


PendingInput = Callable[[], Sequence[TextBlock]]


@dataclass
class Agent:
    """Everything one loop needs, fixed for the session."""

    model: Model
    model_id: str
    system_prompt: str
    tools: ToolRegistry
    tool_context: ToolContext
    max_turns: int | None = None
    max_tokens: int = 16384
    thinking_budget: int | None = None
    effort: str | None = None
    """The effort level asked for (`--effort`); the model's adapter sends what it takes."""
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    gate: ToolGate | None = None
    """Permission rules and hooks; None runs every call (tests of the bare loop)."""
    compaction: Compaction | None = None
    """Context compaction; None sends the whole history every time."""
    max_budget_usd: float | None = None
    price: Callable[[Usage], float] = field(default=lambda _usage: 0.0)
    route: Callable[[], tuple[str, Callable[[Usage], float]] | None] | None = None
    """The model the next request goes to instead of `model_id`, with its price, when the
    session's model sends some elsewhere (`opusplan` in plan mode); None: `model_id`."""
    locks: PathLocks = field(default_factory=PathLocks)
    """Serialise mutating calls on the same file (shared with subagents)."""
    side_spend: Callable[[Usage, float], None] | None = None
    """Told of model calls outside the conversation (compaction summaries) and of subagents:
    their usage and cost count in the session's."""
    system_parts: tuple[tuple[str, int], ...] = ()
    """The parts of the system prompt a user can shorten (instruction files, memory, the
    skills listing), each named with its size in characters: named when the system prompt
    leaves the conversation too little of the window."""
    surroundings: Surroundings | None = None
    """CwdChanged, FileChanged and ConfigChange hooks, looked at after each batch of calls."""
    inputs: list[PendingInput] = field(default_factory=list[PendingInput])
    """Asked before every model call for what arrived meanwhile (messages the user typed while
    the agent worked, finished background commands); added to the newest user message."""
    inputs_entry: Callable[[], str | None] | None = None
    """After `inputs` were asked: the uuid their entry takes, when one of them named it (a
    queued message the REPL keeps a file checkpoint of); None: a new one."""
    waits: list[Callable[[], list[Awaited]]] = field(
        default_factory=list[Callable[[], list[Awaited]]]
    )
    """Asked after each batch of calls for what the agent waits on beside its own tools (a
    teammate at work, a reply one owes a lead): while any is awaited, the repeat guard lets
    the model poll as it does while background work runs, and a change of its state is
    headway; one whose state does not change looks hung."""

    background_emit: Callable[[Event], None] | None = None
    """Where the events of work started beside the conversation go (a subagent run in the
    background): the running turn's, else the session's watchers between turns. None: the
    calling turn's (they end with it)."""
    background_ask: Asker | None = None
    """How such work asks the user: its questions among `background_emit`'s events."""

    aside_watchers: list[Callable[[Usage], None]] = field(
        default_factory=list[Callable[[Usage], None]]
    )
    """Told of each model call made outside the conversation on this agent's model (the cost
    ledger records them)."""

    def call_limits(self) -> tuple[int, int]:
        """The context window (0: none known) and output cap this agent's calls are made
        with."""
        window = self.compaction.policy.window if self.compaction is not None else 0
        return window, self.max_tokens

    def spend_aside(self, usage: Usage) -> None:
        """Count a model call made outside the conversation (see `side_spend`)."""
        for watch in self.aside_watchers:
            watch(usage)
        if self.side_spend is not None:
            self.side_spend(usage, self.price(usage))


class TurnStats:
    """What one user turn cost; kept outside the loop so an interrupted turn still reports it."""

    def __init__(
        self, *, spent_before_usd: float = 0.0, repeats: RepeatedFailures | None = None
    ) -> None:
        self.num_turns = 0
        self.usage = Usage()
        self.cost_usd = 0.0
        """What the turn's own replies cost: the sum of each reply's price, as each is reported
        (pricing the summed usage gives another float, and a total unlike its parts)."""
        self.api_ms = 0
        self.stop_reason: StopReason | None = None
        self.result = ""
        self.denials: list[PermissionDenial] = []
        self.spent_before_usd = spent_before_usd
        """What earlier turns of the session cost, for the budget."""
        self.side_usage = Usage()
        self.side_cost_usd = 0.0
        """What subagents started in this turn used and cost (their own models' prices)."""
        self.resumed = cut_replies.Resumed()
        """How often the turn went on after a reply the model could not finish."""
        self.first_response_at: float | None = None
        """When (`time.perf_counter()`) the turn's first reply began to arrive: its time to
        first token is measured to it."""
        self.terminal_reason: str | None = None
        """A hook ended the turn (`TurnFinished.terminal_reason`)."""
        self.stopped_while_speaking = False
        """The turn was interrupted while a reply streamed (its mark says so, as Claude
        Code's)."""
        self.repeats = RepeatedFailures() if repeats is None else repeats
        """Calls failing again and replies going nowhere (`repeated_calls`): a turn that the
        end of background work woke goes on with the counts of the turn before."""

    def total_usage(self) -> Usage:
        return self.usage + self.side_usage


async def run_turn(
    agent: Agent,
    history: History,
    stats: TurnStats,
    emit: Callable[[Event], None],
    ask: Asker | None = None,
) -> TurnSubtype:
    """Run until the model ends its turn (or the turn limit). The history is valid on return and
    on every exception: each tool_use has its tool_result."""
    while True:
        interruption.check()
        if (stop := turn_stop.requested()) is not None:  # a hook's stop, a final answer
            if stop.by_hook:  # as Claude Code: said to a client by the result, no answer
                stats.terminal_reason, stats.result = "hook_stopped", ""
            if stop.said:
                emit(Notice(level="warning", message=stop.said, for_client=not stop.by_hook))
            if stop.failed is not None:
                stats.result = stop.failed[1]
                return stop.failed[0]
            return "success"
        if over_budget(agent, stats):  # spent by earlier turns or calls: stop before the next
            spent = stats.spent_before_usd + stats.side_cost_usd + stats.cost_usd
            stats.result = (
                f"Not run: the budget (${agent.max_budget_usd}) is spent; this session has "
                f"cost ${spent:.4f} so far."
            )
            return "error_max_budget_usd"
        _take_pending(agent, history, emit)
        history.stop_before_asking()
        if agent.surroundings is not None:  # an instruction file the reminders just gave
            await agent.surroundings.tell_loaded(emit)
        request = next_request(agent, history)
        started = time.perf_counter()
        spoken = _Spoken(emit)
        try:
            response = await call_within_window(agent, history, request, spoken.emit)
        except asyncio.CancelledError:
            # As Claude Code, what was said before an interruption is kept, the calls the
            # client was shown among it too (answered as interrupted, never run).
            stats.stopped_while_speaking = True
            spoken.keep(sent_to(agent)[0], history)
            raise
        took_ms = int((time.perf_counter() - started) * 1000)
        stats.api_ms += took_ms
        if stats.first_response_at is None:
            stats.first_response_at = spoken.response_began_at
        stats.num_turns += 1
        stats.usage = stats.usage + response.usage
        # The model that answered (plan mode's, or the fallback taken during the call): the
        # reply is that model's, and charged at its price.
        to, price = sent_to(agent)
        cost_usd = price(response.usage)
        stats.cost_usd += cost_usd
        stats.stop_reason = response.stop_reason
        named = ReplyEntries(
            response.block_uuids, response.message_id, response.request_id, to, took_ms
        )
        kept = history.add_assistant(response.message, response.usage, named)
        if kept is None:
            # Nothing said: a cut with nothing to go on from ends the turn saying why.
            cut_replies.nothing_said(response.stop_reason, agent.model_id, agent.max_tokens)
            return "success"
        emit(
            MessageCompleted(
                message=kept,
                entry_uuids=history.newest_entries.uuids,
                usage=response.usage,
                model=to,
                stop_reason=response.stop_reason,
                cost_usd=cost_usd,
                message_id=response.message_id,
                request_id=response.request_id,
                limits=agent.call_limits(),
            )
        )
        if kept.text():
            stats.result = kept.text()
        calls = kept.tool_uses()
        cut = cut_replies.resumption(
            response.stop_reason, bool(calls), stats.resumed, agent.model_id, agent.max_tokens
        )
        if cut is None and not calls:
            # A `pause_turn` ends the turn too, as in Claude Code: the paused message is the
            # result, and the next prompt goes on from it. As Claude Code, an answer that
            # spent past the budget ends the turn as the budget's error.
            return "error_max_budget_usd" if over_budget(agent, stats) else "success"
        if calls and cut == "refusal":
            answer_all(history, emit, "Not run: the model stopped with a refusal.")
        elif over_budget(agent, stats):
            # As Claude Code: the calls are not run and no result of them is shown; the
            # conversation still answers them (the next request needs it).
            history.answer_unanswered(f"Not run: the budget (${agent.max_budget_usd}) is spent.")
            return "error_max_budget_usd"
        elif calls:
            interruption.check()  # a stop that came as the reply ended: none of them runs
            _stop_if_unsaved(history, emit)
            await run_tools(agent, calls, history, stats, emit, ask)
        if cut is not None:  # as Claude Code: the model is told and goes on
            cut_replies.add_note(history, emit, cut, agent.model_id)
        if agent.max_turns is not None and stats.num_turns >= agent.max_turns:
            # As Claude Code: the last reply's calls have run; the model is not called again.
            return "error_max_turns"


class _Spoken:
    """What a reply streamed so far (an attempt given up and retried starts over): the blocks
    that closed, each shown to front ends as it closed, and the text of the block still open.
    Kept as the model's message when the turn is interrupted while it speaks."""

    def __init__(self, emit: Callable[[Event], None]) -> None:
        self._emit = emit
        self._closed: list[tuple[ContentBlock, str]] = []
        self._parts: list[str] = []
        self.response_began_at: float | None = None
        """When the answer's (last attempt's) response began to arrive."""

    def emit(self, event: Event) -> None:
        if isinstance(event, TextDelta):
            self._parts.append(event.text)
        elif isinstance(event, BlockCompleted):
            self._closed.append((event.block, event.entry_uuid))
            self._parts.clear()
        elif isinstance(event, ResponseStarted):
            self.response_began_at = time.perf_counter()
        elif isinstance(event, ModelRetry):
            self._closed.clear()
            self._parts.clear()
            self.response_began_at = None
        self._emit(event)

    def keep(self, model_id: str, history: History) -> None:
        blocks = [block for block, _ in self._closed]
        text = "".join(self._parts).rstrip()
        if text:
            blocks.append(TextBlock(text=text))
        if not blocks:
            return
        # The closed blocks keep the entries their lines were written with.
        named = ReplyEntries(tuple(entry for _, entry in self._closed), model=model_id)
        kept = history.add_assistant(Message(role="assistant", content=tuple(blocks)), None, named)
        if kept is not None:
            uuids = history.newest_entries.uuids
            self._emit(MessageCompleted(message=kept, entry_uuids=uuids, model=model_id))


def _take_pending(agent: Agent, history: History, emit: Callable[[Event], None]) -> None:
    """Deliver what arrived while the model or the tools worked, in the newest user message
    (when the newest message is the model's, it waits for the next call)."""
    newest = history.newest
    if not agent.inputs or newest is None or newest.role != "user":
        return
    blocks = [block for source in agent.inputs for block in source()]
    if blocks:
        history.add_user(blocks, agent.inputs_entry() if agent.inputs_entry else None)
        emit(MessageCompleted(message=Message(role="user", content=tuple(blocks))))


def sent_to(agent: Agent) -> tuple[str, Callable[[Usage], float]]:
    """The model the next request goes to, and its price (see `Agent.route`)."""
    routed = agent.route() if agent.route is not None else None
    return routed or (agent.model_id, agent.price)


def next_request(agent: Agent, history: History) -> ModelRequest:
    model_id, _ = sent_to(agent)
    history.thinking_for(model_id)  # another model's signed thinking is not sent
    return ModelRequest(
        model=model_id,
        system=agent.system_prompt,
        messages=history.view(),
        tools=agent.tools.specs(),
        max_tokens=agent.max_tokens,
        thinking_budget=agent.thinking_budget,
        effort=agent.effort,
    )


def over_budget(agent: Agent, stats: TurnStats) -> bool:
    if agent.max_budget_usd is None:
        return False
    spent = stats.spent_before_usd + stats.side_cost_usd + stats.cost_usd
    return spent >= agent.max_budget_usd


async def run_tools(
    agent: Agent,
    calls: list[ToolUseBlock],
    history: History,
    stats: TurnStats,
    emit: Callable[[Event], None],
    ask: Asker | None,
) -> None:
    seen: list[Path] = []  # the files its agents (subagents too) read or wrote meanwhile
    watchers = agent.tool_context.files.watchers
    watchers.append(seen.append)
    try:
        results = await run_calls(agent, calls, emit, ask, stats.denials, unfinished=INTERRUPTED)
    except CallsStopped as stopped:
        # A bug in a tool: said once, by the turn that it ends (`turn_failed`).
        _commit(history, stopped.results, emit)
        raise stopped.cause from None
    finally:
        watchers.remove(seen.append)
    awaited = [each for wait in agent.waits for each in wait()]  # asked once a batch
    try:
        repeated = stats.repeats.saw(
            calls,
            [result.block for result in results],
            waiting_on=_running_background(agent),
            awaited=awaited,
            cwd=agent.tool_context.shell_cwd,
            compactions=history.compactions,
            changes=agent.tool_context.files.snapshots.mark(),
            seen=seen,
        )
    except HarnessError:  # the same failing calls once too often: answered, then the end
        _commit(history, [result.block for result in results], emit)
        raise
    # What hooks said about the calls and the open plan follow the results, as reminders.
    said = [note for note in (repeated, todo_reminder(agent.tool_context.todos)) if note]
    blocks = results_with_context(results, said)
    _commit(history, blocks, emit, [result.structured for result in results])


def _running_background(agent: Agent) -> list[str]:
    """The ids of the session's background commands and subagents still running."""
    background = agent.tool_context.background
    return [*(a.id for a in background.running_agents()), *(s.id for s in background.running())]


def _commit(
    history: History,
    results: Sequence[ToolResultBlock | TextBlock],
    emit: Callable[[Event], None],
    structured: Sequence[Any] = (),
) -> None:
    """`structured`: what each tool result's call did as data, in their order (see
    `History.add_user`)."""
    if results:
        # Each result's session-file entry named here, so its line and its entry share a uuid.
        named = tuple(str(uuid.uuid4()) for b in results if isinstance(b, ToolResultBlock))
        message = history.add_user(results, result_uuids=named, structured=structured)
        emit(MessageCompleted(message=message, entry_uuids=named))


def _stop_if_unsaved(history: History, emit: Callable[[Event], None]) -> None:
    """No tool runs while the session cannot be saved: what it did (an edit, a command) would
    be lost to a resume. The turn ends with why; nothing saved before is touched."""
    problem = history.unsaved()
    if problem is None:
        return
    answer_all(history, emit, "Not run: the session could not be saved.")
    raise HarnessError(
        f"stopped before running the tools the model asked for: {problem.split('; ')[0]}. "
        f"Nothing was run. {history.how_to_go_on()}"
    )


def answer_all(history: History, emit: Callable[[Event], None], reason: str) -> None:
    """Answer every call of the newest reply not answered yet with `reason`, and say so: a
    front end shows (and a client counts) each result, as the results of calls that ran."""
    if history.answer_unanswered(reason) and (newest := history.newest) is not None:
        emit(MessageCompleted(message=newest))
