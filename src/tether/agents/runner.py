"""Running a subagent: a child agent derived from the calling one, a loop of its own, and only
its final answer back. Nothing of its work (calls, results, events) reaches the parent's context.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Literal

from tether.agents.background import background_run, launched_text
from tether.agents.child_agent import Limits, ModelResolver, child_agent
from tether.agents.definitions import TASK_TOOL_NAME, AgentCatalog, AgentDefinition
from tether.agents.listing import agent_listing
from tether.agents.subagent_hooks import start_hooks, stop_feedback
from tether.core import turn_stop
from tether.core.gate import Asker
from tether.core.history import History
from tether.core.journal import Journal
from tether.core.lifecycle import reminder
from tether.core.loop import INTERRUPTED, Agent, PendingInput, TurnStats, run_turn
from tether.core.tool_calls import CallScope
from tether.protocol import (
    Event,
    HarnessError,
    MessageCompleted,
    Notice,
    PermissionAnswer,
    PermissionAsked,
    SubagentFinished,
    SubagentMessage,
    SubagentStarted,
    TextBlock,
    ToolError,
    TurnSubtype,
    Usage,
)
from tether.tools.base import ToolOutput
from tether.tools.context import ToolContext

DEFAULT_MAX_TURNS = 100
"""Model calls a subagent may make before it is stopped (a definition may ask for fewer)."""
_depth: ContextVar[int] = ContextVar("subagent_depth", default=0)
"""How deeply the running code is nested in subagents: 0 in the main agent."""

UsageSink = Callable[[Usage, float], None]


def _no_transcript(agent_id: str) -> Journal | None:
    return None


class SubagentRunner:
    """Runs the Task tool's subagents for one session (built once, shared by every Task call)."""

    def __init__(
        self,
        catalog: AgentCatalog,
        *,
        max_depth: int = 2,
        max_concurrent: int = 4,
        transcript_for: Callable[[str], Journal | None] = _no_transcript,
        transcript_path: Callable[[str], Path | None] = lambda _agent_id: None,
        resolve_model: ModelResolver | None = None,
        price_for: Callable[[str], Callable[[Usage], float]] | None = None,
        limits_for: Callable[[str], Limits] | None = None,
        on_usage: UsageSink | None = None,
        instructions: str = "",
        max_turns: int = DEFAULT_MAX_TURNS,
    ) -> None:
        self.catalog = catalog
        self.max_depth = max_depth
        """Levels of nesting: at this depth a subagent is not offered Task."""
        self.max_concurrent = max_concurrent
        """Subagents running at once per level of nesting; more Task calls wait for a slot.
        Per level, so that a subagent waiting for its own subagents never holds the slot
        they need."""
        self.transcript_for = transcript_for
        """Given a new agent id, where its history is written (closed at the end if it has
        `close()`), or None."""
        self.transcript_path = transcript_path
        """Given an agent id, the file `transcript_for` writes (SubagentStop hooks are told
        it, as Claude Code's `agent_transcript_path`), or None."""
        self.resolve_model = resolve_model
        """A definition's model alias to (model, model id); None runs every subagent on its
        parent's model."""
        self.price_for = price_for
        """A model id's prices (as `Agent.price`), for a subagent on another model than its
        parent's; None prices every subagent as its parent."""
        self.limits_for = limits_for
        """A model id's window and output cap, for a subagent on another model than its
        parent's; None gives every subagent its parent's."""
        self.on_usage = on_usage
        """Told of each subagent's usage and cost in USD once it ends, however it ends; by
        default the calling agent's `side_spend` (the session's cost) is."""
        self.instructions = instructions
        """The project's instructions (CLAUDE.md...), added to every subagent's prompt."""
        self.max_turns = max_turns
        self.inputs_for: Callable[[ToolContext], list[PendingInput]] | None = None
        """Given a subagent's own `ToolContext`, what it is told with its requests besides
        the conversation (`Agent.inputs`): a subdirectory's CLAUDE.md, a rule with `paths`,
        brought in by its own reads, as the main agent's reads bring them to the main agent."""
        self.observers: list[Callable[[str, Event], None]] = []
        """Told every event of every subagent it runs, with the subagent's id (the event log),
        except those passed on to the caller as they are (notices, nested subagents'), which
        the caller's observers get."""
        self._slots: dict[int, asyncio.Semaphore] = {}

    async def run(self, subagent_type: str, prompt: str, scope: CallScope) -> ToolOutput:
        """Run one subagent for the call in `scope`; its final text and a one-line summary,
        and the run as data (Claude Code's Agent result). Raises `ToolError` when it cannot
        start or does not finish."""
        definition, depth = self._definition(subagent_type)
        return await self._in_slot(definition, prompt, scope, depth, uuid.uuid4().hex[:16])

    def start_in_background(
        self, subagent_type: str, description: str, prompt: str, scope: CallScope
    ) -> ToolOutput:
        """Start one subagent beside the conversation (`run_in_background`), in the calling
        agent's background tasks; returns at once, as Claude Code's `async_launched` result.
        Its answer reaches the model as a `<task-notification>` at its next request."""
        definition, depth = self._definition(subagent_type)
        agent_id = uuid.uuid4().hex[:16]
        emit, ask = scope.agent.background_emit, scope.agent.background_ask
        if emit is not None:  # its events and questions outlive the turn that started it
            ask = ask if scope.ask is not None else None
            scope = CallScope(scope.agent, scope.call, emit, ask, scope.denials)
        work = background_run(
            self._in_slot(definition, prompt, scope, depth, agent_id, background=True),
            agent_id,
            description,
        )
        background = scope.agent.tool_context.background
        background.start_agent(agent_id, description, work, definition.name)
        return ToolOutput(
            launched_text(agent_id),
            structured={
                "isAsync": True,
                "status": "async_launched",
                "agentId": agent_id,
                "description": description,
                "prompt": prompt,
                "outputFile": str(self.transcript_path(agent_id) or ""),
            },
        )

    def _definition(self, subagent_type: str) -> tuple[AgentDefinition, int]:
        definition = self.catalog.get(subagent_type)
        if definition is None:
            available = ", ".join(self.catalog.names()) or "none"
            raise ToolError(
                f"Unknown subagent_type {subagent_type!r}. Available types: {available}."
            )
        depth = _depth.get() + 1
        if depth > self.max_depth:
            raise ToolError(f"Subagents can be nested at most {self.max_depth} deep.")
        return definition, depth

    async def _in_slot(
        self,
        definition: AgentDefinition,
        prompt: str,
        scope: CallScope,
        depth: int,
        agent_id: str,
        *,
        background: bool = False,
    ) -> ToolOutput:
        slot = self._slots.setdefault(depth, asyncio.Semaphore(self.max_concurrent))
        async with slot:
            token = _depth.set(depth)
            try:
                return await self._run(definition, prompt, scope, depth, agent_id, background)
            finally:
                _depth.reset(token)

    async def _run(
        self,
        definition: AgentDefinition,
        prompt: str,
        scope: CallScope,
        depth: int,
        agent_id: str,
        background: bool,
    ) -> ToolOutput:
        label = f"{definition.name} subagent"
        child = child_agent(
            definition,
            scope.agent,
            agent_id,
            depth,
            resolve_model=self.resolve_model,
            price_for=self.price_for,
            limits_for=self.limits_for,
            instructions=self.instructions,
            max_turns=self.max_turns,
            max_depth=self.max_depth,
        )
        if self.inputs_for is not None:
            child.inputs.extend(self.inputs_for(child.tool_context))
        journal = self.transcript_for(agent_id)
        history = History(journal=journal)
        stats = TurnStats()
        started = time.perf_counter()
        description = scope.call.input.get("description")
        scope.emit(
            SubagentStarted(
                call_id=scope.call.id,
                agent_id=agent_id,
                agent_type=definition.name,
                description=description if isinstance(description, str) else definition.name,
                prompt=prompt,
                background=background,
                output_file=str(self.transcript_path(agent_id) or ""),
            )
        )
        status: Literal["completed", "failed", "stopped"] = "stopped"
        summary = "stopped before it finished"
        stopped: list[str] = []
        try:
            try:
                # A hook's stop inside it ends its run, not the caller's turn.
                with turn_stop.watching():
                    started_hooks = await start_hooks(child, definition, agent_id, scope)
                    opening = [TextBlock(text=reminder(c)) for c in started_hooks]
                    listing = agent_listing(self.catalog)
                    if listing is not None and child.tools.get(TASK_TOOL_NAME) is not None:
                        # It may start subagents too: it is told the agent types as the
                        # session's first prompt is.
                        opening.insert(0, TextBlock(text=reminder(listing)))
                    history.add_user([TextBlock(text=prompt), *opening])
                    subtype = await self._converse(
                        child, history, stats, definition, agent_id, scope, stopped
                    )
            except HarnessError as e:
                reason = str(e).rstrip(".")
                summary = f"The {label} failed: {reason}. {_text_so_far(stats)}"
                status = "failed"
                raise ToolError(summary) from None
            finally:
                # run_turn leaves no call unanswered; this keeps the transcript valid regardless,
                # before its journal is closed.
                history.answer_unanswered(INTERRUPTED)
                _close(journal)
                if scope.denials is not None:  # counted among the turn's, as Claude Code does
                    scope.denials.extend(stats.denials)
                spent = self.on_usage or child.side_spend
                if spent is not None:
                    spent(stats.usage, stats.cost_usd)
                await child.tool_context.background.kill_all()
            if stopped:
                summary = f"The {label} was stopped: {stopped[0]}. {_text_so_far(stats)}"
                raise ToolError(summary)
            if subtype != "success":
                why = {
                    "error_max_turns": f"reached its limit of {child.max_turns} model calls",
                    "error_max_budget_usd": "ran out of the session's budget",
                }.get(subtype, subtype)
                summary = f"The {label} stopped before finishing: it {why}. {_text_so_far(stats)}"
                status = "failed"
                raise ToolError(summary)
            status, summary = "completed", _final_text(history)
        finally:
            scope.emit(
                SubagentFinished(
                    call_id=scope.call.id,
                    agent_id=agent_id,
                    status=status,
                    summary=summary,
                    usage=stats.usage,
                    tool_uses=_tool_uses(history),
                    duration_ms=int((time.perf_counter() - started) * 1000),
                )
            )
        calls = _tool_uses(history)
        usage = stats.usage
        tokens = usage.context_tokens + usage.output_tokens
        seconds = time.perf_counter() - started
        footer = (
            f"[{label}: {calls} tool call{'' if calls == 1 else 's'}, {tokens:,} tokens, "
            f"{seconds:.1f} s]"
        )
        structured = {
            "agentId": agent_id,
            "agentType": definition.name,
            "content": [{"type": "text", "text": summary}],
            "totalToolUseCount": calls,
            "totalDurationMs": int(seconds * 1000),
            "totalTokens": tokens,
            "usage": usage.model_dump(),
            "status": "completed",
            "prompt": prompt,
        }
        return ToolOutput(f"{summary}\n\n{footer}", structured=structured)

    async def _converse(
        self,
        child: Agent,
        history: History,
        stats: TurnStats,
        definition: AgentDefinition,
        agent_id: str,
        scope: CallScope,
        stopped: list[str],
    ) -> TurnSubtype:
        """The subagent's turn, continued while a SubagentStop hook sends it back to work;
        `stopped` is given why, when the user's answer to one of its questions stops it."""
        label = f"{definition.name} subagent"
        emit = _forwarded(scope, label, definition.name, agent_id, self.observers)
        ask = _asking_for(scope.ask, label, agent_id, stopped)
        subtype = await run_turn(child, history, stats, emit, ask)
        continuations = 0
        while subtype == "success" and not stopped:
            said = {
                "agent_transcript_path": str(self.transcript_path(agent_id) or ""),
                "last_assistant_message": stats.result,
            }
            feedback = await stop_feedback(child, definition, agent_id, continuations, emit, said)
            if feedback is None or turn_stop.halted():
                break  # (a hook's `continue: false` wins over a request to go on)
            turn_stop.resume()
            continuations += 1
            history.add_user([TextBlock(text=reminder(f"SubagentStop hook: {feedback}"))])
            subtype = await run_turn(child, history, stats, emit, ask)
        return subtype


def _forwarded(
    scope: CallScope,
    label: str,
    agent_type: str,
    agent_id: str,
    observers: list[Callable[[str, Event], None]],
) -> Callable[[Event], None]:
    """The subagent's events stay with it, except notices meant for the user (hook messages,
    warnings), which say whose they are, and its messages, passed on as `SubagentMessage` for
    front ends that show a subagent's work (they never enter the caller's conversation).
    Those of a subagent it started itself pass through, with this one's id as their
    `parent_agent_id` (whose Task call started it)."""
    emit = scope.emit

    def forward(event: Event) -> None:
        if not isinstance(event, _PASSED_ON):
            for observe in observers:
                observe(agent_id, event)
        if isinstance(event, Notice) and event.said_by:  # a hook's: named by the hook
            emit(event.model_copy(update={"said_by": f"{label}: {event.said_by}"}))
        elif isinstance(event, Notice):
            emit(event.model_copy(update={"message": f"{label}: {event.message}"}))
        elif isinstance(event, MessageCompleted):
            emit(
                SubagentMessage(
                    call_id=scope.call.id,
                    agent_id=agent_id,
                    agent_type=agent_type,
                    completed=event,
                )
            )
        elif isinstance(event, SubagentStarted | SubagentMessage | SubagentFinished):
            # a subagent this one started: said to be this one's, however far it goes up
            if event.parent_agent_id is None:
                event = event.model_copy(update={"parent_agent_id": agent_id})
            emit(event)

    return forward


_PASSED_ON = (Notice, SubagentStarted, SubagentMessage, SubagentFinished)
"""A subagent's events that reach its caller as events of the caller's own."""


def _tool_uses(history: History) -> int:
    return sum(len(m.tool_uses()) for m in history.messages if m.role == "assistant")


def _asking_for(ask: Asker | None, label: str, agent_id: str, stopped: list[str]) -> Asker | None:
    """The parent's way of asking the user, saying which subagent asks. An answer that stops
    the subagent ends its run once the calls under way are answered (not the caller's turn)."""
    if ask is None:
        return None

    async def asking(request: PermissionAsked) -> PermissionAnswer:
        # A call of a subagent this one started is that subagent's (the innermost asks).
        own = request.agent_id is None
        update = {"reason": f"{label}: {request.reason}", "agent_id": request.agent_id or agent_id}
        answer = await ask(request.model_copy(update=update))
        if own and answer.choice == "deny" and answer.stop and not stopped:
            stopped.append(f"the user denied {request.tool} and asked it to stop")
            turn_stop.request_stop()
        return answer

    return asking


def _final_text(history: History) -> str:
    last = history.messages[-1] if history.messages else None
    if last is not None and last.role == "assistant" and last.text().strip():
        return last.text().strip()
    return "(The subagent ended without a final answer.)"


def _text_so_far(stats: TurnStats) -> str:
    if not stats.result.strip():
        return "It wrote no text."
    return f"Its last text was:\n{stats.result.strip()}"


def _close(journal: Journal | None) -> None:
    close = getattr(journal, "close", None)
    if callable(close):
        close()
