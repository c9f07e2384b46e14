"""A throwaway bubblewrap sandbox where bash runs generated commands for real, with a
`sentinel` program on `PATH` that records every run of itself.

Bash is the judge of whether a command ran the sentinel: the engine's parse is what is being
tested, so nothing here parses. The sandbox is what keeps generated commands from touching
the machine: the root file system is read-only, the network and every other namespace are
unshared, every capability is dropped, and as root the command runs as uid 1000.
"""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

SENTINEL = "sentinel"
RUN_TIMEOUT = 3.0
"""Seconds one command may take; generated commands finish in milliseconds, so a command
still running then is stuck (it is killed and counts only for what it recorded)."""

# Runs the command, then waits for what it left running (`cmd &`, `>(cmd)`, coproc): bash does
# not wait for those, and the pid namespace dies with this script. Only builtins count the
# processes, so the count is this shell and bubblewrap's init when everything is done.
_RUNNER = """\
bash --norc --noprofile -c "$1" </dev/null >/dev/null 2>&1
for _ in {1..100}; do
  n=0; for p in /proc/[0-9]*; do n=$((n+1)); done
  (( n <= 2 )) && break
  sleep 0.02
done
"""

_GIT = ("git", "-c", "user.name=t", "-c", "user.email=t@example.invalid")


@dataclass(frozen=True)
class Sandbox:
    """Directories under `root`: `ws` (the workspace, a git repository with a few files),
    `bin` (the sentinel, on `PATH` first), `home`, and `marks` (where the sentinel writes).

    Commands run in slots, so that several can run at once: each slot has its own copy of the
    workspace and its own marks, mounted over `ws` and `marks` inside its sandbox, so every
    command sees the same paths and no command sees another's files."""

    root: Path
    bwrap: str
    slots: queue.Queue[Path] = field(default_factory=queue.Queue[Path], compare=False)

    @property
    def ws(self) -> Path:
        return self.root / "ws"

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def mark(self) -> Path:
        return self.root / "marks" / "runs"

    def run(self, command: str) -> tuple[str, ...]:
        """Runs `bash -c command` and returns the sentinel's runs, one `argv0 args` line
        each, in the order they happened."""
        slot = self.slots.get()
        try:
            return self._run_in(slot, command)
        finally:
            self.slots.put(slot)

    def _run_in(self, slot: Path, command: str) -> tuple[str, ...]:
        mark = slot / "marks" / self.mark.name
        mark.write_text("")
        env = {
            "PATH": f"{self.bin}:/usr/bin:/bin",
            "HOME": str(self.home),
            "LC_ALL": "C",
            "GIT_CONFIG_NOSYSTEM": "1",
        }
        argv = [*self._bwrap_args(slot), "bash", "--norc", "--noprofile", "-c", _RUNNER]
        proc = subprocess.Popen(
            [*argv, "run", command],
            cwd=slot,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            proc.wait(timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        return tuple(mark.read_text().splitlines())

    def _bwrap_args(self, slot: Path) -> list[str]:
        args = [
            self.bwrap,
            "--ro-bind", "/", "/",
            "--dev", "/dev",
            "--proc", "/proc",
            "--tmpfs", "/tmp",
            "--bind", str(slot / "ws"), str(self.ws),
            "--ro-bind", str(self.bin), str(self.bin),
            "--ro-bind", str(self.home), str(self.home),
            "--bind", str(slot / "marks"), str(self.mark.parent),
            "--chdir", str(self.ws),
            "--unshare-all",
            "--unshare-user",
            "--die-with-parent",
            "--new-session",
            "--cap-drop", "ALL",
        ]  # fmt: skip
        if os.geteuid() == 0:
            # Root outside maps to uid 1000 inside: no capabilities there, and the files it
            # owns (the workspace, the marks) stay writable by the command.
            args += ["--uid", "1000", "--gid", "1000"]
        return args


def make_sandbox(root: Path, slots: int = 3) -> Sandbox | str:
    """The sandbox under `root` with `slots` commands at a time, or why bubblewrap cannot run
    one here."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap is not installed"
    box = Sandbox(root, bwrap)
    _fill(box)
    for i in range(slots):
        slot = root / "slots" / str(i)
        shutil.copytree(box.ws, slot / "ws", symlinks=True)
        (slot / "marks").mkdir()
        box.slots.put(slot)
    if box.run(f"{SENTINEL} probe") != (f"{box.bin / SENTINEL} probe",):
        probe = subprocess.run(
            [*box._bwrap_args(root / "slots" / "0"), "true"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        return f"bubblewrap cannot run the sentinel here: {probe.stderr.strip()}"
    return box


def _fill(box: Sandbox) -> None:
    for directory in (box.ws, box.bin, box.home, box.mark.parent):
        directory.mkdir(parents=True)
    sentinel = box.bin / SENTINEL
    # The marker path is baked in, not passed in the environment: `env -i sentinel` must count.
    sentinel.write_text(f'#!/bin/sh\nprintf "%s %s\\n" "$0" "$*" >> {box.mark}\n')
    sentinel.chmod(0o755)
    rg = shutil.which("rg", path=os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin"]))
    if rg is not None:
        # The ripgrep wheel puts rg next to the interpreter, off the sandbox's PATH.
        (box.bin / "rg").symlink_to(rg)
    (box.ws / "a.txt").write_text("alpha\nbeta\n")
    (box.ws / "big.txt").write_text("".join(f"{i * 7919 % 100003}\n" for i in range(40000)))
    subprocess.run([*_GIT, "init", "-q", str(box.ws)], check=True)
    subprocess.run([*_GIT, "-C", str(box.ws), "add", "a.txt"], check=True)
    subprocess.run([*_GIT, "-C", str(box.ws), "commit", "-qm", "init"], check=True)
    subprocess.run(["tar", "-cf", "a.tar", "a.txt"], cwd=box.ws, check=True)
