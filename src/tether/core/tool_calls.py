"""Tool calls, from permission to result: gate, run, post-hooks, events. All calls of one
response start together; a mutating call waits only for others on the same path."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from tether.core import interruption
from tether.core.gate import Approval, Asker
from tether.protocol import (
    Event,
    PermissionAnswer,
    PermissionAsked,
    PermissionDenial,
    ToolError,
    ToolFinished,
    ToolResultBlock,
    ToolStarted,
    ToolUseBlock,
)
from tether.slotted import Slotted, replaced
from tether.tools.context import approved_call
from tether.tools.user_changes import told_user_modified

if TYPE_CHECKING:
    from tether.core.loop import Agent


class CallScope(Slotted):
    """What a running tool may reach beyond its input: the agent that called it and the
    channels to the user. Tools that compose the loop (subagents) read it; others need not."""

    __slots__ = ("agent", "ask", "call", "denials", "emit")
    agent: Final[Agent]
    call: Final[ToolUseBlock]
    emit: Final[Callable[[Event], None]]
    ask: Final[Asker | None]
    denials: Final[list[PermissionDenial] | None]
    """The calling turn's denials: a subagent's are added to them."""

    def __init__(
        self,
        agent: Agent,
        call: ToolUseBlock,
        emit: Callable[[Event], None],
        ask: Asker | None,
        denials: list[PermissionDenial] | None = None,
    ) -> None:
        self.agent = agent
        self.call = call
        self.emit = emit
        self.ask = ask
        self.denials = denials


current_call: ContextVar[CallScope | None] = ContextVar("current_call", default=None)


class PathLocks(Slotted):
    """One lock per resolved path: mutating calls on the same file run one after another.
    A lock lives while some call holds or waits for it."""

    __slots__ = ("_locks",)
    _locks: dict[Path, tuple[asyncio.Lock, int]]

    def __init__(self, _locks: dict[Path, tuple[asyncio.Lock, int]] | None = None) -> None:
        self._locks = {} if _locks is None else _locks

    @contextlib.asynccontextmanager
    async def hold(self, path: Path | None) -> AsyncGenerator[None]:
        if path is None:
            yield
            return
        lock, users = self._locks.get(path, (asyncio.Lock(), 0))
        self._locks[path] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[path]
            if users == 1:
                del self._locks[path]
            else:
                self._locks[path] = (lock, users - 1)


class CallResult(Slotted):
    """One call answered: the result the model reads, and what hooks said about it for the
    model (their `additionalContext`): PreToolUse's and PostToolBatch's (`context`) beside
    the result, PostToolUse's (`after`) in it or beside it (see `result_context`)."""

    __slots__ = ("after", "block", "context", "ran", "structured")
    block: Final[ToolResultBlock]
    context: Final[tuple[str, ...]]
    after: Final[tuple[str, ...]]
    """What the PostToolUse / PostToolUseFailure hooks of the call said for the model."""
    ran: Final[ToolUseBlock | None]
    """The call as approved and run (paths absolute, a hook's `updatedInput`), for the
    batch's hooks; None when it never got that far."""
    structured: Final[Any]
    """What the call did as data (the outcome's, Claude Code's `toolUseResult`: an edit's
    `structuredPatch`), for the session file; None: the result's text stands for it."""

    def __init__(
        self,
        block: ToolResultBlock,
        context: tuple[str, ...] = (),
        ran: ToolUseBlock | None = None,
        structured: Any = None,
        after: tuple[str, ...] = (),
    ) -> None:
        self.block = block
        self.context = context
        self.ran = ran
        self.structured = structured
        self.after = after


async def run_calls(
    agent: Agent,
    calls: Sequence[ToolUseBlock],
    emit: Callable[[Event], None],
    ask: Asker | None,
    denials: list[PermissionDenial],
    *,
    unfinished: str,
) -> list[CallResult]:
    """Run every call concurrently; results come back in call order, then the batch's hooks
    (PostToolBatch) are told them all. When cancelled, or when
    one call fails with a bug, the others are stopped and the returned exception carries the
    results so far: see `CallsStopped`."""
    ask = _one_at_a_time(ask)
    tasks = [asyncio.create_task(run_call(agent, c, emit, ask, denials)) for c in calls]
    try:
        await _all_or_first_failure(tasks)
        results = [task.result() for task in tasks]
    except BaseException as e:
        # Each call is cancelled once: one cancelled on its own may still be stopping its
        # command, and cancelling it again would cut that short.
        for task in tasks:
            if not task.done() and not task.cancelling():
                task.cancel()
        await _settled(tasks)
        results = [
            t.result().block
            if t.done() and not t.cancelled() and t.exception() is None
            else ToolResultBlock(tool_use_id=c.id, content=unfinished, is_error=True)
            for t, c in zip(tasks, calls, strict=True)
        ]
        raise CallsStopped(results, e) from e
    if agent.surroundings is not None:
        await agent.surroundings.look(emit)
    if agent.gate is None or not results:
        return results
    # PostToolBatch: once the whole batch is answered; what its hooks say for the model
    # follows the last result, with the calls' own notes.
    ran = [r.ran or call for r, call in zip(results, calls, strict=True)]
    said = await agent.gate.after_batch(ran, [r.block for r in results], emit)
    last = results[-1]
    return [*results[:-1], replaced(last, context=(*last.context, *said))] if said else results


async def _all_or_first_failure(tasks: Sequence[asyncio.Task[CallResult]]) -> None:
    """Wait for every call; raise as soon as one fails or is cancelled. Unlike `gather`, a
    cancellation of the waiting task is not passed on to the calls, again at each further
    cancellation (Ctrl+C pressed twice) while they stop: `run_calls` stops them, once."""
    pending: set[asyncio.Task[CallResult]] = set(tasks)
    while pending:
        done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            if task.cancelled():
                raise asyncio.CancelledError
            if (error := task.exception()) is not None:
                raise error


async def _settled(tasks: Sequence[asyncio.Task[CallResult]]) -> None:
    """Wait until every task has finished stopping (a command ended, its process reaped).
    A further cancellation meanwhile must not cut that short, as it would with `gather`, which
    cancels the tasks' own cleanup again and leaves commands running after the turn."""
    pending = {task for task in tasks if not task.done()}
    while pending:
        with contextlib.suppress(asyncio.CancelledError):  # already stopping
            await asyncio.wait(pending)
        pending = {task for task in pending if not task.done()}


class CallsStopped(Exception):
    """Tool calls stopped early (`cause`: a cancellation or a bug); `results` answers each call."""

    def __init__(self, results: list[ToolResultBlock], cause: BaseException) -> None:
        super().__init__(repr(cause))
        self.results = results
        self.cause = cause


async def run_call(
    agent: Agent,
    call: ToolUseBlock,
    emit: Callable[[Event], None],
    ask: Asker | None,
    denials: list[PermissionDenial],
) -> CallResult:
    """Check, authorize and run one call; a call that could not run (an unknown tool, invalid
    arguments, a failed precondition) and a denial become error results the model reads."""
    call = agent.tools.resolve(call)
    emit(ToolStarted(call_id=call.id, name=call.name, input=call.input))
    # Nobody is asked to approve a call that cannot happen: its tool and arguments are checked
    # first, the tool's own preconditions (the file was read) once the rules leave a question
    # (a denied call is told it is denied, not what its file holds).
    invalid = agent.tools.check(call, agent.tool_context, preconditions=False)
    gate = agent.gate
    if invalid is not None:
        # A tool the rules hide (or a mode withholds) is told as denied, with the rule, rather
        # than as unknown: the model learns why, and the denial is reported like any other.
        # (Through the whole gate, so its PreToolUse hooks see the call, as before any check.)
        if gate is not None and agent.tools.get(call.name) is None and gate.denies(call):
            return _refused(call, await gate.authorize(call, emit, ask), emit, denials)
        emit(ToolFinished(call_id=call.id, name=call.name, content=invalid.content, is_error=True))
        block = ToolResultBlock(tool_use_id=call.id, content=invalid.content, is_error=True)
        return CallResult(block)

    def could_not_run(tool_input: dict[str, Any]) -> str | None:
        checked = call.model_copy(update={"input": tool_input})
        outcome = agent.tools.check(checked, agent.tool_context)
        return outcome.content if outcome is not None else None

    if gate is not None:
        # Hooks, rules and the user judge the paths the call will touch, made absolute once
        # here; the history keeps the model's call as it wrote it.
        observed = agent.tools.observed_input(call, agent.tool_context)
        approval = await gate.authorize(
            call.model_copy(update={"input": observed}), emit, ask, precheck=could_not_run
        )
    else:
        approval = Approval(True, dict(call.input))
    # The user may have said stop while the call waited for its answer (Ctrl+C at the question
    # answers no and stops the turn at once): the call was interrupted, not refused.
    interruption.check()
    if not approval.allowed:
        return _refused(call, approval, emit, denials)
    if approval.tool_input != call.input:
        call = call.model_copy(update={"input": approval.tool_input})
    token = current_call.set(CallScope(agent, call, emit, ask, denials))
    try:
        # What the gate approved, the tool does (an approved write outside the workspace).
        approved = approved_call() if gate is not None else contextlib.nullcontext()
        async with agent.locks.hold(_mutated_path(agent, call)):
            with approved:
                outcome = await agent.tools.run(call, agent.tool_context)
    finally:
        current_call.reset(token)
    if approval.user_modified:
        outcome = told_user_modified(call.name, outcome)
    after: tuple[str, ...] = ()
    if gate is not None:
        outcome, after = await gate.after(call, outcome, emit)
    emit(
        ToolFinished(
            call_id=call.id,
            name=call.name,
            content=outcome.content,
            is_error=outcome.is_error,
            diff=outcome.diff,
            duration_ms=outcome.duration_ms,
            structured=outcome.structured,
        )
    )
    block = ToolResultBlock(
        tool_use_id=call.id,
        content=outcome.content,
        is_error=outcome.is_error,
        images=outcome.images,
    )
    structured = None if outcome.is_error else outcome.structured
    return CallResult(block, approval.context, call, structured, (*approval.stopped, *after))


def _mutated_path(agent: Agent, call: ToolUseBlock) -> Path | None:
    """The file a mutating file tool changes; None for read-only tools and for Bash, whose
    commands run side by side in their own process groups."""
    tool = agent.tools.get(call.name)
    path = call.input.get("file_path")
    if tool is None or tool.read_only or not isinstance(path, str):
        return None
    try:
        return agent.tool_context.resolve(path)
    except (ToolError, OSError, RuntimeError):
        return None  # the tool itself reports the bad path


def _one_at_a_time(ask: Asker | None) -> Asker | None:
    """Calls run together but the user answers one question at a time."""
    if ask is None:
        return None
    lock = asyncio.Lock()

    async def serial(request: PermissionAsked) -> PermissionAnswer:
        async with lock:
            return await ask(request)

    return serial


def _refused(
    call: ToolUseBlock,
    approval: Approval,
    emit: Callable[[Event], None],
    denials: list[PermissionDenial],
) -> CallResult:
    if approval.denial is not None:
        denials.append(approval.denial)
    emit(
        ToolFinished(
            call_id=call.id,
            name=call.name,
            content=approval.message,
            is_error=True,
            denial=approval.denial,
        )
    )
    block = ToolResultBlock(tool_use_id=call.id, content=approval.message, is_error=True)
    return CallResult(block, approval.context, after=approval.stopped)
