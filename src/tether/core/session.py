"""A session owns one conversation. Front ends send ops and read events; nothing else."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import cast, get_args

from tether.core import interruption, turn_stop
from tether.core.compactor import compact_on_request
from tether.core.conversation import (
    NO_API_ERROR,
    converse,
    mark_interruption,
    turn_failed,
    turn_finished,
)
from tether.core.front_end import FrontEndHooks
from tether.core.history import History
from tether.core.lifecycle import Lifecycle
from tether.core.loop import INTERRUPTED, Agent, TurnStats, answer_all, next_request
from tether.core.preparations import Preparations
from tether.core.questions import PendingAnswers
from tether.core.recording import SessionRecorder
from tether.core.repeated_calls import RepeatedFailures, woke
from tether.permissions import Mode
from tether.protocol import (
    Compact,
    Event,
    HarnessError,
    ImageBlock,
    Interrupt,
    Message,
    Notice,
    Op,
    PermissionAnswer,
    SessionStarted,
    SetModel,
    SetPermissionMode,
    Shutdown,
    TextBlock,
    ToolFinished,
    TurnStarted,
    TurnSubtype,
    Usage,
    UserInput,
)


class Session(FrontEndHooks):
    def __init__(
        self,
        agent: Agent,
        *,
        session_id: str | None = None,
        history: History | None = None,
        lifecycle: Lifecycle | None = None,
        recorder: SessionRecorder | None = None,
    ) -> None:
        super().__init__()
        self.agent = agent
        self.recorder = recorder
        """Keeps the session on disk; None keeps it in memory only."""
        self.lifecycle = lifecycle or Lifecycle()
        self._answers = PendingAnswers()
        self.on_close: list[Callable[[], Awaitable[object]]] = []
        self.on_close_last: list[Callable[[], Awaitable[object]]] = []
        """Run after `on_close`: what must find everything else of the session ended (the
        run record, which stops whatever still carries the run's marker)."""
        self.end_reason: str | None = None
        """Why `aclose` ends the session, once it does (Claude Code's SessionEnd reason):
        "clear" and "resume" mean the process goes on with another session."""
        self._preparations = Preparations()
        self.preparations = self._preparations.steps
        """Run once before the first request (connecting MCP servers), given an `emit` for
        what they have to say; see `prepare`."""
        self._interrupt_pending = False
        self.session_id = session_id or str(uuid.uuid4())
        self._history = history or History()
        if recorder is not None:
            self._history.journal = recorder
        self._task: asyncio.Task[object] | None = None
        self.usage = Usage()
        self.cost_usd = 0.0
        self.api_ms = 0
        """What the session's model calls took, together (Claude Code's total_api_duration_ms)."""
        self.earlier_wall_ms = 0
        """The wall time of the runs of the session before this process (a resumed one's):
        `/cost`'s wall time goes on from it, as Claude Code's does from its `lastDuration`.
        Each reply in the session file carries the wall time by then (`wall_ms`); a file
        without it gives its model calls' time, which its runs' wall time was at least."""
        self.run_started = time.monotonic()
        """When this run of the session began, as `time.monotonic` (a front end that started
        before the session was made sets its own start, as `/cost`'s wall time counts it)."""
        if recorder is not None:
            recorder.session_wall_ms = self.wall_ms
        self.earlier_by_model: dict[str, tuple[Usage, float]] = {}
        """What the runs before this process spent by model (a resumed session's usage and
        cost of each): Claude Code's `modelUsage` goes on from it."""
        self.lines_added = 0
        self.lines_removed = 0
        """The lines the session's file edits added and removed (Claude Code's cost totals)."""
        self._steering: list[str] = []
        agent.side_spend = self.add_spend
        self._stats: TurnStats | None = None
        self._repeats: RepeatedFailures | None = None
        """The repeat guard's counts of the latest turn."""
        self._interrupted = "interrupted by the user"
        self._stop = interruption.StopAsked()
        """The running turn's stop, once asked: read before each model call and tool call."""
        self._began = False
        """Whether the running turn's task has begun (a task cancelled before it begins
        never runs its own ending: no `TurnFinished`)."""
        self._prompt_kept = False
        """Whether the running turn's prompt is in the history (an interruption is marked then)."""
        agent.inputs.append(self._take_steering)
        agent.inputs_entry = self._steering_entry
        self.on_delivered: Callable[[str], str] | None = None
        """Called as queued messages reach the model, with their text: the uuid their entry
        takes (the REPL keeps a checkpoint of the files under it, as of a typed message)."""
        self._delivered: str | None = None
        self._turn_emit: Callable[[Event], None] | None = None
        """The running turn's events, until its last has gone out."""
        agent.background_emit = self._emit_beside
        agent.background_ask = self._answers.asker(self._emit_beside)

    def wall_ms(self) -> int:
        """The session's wall time so far: this run's, and its earlier runs' before it."""
        return self.earlier_wall_ms + round((time.monotonic() - self.run_started) * 1000)

    @property
    def looped(self) -> bool:
        """The repeat guard ended the latest turn (the end of background work it started
        wakes no turn then: a chain of jobs each starting the next ends there)."""
        return self._repeats is not None and self._repeats.stopped

    @property
    def messages(self) -> tuple[Message, ...]:
        return self._history.messages

    @property
    def sent_messages(self) -> tuple[Message, ...]:
        """What the next request sends of the conversation (a compaction's summary)."""
        return self._history.view()

    @property
    def last_usage(self) -> Usage | None:
        """What the last request measured (None before the first, and after a compaction)."""
        return self._history.last_usage

    @property
    def context_tokens(self) -> int:
        """What the conversation fills of the model's window now: the last request's input and
        its answer; after a compaction (no request since), what the next one sends, estimated
        (the summary and the messages kept, the system prompt and tools); 0 before the first."""
        history = self._history
        usage = history.last_usage
        if usage is None:
            return history.sizer.estimate(history.view()) if history.messages else 0
        return usage.context_tokens + usage.output_tokens

    @property
    def preparing(self) -> bool:
        """Whether the preparations run (MCP servers connecting)."""
        return self._preparations.running

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def started(self) -> SessionStarted:
        return SessionStarted(
            session_id=self.session_id,
            model=self.agent.model_id,
            cwd=str(self.agent.tool_context.workspace),
            tools=self.agent.tools.names(),
        )

    async def submit(self, op: Op) -> AsyncIterator[Event]:
        """Apply one op; a `UserInput` yields the turn's events, ending with `TurnFinished`."""
        if isinstance(op, UserInput):
            async for event in self._run(op):
                yield event
        elif isinstance(op, Interrupt):
            self.interrupt()
        elif isinstance(op, PermissionAnswer):
            self.answer(op)
        elif isinstance(op, SetPermissionMode):
            self.set_permission_mode(op.mode)
        elif isinstance(op, SetModel):
            if self.switch_model is None:
                raise HarnessError("this session cannot switch models")
            self.switch_model(op.model)
        elif isinstance(op, Compact):
            async for event in self._compact(op.focus, op.at, op.part):
                yield event
        elif isinstance(op, Shutdown):  # pyright: ignore[reportUnnecessaryIsInstance]
            for news in await self.aclose():
                yield Notice(level="warning", message=news)

    def set_permission_mode(self, mode: str) -> None:
        """Switch the permission mode for the calls that follow; an unknown one is refused."""
        modes = get_args(Mode)
        if mode not in modes:
            raise HarnessError(f"unknown permission mode {mode!r} (expected {', '.join(modes)})")
        if self.agent.gate is not None:
            self.agent.gate.set_mode(cast(Mode, mode))

    async def prepare(self) -> list[Event]:
        """Run the preparations, once, however many callers ask (a front end may start them
        early, while the user types; the first turn waits for them). Their events go to the
        first caller only."""
        return await self._preparations.run_once()

    def answer(self, answer: PermissionAnswer) -> None:
        """Resolve a pending `PermissionAsked`; unknown or stale ids are ignored."""
        self._answers.answer(answer)

    async def begin(self) -> list[Event]:
        """Fire SessionStart now, not at the first prompt (a REPL's session starts when it is
        on screen); what it says, for the front end to show. Its context waits for the first
        prompt."""
        events: list[Event] = []
        await self.lifecycle.start(events.append)
        return events

    async def aclose(self, reason: str = "other") -> list[str]:
        """Stop any running turn, fire SessionEnd (with Claude Code's `reason`: "clear",
        "resume", "prompt_input_exit", "other"...) and release the model's connections.
        Returns what the user should still hear, with no event left to carry it (the
        session file's last news: entries that could not be saved are lost)."""
        self.end_reason = reason
        self.interrupt()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
        await self._preparations.aclose()  # a server still connecting is not waited for
        await self.lifecycle.on_end(reason)
        failed: Exception | None = None
        for finish in (*self.on_close, *self.on_close_last):  # each, whatever one did before
            try:
                await finish()
            except Exception as e:
                failed = failed or e
        last_news: list[str] = []
        if self.recorder is not None:
            self.recorder.close()
            last_news = self.recorder.take_notices()
        close = getattr(self.agent.model, "aclose", None)
        if close is not None:
            await close()
        if failed is not None:
            raise failed
        return last_news

    def add_spend(self, usage: Usage, cost_usd: float) -> None:
        """Count what a subagent or a compaction summary used: in the running turn (its
        result and budget), or in the session's totals when no turn runs. The session file
        keeps it, so that a resumed session counts it too."""
        if self.recorder is not None:
            self.recorder.spent(usage, cost_usd)
        if self._stats is not None:
            self._stats.side_usage = self._stats.side_usage + usage
            self._stats.side_cost_usd += cost_usd
        else:
            self.usage = self.usage + usage
            self.cost_usd += cost_usd

    def steer(self, text: str) -> None:
        """Queue a message typed while the agent works; the model reads it at its next call.
        When no turn is running, it waits for the next one."""
        if text.strip():
            self._steering.append(text)

    @property
    def queued(self) -> tuple[str, ...]:
        """Steering messages not yet delivered."""
        return tuple(self._steering)

    def take_queued(self) -> list[str]:
        """Take back the steering messages the model has not read (the turn ended first)."""
        taken, self._steering = self._steering, []
        return taken

    def _take_steering(self) -> list[TextBlock]:
        taken = self.take_queued()
        if taken and self.on_delivered is not None:
            self._delivered = self.on_delivered("\n".join(taken))
        return [TextBlock(text=text) for text in taken]

    def _steering_entry(self) -> str | None:
        entry, self._delivered = self._delivered, None
        return entry

    def interrupt(self, reason: str = "interrupted by the user") -> None:
        """Cancel the running turn: stream and tools stop; pending calls are answered, and the
        turn finishes with `reason` as its error."""
        if self.preparing:
            self._interrupted = reason
            self._preparations.cancel()
            # The turn waiting for the preparations stops as soon as it starts.
            self._interrupt_pending = not self.busy
        if self._task is None or self._task.done():
            return
        if self._stop.reason is None:  # the first stop names the turn's end
            self._stop.reason = self._interrupted = reason
        if not self._began:
            return  # it stops as soon as it begins (`interruption.check`)
        # Every time: a cancellation an await swallowed is sent again (a second Ctrl+C is
        # never ignored). The calls' cleanup is not cut short by it: `run_calls` stops them
        # once, and a command's group is stopped whatever cancellation comes meanwhile.
        self._task.cancel()

    def interrupt_next_turn(self, reason: str) -> None:
        """Interrupt the running turn, or, when none runs yet, the next one as soon as it
        starts: a signal to stop that came before the turn did is not lost."""
        if self.busy or self.preparing:
            self.interrupt(reason)
        else:
            self._interrupted = reason
            self._interrupt_pending = True

    async def _run(self, prompt: UserInput) -> AsyncIterator[Event]:
        if self.busy:
            raise HarnessError("a turn is already running in this session")
        queue: asyncio.Queue[Event | None] = asyncio.Queue()

        def emit(event: Event | None) -> None:
            if event is None:
                self._tell_recording(emit)
                self._turn_emit = None  # what comes later is between turns
            queue.put_nowait(event)
            if event is not None:
                for observe in self.observers:
                    observe(event)
                self._tell_recording(emit)

        self._stop = interruption.StopAsked()
        self._began = False
        self._turn_emit = emit
        self._task = asyncio.create_task(self._work(prompt, emit))
        try:
            while (event := await queue.get()) is not None:
                yield event
        finally:
            if not self._task.done():
                self._task.cancel()
                await asyncio.gather(self._task, return_exceptions=True)

    async def _compact(
        self, focus: str | None, at: int | None = None, part: str = "before"
    ) -> AsyncIterator[Event]:
        """Compact now; `interrupt()` cancels it (the history stays whole)."""
        if self.busy:
            raise HarnessError("cannot compact while a turn is running")
        if self.agent.compaction is None:
            yield Notice(level="warning", message="compaction is not configured")
            return
        self._stop = interruption.StopAsked()
        self._began = True
        task = self._task = asyncio.create_task(
            compact_on_request(
                self.agent,
                self._history,
                next_request(self.agent, self._history),
                focus,
                at=at,
                part=part,
            )
        )
        try:
            events, done = await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
            yield Notice(level="warning", message="compaction interrupted")
            return
        self._tell_recording(events.append)
        for event in events:
            for observe in self.observers:  # a compaction asked for is seen as any
                observe(event)
            yield event
        if not done and not events:
            yield Notice(message="nothing to compact yet: the conversation is short")

    def _emit_beside(self, event: Event | None) -> None:
        """An event of work running beside the conversation (a background subagent): among
        the running turn's, else told to `between_turns` (and the observers)."""
        if event is None:  # (only a turn ends)
            return
        if self._turn_emit is not None:
            self._turn_emit(event)
            return
        for observe in self.observers:
            observe(event)
        for watch in self.between_turns:
            watch(event)

    def _tell_recording(self, emit: Callable[[Event], None]) -> None:
        """What happened to the session file (saving failed, saving again, the file removed
        or replaced), said as soon as an event goes out after it."""
        if self.recorder is not None:
            for notice in self.recorder.take_notices():
                emit(Notice(level="warning", message=notice))

    def _kept(self) -> None:
        self._prompt_kept = True
        for kept in self.prompt_kept:
            kept()

    def _withdrawn(self) -> None:
        self._prompt_kept = False
        self.prompt_withdrawn = True

    async def _work(self, prompt: UserInput, given: Callable[[Event | None], None]) -> None:
        def emit(event: Event | None) -> None:
            if isinstance(event, ToolFinished):
                added, removed = event.lines_changed()
                self.lines_added += added
                self.lines_removed += removed
            given(event)

        self._began = True
        text = prompt.text
        self._prompt_kept = self.prompt_withdrawn = False
        started = time.perf_counter()
        # Background work's end wakes the model between the user's turns: what that turn does
        # counts with the turn before's (a chain of jobs each starting the next, a model
        # that polls across wakes, are bounded as one turn).
        woken = self._repeats if self._repeats is not None and woke(text) else None
        stats = self._stats = TurnStats(spent_before_usd=self.cost_usd, repeats=woken)
        self._repeats = stats.repeats
        subtype: TurnSubtype = "error_during_execution"
        error: str | None = None
        api_error = NO_API_ERROR
        emit(TurnStarted(prompt=text))
        try:
            for event in await self.prepare():
                emit(event)
            if self._interrupt_pending:
                self._interrupt_pending = False
                raise asyncio.CancelledError  # interrupted while it waited for them
            if not text.strip() and not any(isinstance(b, ImageBlock) for b in prompt.content):
                raise HarnessError("the prompt is empty")
            with turn_stop.watching(), interruption.watching(self._stop):
                interruption.check()  # asked before the task began
                subtype = await converse(
                    self.agent,
                    self._history,
                    self.lifecycle,
                    prompt,
                    stats,
                    emit,
                    ask=self._answers.asker(emit) if self.can_ask else None,
                    listings=self.listings,
                    answer_checks=self.answer_checks,
                    kept=self._kept,
                    withdrawn=self._withdrawn,
                )
        except asyncio.CancelledError:
            error = self._interrupted
            if self._prompt_kept:
                mark_interruption(self._history, emit, while_speaking=stats.stopped_while_speaking)
        except Exception as e:
            error, api_error = await turn_failed(e, self.lifecycle, stats, emit)
        finally:
            answer_all(self._history, emit, INTERRUPTED)
            if self._prompt_kept and self.recorder is not None:
                self.recorder.prompt_answered(text)
            if self.agent.gate is not None:
                self.agent.gate.end_turn()
            self._tell_recording(emit)  # before the turn's end: a client reads up to it
            self._stats = None
            usage = stats.total_usage()
            self.usage = self.usage + usage
            cost = stats.cost_usd + stats.side_cost_usd
            self.cost_usd += cost
            self.api_ms += stats.api_ms
            emit(
                turn_finished(
                    stats, subtype, error, api_error, usage=usage, cost_usd=cost, started=started
                )
            )
            emit(None)
