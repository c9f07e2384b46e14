"""`--input-format stream-json`: the front end the Claude Agent SDK drives. User messages and
control requests arrive as JSON lines on stdin, many per process; each user message is a turn
whose events go out as Claude Code's stream-json lines, ending with its result. One process
serves the whole conversation and starts on the first line, never waiting for the end of input.

It is one more front end over the same `Session` ops and events: a permission question is
asked of the client (`can_use_tool`), a client's hook is run by the client (`hook_callback`), a
client's MCP server is reached through it (`mcp_message`); the client's own requests
(`tether.cli.sdk_requests`) become ops or answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO, cast

from tether.cli import sdk_api_error
from tether.cli.background_wait import wait_limit_s
from tether.cli.claude_flags import engine_mode
from tether.cli.client_parts import ClientParts
from tether.cli.control import ControlChannel
from tether.cli.headless_input import clears, headless_turn, prepared
from tether.cli.sdk_facts import session_facts
from tether.cli.sdk_lines import LineMaker, SessionFacts
from tether.cli.sdk_permissions import ask_client
from tether.cli.sdk_rewind import keep_checkpoint
from tether.cli.sdk_session_lines import start_failure_line
from tether.cli.sdk_task_lines import TASK_NOTIFICATION_ORIGIN
from tether.cli.setup import Built, RunOptions, build
from tether.cli.stream_events import event_lines
from tether.cli.stream_input import InputLines, input_line, user_input
from tether.cli.stream_options import StreamOptions
from tether.cli.stream_prompts import PromptQueue
from tether.cli.stream_stderr import show, warn
from tether.cli.stream_wakes import Wakes
from tether.cli.stream_wiring import attach_session, told_to_client, wired
from tether.core.session import Session
from tether.hooks import HookActivity
from tether.outside_text import encodable
from tether.protocol import (
    ConfigError,
    Event,
    PermissionAsked,
    ResponseStarted,
    TurnFinished,
    UserInput,
)

STOPPED_FIRST = "tether was stopped first"
"""Why a message sent before a stop signal was not delivered: no turn reads it any more."""


def run_stream_json_sync(opts: RunOptions, options: StreamOptions) -> int:
    try:
        return asyncio.run(StreamJsonFrontEnd(opts, options, sys.stdin, sys.stdout).run())
    except ConfigError as e:  # TETHER_BACKGROUND_WAIT_MS out of range
        warn(str(e))
        return 2
    except KeyboardInterrupt:
        return 130


class StreamJsonFrontEnd:
    def __init__(
        self, opts: RunOptions, options: StreamOptions, stdin: TextIO, stdout: TextIO
    ) -> None:
        self.opts = opts
        self.options = options
        self._stdin = stdin
        self._stdout = stdout
        self.channel = ControlChannel(self.write)
        self.mode_name = options.mode_name or opts.permission_mode or "default"
        self._building: asyncio.Task[Built] | None = None
        self._queue = PromptQueue()
        self._requests: dict[str, asyncio.Task[None]] = {}
        self._asking: set[asyncio.Task[None]] = set()
        self._failed_last = False
        self._stopped_by: int | None = None
        self._incoming: asyncio.Queue[str | None] = asyncio.Queue()
        self._input: InputLines | None = None
        self.lines: LineMaker | None = None
        self._built_opts: RunOptions | None = None
        """What the session was built from (with the client's parts): `/clear` builds anew."""
        self._started = time.monotonic()  # or the last `/clear`: `/cost`'s wall time
        self._running: Session | None = None
        """The session while one of its turns runs (what the client sends then joins it)."""
        self._busy = False
        """The client was told the session runs (and not yet that it is idle)."""
        self._in_turn = False
        """A prompt was taken for a turn (its session may still be building)."""
        self.wakes = Wakes(
            self._queue.prompts,
            lambda: self._running is None and self._stopped_by is None,
            self._notice,
            wait_limit_s(),
        )
        self._woken = False
        """The running turn is one of them."""
        self._echoes: list[dict[str, Any]] = []
        """Prompts to echo (`--replay-user-messages`) once the session, and its id, exist."""
        self._taken: UserInput | None = None
        """A prompt taken for a turn that has not begun yet (the session building, its
        servers connecting): an interrupt meanwhile is for that turn."""
        self.stop_taken: str | None = None
        """The interrupt that came for it (see `stops_taken`), applied as its turn begins."""
        self.checkpoints: dict[str, dict[Path, int]] = {}
        """Per prompt's uuid, the files' change counts when its turn began (`rewind_files`)."""

    def stops_taken(self) -> bool:
        """Whether a prompt was taken for a turn that has not begun: an interrupt now is for
        it (a client that interrupts right after its message means that message's turn)."""
        running = self._running
        return self._taken is not None and (running is None or not running.busy)

    def still_queued(self) -> list[str]:
        """Uuids of the client's prompts the model has not read yet (`PromptQueue`)."""
        return self._queue.still_queued(self._running)

    def write(self, line: dict[str, Any]) -> None:
        # Anything that reached a line without a UTF-8 form would end the process here.
        self._stdout.write(encodable(json.dumps(line, ensure_ascii=False)) + "\n")
        self._stdout.flush()

    def _notice(self, message: str) -> None:
        """A warning of the session's own: to the client as a system notice line, and on
        stderr."""
        self.write_lines(lambda lines: [lines.system.notice(message)])
        warn(message)

    def could_not_start(self, error: str, session_id: str | None) -> None:
        """The session could not be built: a result line saying so, as Claude Code writes it
        (no turn ran), and the end of the input (the process exits with status 1)."""
        self.write(start_failure_line(error, session_id))
        self._failed_last = True
        self._queue.drop("the session could not start")
        self._incoming.put_nowait(None)

    async def run(self) -> int:
        self._input = reader = InputLines(self._stdin)
        self._incoming = incoming = reader.queue
        turns = asyncio.create_task(self._run_turns())
        stop_signals(self._on_signal)
        try:
            while (raw := await incoming.get()) is not None:
                self._dispatch(raw)
                reader.took()
                self._settle()
            # The client's input ended: what it asked for still runs to its result.
            self.channel.close("the client closed its input")
            self._queue.end()
            await turns
        finally:
            turns.cancel()
            await asyncio.gather(turns, return_exceptions=True)
            for task in [*self._requests.values(), *self._asking]:
                task.cancel()
            if self._building is not None:
                with contextlib.suppress(ConfigError):
                    built = await self._building
                    for news in await built.session.aclose():
                        warn(news)
        if self._stopped_by is not None:
            return 128 + self._stopped_by
        return 1 if self._failed_last else 0

    async def session(self, parts: ClientParts | None = None, **changes: Any) -> Built:
        """The session, built on first need (with the client's parts and the options it
        changes, from `initialize`)."""
        if self._building is None:
            opts = replace(self.opts, client=self._wire(parts or ClientParts()), **changes)
            self._built_opts = opts
            self._building = asyncio.create_task(asyncio.to_thread(build, opts))
        built = await asyncio.shield(self._building)
        if self.lines is None:
            self.lines = attach_session(self, built)
            self._echo()
        return built

    def _session_now(self) -> Session | None:
        """The session, once built (None before, or when it could not be)."""
        building = self._building
        if building is None or not building.done() or building.exception() is not None:
            return None
        return building.result().session

    @property
    def built(self) -> bool:
        return self._building is not None and self._building.done()  # (or failed)

    def _wire(self, parts: ClientParts) -> ClientParts:
        """The client's parts, with what reaches the client: its hook callbacks, its MCP
        servers, and hook lines when asked for."""

        def hook_line(activity: HookActivity) -> None:
            if told_to_client(activity, self.options.include_hook_events):
                self.write_lines(lambda m: [m.system.hook(activity)])

        return wired(parts, self.channel, hook_line)

    def _dispatch(self, raw: str) -> None:
        line = input_line(raw)
        if line is None:
            return
        kind = line.get("type")
        if kind == "user":
            prompt = user_input(line)
            if prompt is None:
                warn("a user message with nothing tether can read was ignored")
                return
            # Its uuid is its session file entry's: a client finds it there, rewinds to it.
            given = line.get("uuid")
            named = given if isinstance(given, str) and given else str(uuid.uuid4())
            prompt = prompt.model_copy(update={"uuid": named})
            if self.options.replay_user_messages:
                self._echoes.append({**line, "uuid": named, "isReplay": True})
                self._echo()
            if self._running is not None and not prompt.content and prompt.text.strip():
                # As Claude Code: words sent while a turn runs join it (the model reads them
                # at its next call); what the turn ends without reading starts the next one.
                self._queue.steer(self._running, prompt)
                return
            self._queue.put(prompt)
        elif kind == "control_request":
            self._start_request(line)
        elif kind == "control_response":
            self.channel.received(line)
        elif kind == "control_cancel_request":
            task = self._requests.get(str(line.get("request_id")))
            if task is not None:
                task.cancel()
        elif kind not in ("keep_alive", "update_environment_variables"):
            warn(f"unknown input line type {kind!r}; ignored")

    def _echo(self) -> None:
        """The prompts waiting to be echoed, with the session's id (once it is known)."""
        if self.lines is None:
            return
        for line in self._echoes:
            self.write({**line, "session_id": self.lines.session_id})
        self._echoes.clear()

    def _start_request(self, line: dict[str, Any]) -> None:
        from tether.cli.sdk_requests import answer_request

        request_id = str(line.get("request_id"))
        body = line.get("request")
        if not isinstance(body, dict):
            self.channel.refuse(request_id, "a control request needs a `request` object")
            return
        task = asyncio.create_task(answer_request(self, request_id, cast(dict[str, Any], body)))
        self._requests[request_id] = task
        task.add_done_callback(lambda _t: self._requests.pop(request_id, None))

    async def _run_turns(self) -> None:
        while True:
            self._settle()
            prompt = await self._queue.next()
            if prompt is None:
                if await self.wakes.input_ended(self._session_now()):
                    continue
                self._settle(at_end=True)
                return
            self._in_turn = True
            self._taken, self.stop_taken = prompt, None
            try:
                built = await self.session()
            except ConfigError as e:
                warn(str(e))
                self._failed_last = True
                self._queue.drop("the session could not start")
                return
            try:
                await self._turn(built, prompt)
            finally:
                self._in_turn = False
                self._taken = None

    @property
    def state(self) -> str:
        """The session's state as the client was last told it: running or idle."""
        return "running" if self._busy else "idle"

    def _settle(self, at_end: bool = False) -> None:
        """As Claude Code: `idle` once no turn is owed: none runs or is about to, no prompt
        waits for one, none is on its way on stdin (read or not: the SDK ends a run at `idle`
        and would close the process on it), no background subagent works. At the end of
        input, whatever is still in the queue is only its end."""
        if not self._busy or self._in_turn or self.lines is None:
            return
        queue = self._queue
        if queue.carrying() or (
            not at_end
            and (not queue.prompts.empty() or (self._input is not None and self._input.owed()))
        ):
            return
        session = self._session_now()
        if session is not None and session.agent.tool_context.background.running_agents():
            return
        self.write(self.lines.system.state("idle"))
        self._busy = False

    async def _turn(self, built: Built, prompt: UserInput) -> None:
        if clears(built.session, prompt.text) and self._built_opts is not None:
            built = await self._clear(built, self._built_opts)
        session = built.session
        lines = self.lines
        assert lines is not None
        if not self._busy:
            self.write(lines.system.state("running"))
        self._busy = True
        for event in await prepared(session):
            show(event)
        self.write(lines.init(session.started(), self.facts(built)))
        self.write_all(lines.start_notices())
        if prompt.uuid is not None:
            self.checkpoints[prompt.uuid] = session.agent.tool_context.files.snapshots.mark()
        self._running = session
        self._woken = self.wakes.took(prompt)
        self._queue.turn_began()
        if self.stop_taken is not None:  # interrupted before it began: it stops as it begins
            session.interrupt_next_turn(self.stop_taken)
        try:
            async for event in headless_turn(session, prompt, front_started=self._started):
                if isinstance(event, ResponseStarted):  # the held prompts: its next call's
                    self._queue.call_began(session)
                self.on_event(event, built, lines)
        finally:
            self._running = None
            if prompt.uuid is not None:
                keep_checkpoint(session, prompt.uuid, self.checkpoints[prompt.uuid])
        self._queue.turn_ended(session, STOPPED_FIRST if self._stopped_by is not None else None)
        self.wakes.task_ended(session)  # one that ended after the turn's last model call

    async def _clear(self, built: Built, opts: RunOptions) -> Built:
        """`/clear`, as Claude Code runs it: a new session (new id, empty conversation, cost
        from zero; the old one stays saved) in the same mode, with the same client."""
        from tether.cli.repl_sessions import opening

        for news in await built.session.aclose("clear"):
            warn(news)
        mode, self._started = engine_mode(self.mode_name), time.monotonic()
        fresh = opening(opts, permission_mode=mode, start_source="clear")
        self._building = asyncio.create_task(asyncio.to_thread(build, fresh))
        self.lines = None
        return await self.session()

    def on_event(self, event: Event, built: Built, lines: LineMaker) -> None:
        match event:
            case PermissionAsked():
                task = asyncio.create_task(ask_client(self, built, event))
                self._asking.add(task)
                task.add_done_callback(self._asking.discard)
            case TurnFinished():
                for task in self._asking:  # questions of a turn that ended (an interrupt)
                    task.cancel()
                self._failed_last = event.is_error
                facts = self.facts(built)
                if event.api_error_status is not None:
                    self.write(
                        sdk_api_error.assistant_line(
                            event, lines.session_id, facts.model_id, facts.endpoint
                        )
                    )
                self.write_all(lines.take_held())
                result = lines.result(event, facts)
                if self._woken:
                    result["origin"] = TASK_NOTIFICATION_ORIGIN
                self.write(result)
            case _:
                made, told = event_lines(event, lines)
                self.write_all(made)
                if told:
                    show(event)

    def set_mode(self, built: Built, name: str) -> None:
        """Switch the permission mode by the client's name for it (see `engine_mode`)."""
        built.session.set_permission_mode(engine_mode(name))
        self.mode_name = name

    def facts(self, built: Built) -> SessionFacts:
        return session_facts(built, self.mode_name)

    def write_all(self, lines: list[dict[str, Any]]) -> None:
        for line in lines:
            self.write(line)

    def write_lines(self, make: Callable[[LineMaker], list[dict[str, Any]]]) -> None:
        """Lines made by the session's `LineMaker` (none before the session exists)."""
        if self.lines is not None:
            self.write_all(make(self.lines))

    def _on_signal(self, signum: int) -> None:
        """SIGINT, SIGTERM or SIGHUP: the running turn stops (its result is written), queued prompts
        are dropped, and the process ends without waiting for its input to end."""
        self._stopped_by = signum
        self.wakes.stop()
        if self.built and self._building is not None:
            session = self._building.result().session
            session.interrupt(f"stopped by {signal.Signals(signum).name}")
            for agent in session.agent.tool_context.background.running_agents():
                agent.run.cancel()  # the process ends: it is not waited for
        self._queue.drop(STOPPED_FIRST)
        # The turns end after the one running; this also puts back the end of input that
        # dropping took away when the input had ended first (the turns then waited forever).
        self._queue.end()
        self._incoming.put_nowait(None)


def stop_signals(stop: Callable[[int], None]) -> None:
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # as headless's
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, stop, signum)
