"""Commands left running in the background: the session's registry of them, which says when
each one ends and stops them all when the session does.

It sits beside `context` rather than with the tools that use it (`builtin/background.py`)
because `ToolContext` holds one, and the `builtin` package imports the context.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import Any

from tether.processes import ConfinedCommand, signal_name, stop_group, stop_once_started
from tether.protocol import ToolError
from tether.slotted import Slotted
from tether.tools.background_agent import BackgroundAgent
from tether.tools.capped_log import DEFAULT_CAP_BYTES, DEFAULT_TOTAL_BYTES, CappedLog, LogBudget

KILL_GRACE_S = 1.0
"""How long a stopped background command has between SIGTERM and SIGKILL."""
SHOWN_COMMAND_CHARS = 80
PUMP_BYTES_PER_S = 32 * 1024 * 1024
"""How fast a background command's output is taken in: far more than servers and builds
print, far less than `yes`."""
PUMP_WINDOW_S = 0.25
SUMMARY_CHARS = 1000
"""A description or command listed to hooks is cut past this (Claude Code's cap)."""


class BackgroundShell(Slotted):
    """One command started with `run_in_background`. Its output (stdout and stderr together)
    goes through a pipe into `log`, kept on disk under a cap (the newest output stays), never
    held in memory; `read_offset` is how far BashOutput has shown it (in bytes since the
    command started)."""

    __slots__ = (
        "announced",
        "cleanup",
        "command",
        "confined",
        "description",
        "drained",
        "ended",
        "id",
        "log",
        "process",
        "pump",
        "read_offset",
        "stopped",
        "stopped_by_user",
    )
    id: str
    command: str
    description: str
    """What it is for (the Bash call's `description`), as hooks are told of it."""
    log: CappedLog
    process: asyncio.subprocess.Process
    read_offset: int
    stopped: bool
    """Stopped by KillShell or `kill_all`: whoever stopped it knows, so its end is not announced."""
    announced: bool
    """The model has been told that it ended (by a notice, BashOutput or KillShell's answer)."""
    stopped_by_user: bool
    """Stopped from outside the conversation (a client's `stop_task`): the model is told."""
    cleanup: asyncio.Task[None] | None
    """For a confined command: what finishes its confinement once it ends (the sandbox's
    placeholders go then, not at the next command)."""
    pump: asyncio.ReadTransport | None
    """Reads the command's pipe into its log; closed when the session ends."""
    drained: asyncio.Future[None] | None
    """Done once all the output is in the log (the pipe was closed)."""
    confined: ConfinedCommand | None
    """The confinement it runs in, asked for a `checkpoint` when its output is read."""
    ended: asyncio.Future[int] | None
    """Done with its exit status once the command has ended and what it printed last is in
    the log (`settle`)."""

    def __init__(
        self,
        id: str,
        command: str,
        log: CappedLog,
        process: asyncio.subprocess.Process,
        read_offset: int = 0,
        stopped: bool = False,
        announced: bool = False,
        stopped_by_user: bool = False,
        cleanup: asyncio.Task[None] | None = None,
        pump: asyncio.ReadTransport | None = None,
        drained: asyncio.Future[None] | None = None,
        confined: ConfinedCommand | None = None,
        ended: asyncio.Future[int] | None = None,
        description: str = "",
    ) -> None:
        self.id = id
        self.command = command
        self.description = description
        self.log = log
        self.process = process
        self.read_offset = read_offset
        self.stopped = stopped
        self.announced = announced
        self.stopped_by_user = stopped_by_user
        self.cleanup = cleanup
        self.pump = pump
        self.drained = drained
        self.confined = confined
        self.ended = ended

    async def settle(self, grace_s: float = 0.5) -> None:
        """Once the command ended, give what it printed last a moment to reach the log
        (processes it left behind may hold the pipe open for good: not waited for)."""
        if self.returncode is not None and self.drained is not None:
            await asyncio.wait({self.drained}, timeout=grace_s)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def log_path(self) -> Path:
        return self.log.path

    @property
    def returncode(self) -> int | None:
        """None while running; negative when the shell died of a signal. Set by the event
        loop's child watcher as soon as the process ends, whether or not anyone awaits it."""
        return self.process.returncode

    def status(self) -> str:
        """`running`, `exited with code N` or `killed by signal SIGX`."""
        code = self.returncode
        if code is None:
            return "running"
        if code < 0:
            return f"killed by signal {signal_name(-code)}"
        return f"exited with code {code}"

    @property
    def short_command(self) -> str:
        """The command on one line, cut to about 80 characters: how notices name it."""
        flat = " ".join(self.command.split())
        if len(flat) <= SHOWN_COMMAND_CHARS:
            return flat
        return flat[: SHOWN_COMMAND_CHARS - 1] + "…"


async def _ended(shell: BackgroundShell) -> int:
    returncode = await shell.process.wait()
    await shell.settle()
    return returncode


async def _finish_confinement(
    process: asyncio.subprocess.Process, confined: ConfinedCommand
) -> None:
    returncode = await process.wait()
    # In a thread: the sandbox may wait a moment for its init process to let go.
    await asyncio.to_thread(confined.finished, returncode, "")


class _LogPump(asyncio.Protocol):
    """Moves what the command prints from its pipe into its log; `drained` is done once the
    pipe is closed (by the command and anything it started) and all of it is in the log.

    At most PUMP_BYTES_PER_S: past that, reading pauses until the second is over and the
    command waits on its full pipe. A command printing without end (`yes`) would otherwise
    keep tether busy copying output that the log drops anyway (measured: half a core)."""

    def __init__(self, log: CappedLog, drained: asyncio.Future[None]) -> None:
        self._log = log
        self._drained = drained
        self._transport: asyncio.ReadTransport | None = None
        self._window_start = 0.0
        self._window_bytes = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.ReadTransport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        self._log.append(data)
        loop = asyncio.get_running_loop()
        now = loop.time()
        if now - self._window_start >= PUMP_WINDOW_S:
            self._window_start, self._window_bytes = now, 0
        self._window_bytes += len(data)
        if self._window_bytes >= PUMP_BYTES_PER_S * PUMP_WINDOW_S and self._transport:
            self._transport.pause_reading()
            loop.call_at(self._window_start + PUMP_WINDOW_S, self._resume)

    def _resume(self) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.resume_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        self._transport = None
        if not self._drained.done():
            self._drained.set_result(None)


class BackgroundShells:
    """The session's background commands, by id (`bash_1`, `bash_2`... in order of start).

    They outlive the turn that started them: an interrupt does not stop them, `kill_all` does.
    """

    def __init__(
        self, *, log_cap_bytes: int = DEFAULT_CAP_BYTES, log_total_bytes: int = DEFAULT_TOTAL_BYTES
    ) -> None:
        self._shells: dict[str, BackgroundShell] = {}
        self._started = 0
        """Commands asked for so far: each takes its id as it is asked for, before its process
        starts (parallel calls start theirs at once)."""
        self._agents: dict[str, BackgroundAgent] = {}
        self.agent_watchers: list[Callable[[], None]] = []
        """Called each time a background subagent's run ends (its notification is ready)."""
        self.shell_watchers: list[Callable[[BackgroundShell], None]] = []
        """Called with each command whose process ended, however it ended (by itself, or
        stopped: `stopped` and `stopped_by_user` say so)."""
        self.log_cap_bytes = log_cap_bytes
        """How much of each command's output is kept on disk (the newest)."""
        self.log_budget = LogBudget(log_total_bytes)
        """How much the logs of all of them take together: the model may start any number."""

    async def start(
        self,
        command: str,
        argv: list[str],
        *,
        cwd: Path,
        log_dir: Path,
        env: Mapping[str, str],
        pass_fds: tuple[int, ...] = (),
        description: str = "",
    ) -> BackgroundShell:
        """Run `argv` (which runs `command`) in a process group of its own with stdin from
        /dev/null and its output into a new log in `log_dir`; return once it has started.
        A cancellation while it starts stops it (and is re-raised): nobody would know its id."""
        self._started += 1
        shell_id = f"bash_{self._started}"
        # A unique name: ids restart at bash_1 in every context, and contexts may share a
        # directory.
        log = CappedLog(
            log_dir, f"bg-{shell_id}-", cap_bytes=self.log_cap_bytes, budget=self.log_budget
        )
        read_fd, write_fd = os.pipe()
        spawn = asyncio.ensure_future(
            asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=write_fd,
                stderr=asyncio.subprocess.STDOUT,
                cwd=cwd,
                env=dict(env),
                start_new_session=True,
                pass_fds=pass_fds,
            )
        )
        try:
            # Shielded: a cancellation can arrive after the fork, and that process must be found.
            process = await asyncio.shield(spawn)
        except asyncio.CancelledError:
            try:
                await stop_once_started(spawn, grace_s=KILL_GRACE_S)
            finally:
                os.close(read_fd)
                _discard(log)
            raise
        except OSError as e:
            os.close(read_fd)
            _discard(log)
            raise ToolError(f"Could not start {argv[0]}: {e.strerror or e}") from None
        finally:
            os.close(write_fd)
        loop = asyncio.get_running_loop()
        pipe = os.fdopen(read_fd, "rb", buffering=0)
        drained: asyncio.Future[None] = loop.create_future()
        try:
            transport, _ = await loop.connect_read_pipe(lambda: _LogPump(log, drained), pipe)
        except BaseException:
            pipe.close()
            await stop_group(process, grace_s=KILL_GRACE_S)
            _discard(log)
            raise
        shell = BackgroundShell(shell_id, command, log, process, description=description)
        shell.pump, shell.drained = transport, drained
        if isinstance(argv, ConfinedCommand):
            shell.confined = argv
            shell.cleanup = asyncio.ensure_future(_finish_confinement(process, argv))
        shell.ended = asyncio.ensure_future(_ended(shell))
        shell.ended.add_done_callback(lambda ended: self._shell_ended(shell, ended))
        self._shells[shell_id] = shell
        return shell

    def _shell_ended(self, shell: BackgroundShell, ended: asyncio.Future[int]) -> None:
        if ended.cancelled():  # the session ended first
            return
        for watch in self.shell_watchers:
            watch(shell)

    def start_agent(
        self,
        agent_id: str,
        description: str,
        work: Coroutine[object, object, str],
        agent_type: str = "",
    ) -> BackgroundAgent:
        """Run a subagent's `work` beside the conversation; it returns the notification the
        model is given at its next request. It outlives the turn, as a command does."""
        agent = BackgroundAgent(agent_id, description, asyncio.ensure_future(work), agent_type)
        self._agents[agent_id] = agent
        agent.run.add_done_callback(lambda _run: self._agent_ended())
        return agent

    def _agent_ended(self) -> None:
        for watch in self.agent_watchers:
            watch()

    def agent_unreported(self) -> bool:
        """Whether a background subagent has ended that the model was not told of yet."""
        return any(
            a.run.done() and not a.announced and not a.interrupted for a in self._agents.values()
        )

    def unreported(self) -> bool:
        """Whether background work ended by itself that the model was not told of yet: a
        subagent, or a command (one stopped is known to whoever stopped it)."""
        return self.agent_unreported() or any(
            s.returncode is not None and not s.announced and not s.stopped
            for s in self._shells.values()
        )

    async def wait_all(self) -> None:
        """Until every background subagent and command has ended (those started meanwhile
        too)."""
        while waits := self._runs():
            await asyncio.wait(waits)

    async def wait_any(self) -> bool:
        """Until one background subagent or command ends; False at once when none runs."""
        waits = self._runs()
        if waits:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        return bool(waits)

    def _runs(self) -> list[asyncio.Future[Any]]:
        return [
            *(a.run for a in self.running_agents()),
            *(s.ended for s in self._shells.values() if s.ended is not None and not s.ended.done()),
        ]

    def running_agents(self) -> list[BackgroundAgent]:
        """The background subagents still running, oldest first."""
        return [a for a in self._agents.values() if not a.run.done()]

    def agent(self, agent_id: str) -> BackgroundAgent | None:
        return self._agents.get(agent_id)

    async def stop_agent(
        self, agent: BackgroundAgent, *, by_user: bool = False, interrupted: bool = False
    ) -> None:
        """Cancel its run and wait for it to end (its transcript closed, its commands
        stopped). `by_user`: the model is told it was stopped; `interrupted`: with the turn
        (it wakes no turn)."""
        agent.stopped_by_user = agent.stopped_by_user or by_user
        agent.interrupted = agent.interrupted or interrupted
        agent.run.cancel()
        await asyncio.wait({agent.run})

    def get(self, shell_id: str) -> BackgroundShell:
        """The command with this id; a `ToolError` naming the known ids when there is none."""
        shell = self._shells.get(shell_id)
        if shell is not None:
            return shell
        if not self._shells:
            raise ToolError(
                f"No background command has id {shell_id!r}; none has been started in this "
                "session (start one with Bash and run_in_background: true)."
            )
        known = ", ".join(self._shells)
        raise ToolError(f"No background command has id {shell_id!r}; known ids: {known}.")

    async def stop(self, shell: BackgroundShell, *, by_user: bool = False) -> None:
        """Stop its whole process group (SIGTERM, then SIGKILL after a short grace).
        `by_user`: from outside the conversation, so the model is told at its next call."""
        shell.stopped = True
        shell.stopped_by_user = shell.stopped_by_user or by_user
        await stop_group(shell.process, grace_s=KILL_GRACE_S)

    async def kill_all(self) -> int:
        """Stop every command still running, as the session ends; how many there were. Their
        logs are closed: the session's scratch directory goes next."""
        running = self.running()
        agents = self.running_agents()
        await asyncio.gather(
            *(self.stop(shell) for shell in running), *(self.stop_agent(a) for a in agents)
        )
        await asyncio.gather(*(s.cleanup for s in self._shells.values() if s.cleanup is not None))
        for shell in self._shells.values():
            if shell.ended is not None:
                shell.ended.cancel()  # nobody is left to tell
            if shell.pump is not None:
                shell.pump.close()
            shell.log.close()
        return len(running) + len(agents)

    def in_flight(self) -> list[dict[str, Any]]:
        """What still runs, as Claude Code lists it to Stop and SubagentStop hooks
        (`background_tasks`): subagents and commands, oldest first, texts capped."""
        tasks: list[dict[str, Any]] = [
            {
                "id": a.id,
                "type": "subagent",
                "status": "running",
                "description": capped(a.description),
                **({"agent_type": a.agent_type} if a.agent_type else {}),
            }
            for a in self.running_agents()
        ]
        for shell in self.running():
            what = shell.description or shell.command
            tasks.append(
                {
                    "id": shell.id,
                    "type": "shell",
                    "status": "running",
                    "description": capped(what),
                    "command": capped(shell.command),
                }
            )
        return tasks

    def running(self) -> list[BackgroundShell]:
        """The commands still running and not being stopped, oldest first."""
        return [s for s in self._shells.values() if s.returncode is None and not s.stopped]

    def finished_unreported(self) -> list[str]:
        """One notice per command that has ended since the last call, unless the model already
        knows (it read the final status, or stopped the command); each is given once."""
        notices: list[str] = []
        for agent in self._agents.values():
            if agent.run.done() and not agent.announced:
                agent.announced = True
                notices.append(agent.notification())
        for shell in self._shells.values():
            if shell.announced or shell.returncode is None:
                continue
            if shell.stopped_by_user:
                shell.announced = True
                notices.append(
                    f"Background command {shell.id} (`{shell.short_command}`) was stopped by "
                    f'the user; read its output with BashOutput(bash_id="{shell.id}").'
                )
                continue
            if shell.stopped:
                continue
            shell.announced = True
            notices.append(
                f"Background command {shell.id} (`{shell.short_command}`) {shell.status()}; "
                f'read its output with BashOutput(bash_id="{shell.id}").'
            )
        return notices


def capped(text: str, limit: int = SUMMARY_CHARS) -> str:
    """`text` cut to `limit` characters, marked as Claude Code marks a clipped value."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [+{len(text) - limit} chars]"


def _discard(log: CappedLog) -> None:
    """A log whose command never started: nobody will read it."""
    log.close()
    with contextlib.suppress(OSError):
        log.path.unlink()
