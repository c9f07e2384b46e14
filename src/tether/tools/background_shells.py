"""Commands left running in the background: the session's registry of them, which says when
each one ends and stops them all when the session does.

It sits beside `context` rather than with the tools that use it (`builtin/background.py`)
because `ToolContext` holds one, and the `builtin` package imports the context.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import tempfile
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tether.processes import ConfinedCommand, signal_name, stop_group, stop_once_started
from tether.protocol import ToolError

KILL_GRACE_S = 1.0
"""How long a stopped background command has between SIGTERM and SIGKILL."""
SHOWN_COMMAND_CHARS = 80


@dataclass
class BackgroundShell:
    """One command started with `run_in_background`. Its output (stdout and stderr together)
    goes straight from the process to `log_path`, so nothing is lost and nothing is held in
    memory; `read_offset` is how far BashOutput has shown it."""

    id: str
    command: str
    log_path: Path
    process: asyncio.subprocess.Process
    log_fd: int = -1
    """tether's descriptor of the log, which BashOutput reads: never the path, where the
    command may have put a symlink to a file of tether's user in the log's place. Closed when
    the shell is dropped."""
    read_offset: int = 0
    stopped: bool = False
    """Stopped by KillShell or `kill_all`: whoever stopped it knows, so its end is not announced."""
    announced: bool = False
    """The model has been told that it ended (by a notice, BashOutput or KillShell's answer)."""
    cleanup: asyncio.Task[None] | None = None
    """For a confined command: what finishes its confinement once it ends (the sandbox's
    placeholders go then, not at the next command)."""

    @property
    def pid(self) -> int:
        return self.process.pid

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


async def _finish_confinement(
    process: asyncio.subprocess.Process, confined: ConfinedCommand
) -> None:
    returncode = await process.wait()
    # In a thread: the sandbox may wait a moment for its init process to let go.
    await asyncio.to_thread(confined.finished, returncode, "")


def _new_log(log_dir: Path, shell_id: str) -> tuple[int, Path]:
    # A unique name: ids restart at bash_1 in every context, and contexts may share a directory.
    # mkstemp creates it exclusively and without following a symlink.
    log_dir.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f"bg-{shell_id}-", suffix=".log", dir=log_dir)
    # The command writes through this open file, and tether reads through a duplicate that
    # shares its offset: in append mode, tether's seeks never move where the command writes.
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
    return fd, Path(name)


class BackgroundShells:
    """The session's background commands, by id (`bash_1`, `bash_2`... in order of start).

    They outlive the turn that started them: an interrupt does not stop them, `kill_all` does.
    """

    def __init__(self) -> None:
        self._shells: dict[str, BackgroundShell] = {}

    async def start(
        self,
        command: str,
        argv: list[str],
        *,
        cwd: Path,
        log_dir: Path,
        env: Mapping[str, str],
        pass_fds: tuple[int, ...] = (),
    ) -> BackgroundShell:
        """Run `argv` (which runs `command`) in a process group of its own with stdin from
        /dev/null and its output into a new log in `log_dir`; return once it has started.
        A cancellation while it starts stops it (and is re-raised): nobody would know its id."""
        shell_id = f"bash_{len(self._shells) + 1}"
        fd, log_path = _new_log(log_dir, shell_id)
        spawn = asyncio.ensure_future(
            asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=fd,
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
                os.close(fd)
                os.unlink(log_path)
            raise
        except OSError as e:
            os.close(fd)
            os.unlink(log_path)
            raise ToolError(f"Could not start {argv[0]}: {e.strerror or e}") from None
        shell = BackgroundShell(shell_id, command, log_path, process, log_fd=fd)
        weakref.finalize(shell, os.close, fd)
        if isinstance(argv, ConfinedCommand):
            shell.cleanup = asyncio.ensure_future(_finish_confinement(process, argv))
        self._shells[shell_id] = shell
        return shell

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

    async def stop(self, shell: BackgroundShell) -> None:
        """Stop its whole process group (SIGTERM, then SIGKILL after a short grace)."""
        shell.stopped = True
        await stop_group(shell.process, grace_s=KILL_GRACE_S)

    async def kill_all(self) -> int:
        """Stop every command still running, as the session ends; how many there were."""
        running = self.running()
        await asyncio.gather(*(self.stop(shell) for shell in running))
        await asyncio.gather(*(s.cleanup for s in self._shells.values() if s.cleanup is not None))
        return len(running)

    def running(self) -> list[BackgroundShell]:
        """The commands still running and not being stopped, oldest first."""
        return [s for s in self._shells.values() if s.returncode is None and not s.stopped]

    def finished_unreported(self) -> list[str]:
        """One notice per command that has ended since the last call, unless the model already
        knows (it read the final status, or stopped the command); each is given once."""
        notices: list[str] = []
        for shell in self._shells.values():
            if shell.announced or shell.stopped or shell.returncode is None:
                continue
            shell.announced = True
            notices.append(
                f"Background command {shell.id} (`{shell.short_command}`) {shell.status()}; "
                f'read its output with BashOutput(bash_id="{shell.id}").'
            )
        return notices
