"""Fixtures for the sandbox: a session layout on tmp_path (workspace, scratch, a fake home that
is never the real one), and the Bash tool run through the registry with the sandbox's wrapper.

Everything under tmp_path is out of sight inside the sandbox (its /tmp is the session's own),
so a path a test wants seen inside must be the workspace, under it, or made writable."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tether.protocol import ToolUseBlock
from tether.sandbox import Sandbox, SandboxSettings, plan_sandbox, probe
from tether.tools.builtin import builtin_tools
from tether.tools.context import ToolContext
from tether.tools.registry import ToolOutcome, ToolRegistry

STATUS = probe()
needs_bwrap = pytest.mark.skipif(
    not STATUS.works, reason=f"bubblewrap cannot run here: {STATUS.reason}"
)
"""For tests that run commands under bubblewrap."""

RunBash = Callable[..., Awaitable[ToolOutcome]]


@dataclasses.dataclass(frozen=True)
class Layout:
    workspace: Path
    scratch: Path
    home: Path
    outside: Path
    """A directory beside the workspace, not writable in the sandbox."""

    def sandbox(self, **settings: Any) -> Sandbox:
        sandbox, notice, refused = plan_sandbox(
            SandboxSettings(**settings),
            STATUS,
            workspace=self.workspace,
            scratch_dir=self.scratch,
            home=self.home,
        )
        assert (notice, refused) == (None, False)
        assert sandbox is not None
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
        return dataclasses.replace(outcome, duration_ms=0)

    return run


def sandboxed_context(layout: Layout, **settings: Any) -> ToolContext:
    return ToolContext(
        workspace=layout.workspace,
        scratch_dir=layout.scratch,
        command_wrapper=layout.sandbox(**settings).wrap,
    )


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
