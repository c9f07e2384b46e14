"""Fixtures for the sandbox: a session layout on tmp_path (workspace, scratch, a fake home that
is never the real one), and the Bash tool run through the registry with the sandbox's wrapper.

/tmp inside is the machine's own, so everything under tmp_path is in sight and writable there.
`boundary` is a layout for each kind of caller: tether as root (this machine, CI) and bwrap
started as an unprivileged user (uid 65534, through setpriv) on a layout that user owns."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import pwd
import shutil
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tether.processes import ConfinedCommand
from tether.protocol import ToolUseBlock
from tether.sandbox import Sandbox, SandboxSettings, plan_sandbox, probe
from tether.slotted import replaced
from tether.tools.builtin import builtin_tools
from tether.tools.context import ToolContext
from tether.tools.registry import ToolOutcome, ToolRegistry

STATUS = probe()
needs_bwrap = pytest.mark.skipif(
    not STATUS.works, reason=f"bubblewrap cannot run here: {STATUS.reason}"
)
"""For tests that run commands under bubblewrap."""

RunBash = Callable[..., Awaitable[ToolOutcome]]


UNPRIVILEGED = 65534
SETPRIV = shutil.which("setpriv")


@dataclasses.dataclass(frozen=True)
class Layout:
    workspace: Path
    scratch: Path
    home: Path
    outside: Path
    """A directory beside the workspace."""
    unprivileged: bool = False
    """bwrap runs as uid 65534 (tether stays root): the layout must be that user's."""

    def hand_over(self) -> None:
        """Give the files the test made to the unprivileged user (a no-op for root)."""
        if not self.unprivileged:
            return
        base = Path(os.path.commonpath([self.workspace.parent, self.scratch]))
        for root, dirs, files in os.walk(base):
            for name in (root, *(os.path.join(root, n) for n in dirs + files)):
                # Only what is not the user's yet: a chown changes a file's ctime, which
                # tells the git sweep that a command changed it.
                info = os.lstat(name)
                if (info.st_uid, info.st_gid) != (UNPRIVILEGED, UNPRIVILEGED):
                    os.lchown(name, UNPRIVILEGED, UNPRIVILEGED)

    def sandbox(self, environ: dict[str, str] | None = None, **settings: Any) -> Sandbox:
        sandbox, notice, refused = plan_sandbox(
            SandboxSettings(**settings),
            STATUS,
            workspace=self.workspace,
            scratch_dir=self.scratch,
            home=self.home,
            environ=environ,
        )
        assert (notice, refused) == (None, False)
        assert sandbox is not None
        if self.unprivileged:
            # tether itself unprivileged could not make device nodes (nor would bwrap, as
            # this user, reach root's directory of them).
            sandbox = dataclasses.replace(sandbox, devices=lambda: None)
            # Nor would it reach tether's own passwd home (root's), hidden for tether's uid:
            # bwrap started as tether's user there does.
            own = [Path(os.path.realpath(pwd.getpwuid(os.getuid()).pw_dir))]
            shown = tuple(p for p in sandbox.hidden if not any(p.is_relative_to(h) for h in own))
            sandbox = dataclasses.replace(sandbox, hidden=shown)
        return sandbox


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    base = tmp_path.resolve()
    paths = Layout(base / "ws", base / "scratch", base / "ws" / "home", base / "outside")
    for path in (paths.workspace, paths.home, paths.outside):
        path.mkdir(parents=True)
    return paths


def bash_runner(ctx: ToolContext) -> RunBash:
    """`await run(command="...", timeout=...)`: the Bash tool as the agent loop calls it."""
    registry = ToolRegistry(builtin_tools())

    async def run(**tool_input: Any) -> ToolOutcome:
        outcome = await registry.run(ToolUseBlock(id="call_1", name="Bash", input=tool_input), ctx)
        return replaced(outcome, duration_ms=0, structured=None)

    return run


@dataclasses.dataclass(frozen=True)
class SandboxWrapper:
    """The session's `command_wrapper`: its sandbox's `wrap`, with bwrap started as the
    unprivileged user for that kind of layout."""

    sandbox: Sandbox
    layout: Layout

    def __call__(self, argv: list[str], cwd: Path) -> list[str]:
        # What the test made is that user's before the sandbox looks at it (the git sweep
        # takes a chown for a change).
        self.layout.hand_over()
        command: ConfinedCommand = self.sandbox.wrap(argv, cwd)
        if not self.layout.unprivileged:
            return command
        assert SETPRIV is not None
        self.layout.hand_over()  # the placeholders too: tether would make them as this user
        ids = [f"--reuid={UNPRIVILEGED}", f"--regid={UNPRIVILEGED}", "--clear-groups"]
        # That user's home is the layout's (root's own is closed to it).
        command[1:1] = ["--setenv", "HOME", str(self.layout.home)]
        command[:0] = [SETPRIV, *ids]
        return command


def sandboxed_context(
    layout: Layout,
    environ: dict[str, str] | None = None,
    *,
    linger_s: float | None = None,
    **settings: Any,
) -> ToolContext:
    """A session's tools under the layout's sandbox; `linger_s`: how long its placeholders
    stay after the last command (the sandbox's own default when None)."""
    sandbox = layout.sandbox(environ, **settings)
    if linger_s is not None:
        sandbox = dataclasses.replace(sandbox, placeholder_linger_s=linger_s)
    wrapper = SandboxWrapper(sandbox, layout)
    return ToolContext(
        workspace=layout.workspace, scratch_dir=layout.scratch, command_wrapper=wrapper
    )


async def end_session(ctx: ToolContext) -> None:
    """What the end of the session does for its sandbox (`cli/setup.py`): its background
    commands stop, then its placeholders go at once."""
    assert isinstance(ctx.command_wrapper, SandboxWrapper)
    await ctx.background.kill_all()
    await asyncio.to_thread(ctx.command_wrapper.sandbox.close)


def home_in_workspace(layout: Layout) -> Layout:
    """The same layout with the home directory inside the workspace (so writable), and
    tether's home in it too, laid out as a session's (`<home>/.tether/scratch/<session>`)."""
    home = layout.workspace / "home"
    home.mkdir(exist_ok=True)
    moved = dataclasses.replace(layout, home=home, scratch=home / ".tether" / "scratch" / "s1")
    moved.hand_over()
    return moved


CALLERS = ["root", "unprivileged"] if os.geteuid() == 0 else ["caller"]


@pytest.fixture(params=CALLERS)
def boundary(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Layout]:
    """A layout for each kind of caller (see the module docstring)."""
    if request.param != "unprivileged":
        yield _layout(tmp_path.resolve(), unprivileged=False)
        return
    if SETPRIV is None:
        pytest.skip("setpriv (util-linux) is not installed: cannot start bwrap unprivileged")
    # Not under tmp_path: pytest's directory is root's alone (mode 0700).
    base = Path(tempfile.mkdtemp(prefix="tether-unprivileged-", dir="/tmp")).resolve()
    try:
        base.chmod(0o755)
        paths = _layout(base, unprivileged=True)
        paths.hand_over()
        yield paths
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _layout(base: Path, *, unprivileged: bool) -> Layout:
    paths = Layout(
        base / "ws",
        base / "tether" / "scratch" / "s1",
        base / "home",
        base / "outside",
        unprivileged,
    )
    for path in (paths.workspace, paths.home, paths.outside):
        path.mkdir(parents=True)
    return paths


def host_processes_with(token: str) -> list[int]:
    """Host pids whose command line holds `token` (pids inside the sandbox are its own)."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if token.encode() in cmdline and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


async def wait_until(condition: Callable[[], bool], *, limit_s: float = 20.0) -> bool:
    """Poll `condition()` until true; the limit only stops a broken test from hanging."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit_s
    while loop.time() < deadline:
        if condition():
            return True
        await asyncio.sleep(0.02)
    return condition()


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path below `root` with its content (None for directories and links, which are not
    followed): equal snapshots before and after a command mean it changed nothing there."""
    found: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            key = str(path.relative_to(root))
            found[key] = None if path.is_dir() or path.is_symlink() else path.read_bytes()
    return found
