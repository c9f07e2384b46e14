"""Fixtures for the built-in tools: a workspace on tmp_path and a way to call a tool through
the registry, exactly as the agent loop does."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tether.protocol import ToolUseBlock
from tether.slotted import replaced
from tether.tools.builtin import builtin_tools
from tether.tools.context import ToolContext
from tether.tools.registry import ToolOutcome, ToolRegistry

RunTool = Callable[..., Awaitable[ToolOutcome]]


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return ToolContext(workspace=workspace, scratch_dir=tmp_path / "scratch")


@pytest.fixture
def ws(ctx: ToolContext) -> Path:
    return ctx.workspace


@pytest.fixture
def run_tool(ctx: ToolContext) -> RunTool:
    """`await run_tool("Read", file_path="a.txt")`; the outcome's duration and structured
    result are left out so that whole outcomes compare equal (the structured results have
    tests of their own: test_structured_results)."""
    registry = ToolRegistry(builtin_tools())

    async def run(name: str, /, **tool_input: Any) -> ToolOutcome:
        outcome = await registry.run(ToolUseBlock(id="call_1", name=name, input=tool_input), ctx)
        return replaced(outcome, duration_ms=0, structured=None)

    return run
