"""All calls of one response start together; results return in call order; mutating calls on
the same file wait for each other."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import BaseModel

from tether.core.loop import Agent
from tether.core.tool_calls import CallsStopped, run_calls
from tether.protocol import Event, ToolStarted, ToolUseBlock
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult
from tether.tools.base import tool
from tether.tools.context import ToolContext
from tether.tools.registry import ToolRegistry

Run = Callable[..., CliResult]


def _waits_for(mine: str, other: str) -> str:
    """A command that can only finish while the other one runs too (or times out)."""
    return (
        f"touch {mine}; for i in $(seq 300); do [ -f {other} ] && break; sleep 0.01; done; "
        f"[ -f {other} ] && echo saw-{other}"
    )


def test_bash_calls_overlap_and_answer_in_call_order(
    fake_model: FakeModelServer, tether: Run
) -> None:
    fake_model.script(
        reply(
            tool_use("Bash", command=_waits_for("a", "b") + "; sleep 0.2; echo first-done"),
            tool_use("Bash", command=_waits_for("b", "a")),
            tool_use("Read", file_path="missing.txt"),
        ),
        reply(text("done")),
    )
    result = tether("-p", "go")
    assert result.exit_code == 0, result.stderr
    follow_up = fake_model.requests[1]
    assert follow_up.tool_results()[:2] == ["saw-b\nfirst-done", "saw-a"]
    assert follow_up.tool_result_errors() == [False, False, True]


class _SlowInput(BaseModel):
    file_path: str
    label: str


def _agent(tmp_path: Path, log: list[str]) -> Agent:
    @tool("SlowWrite", read_only=False)
    async def slow_write(ctx: ToolContext, args: _SlowInput) -> str:
        """Writes slowly."""
        log.append(f"start {args.label}")
        await asyncio.sleep(0.05)
        log.append(f"end {args.label}")
        return args.label

    @tool("SlowRead", read_only=True)
    async def slow_read(ctx: ToolContext, args: _SlowInput) -> str:
        """Reads slowly."""
        log.append(f"start {args.label}")
        await asyncio.sleep(0.05)
        log.append(f"end {args.label}")
        return args.label

    return Agent(
        model=None,  # type: ignore[arg-type]  # run_calls never calls the model
        model_id="none",
        system_prompt="",
        tools=ToolRegistry([slow_write, slow_read]),
        tool_context=ToolContext(workspace=tmp_path, scratch_dir=tmp_path / "scratch"),
    )


def _call(n: int, name: str, path: str) -> ToolUseBlock:
    return ToolUseBlock(id=f"c{n}", name=name, input={"file_path": path, "label": f"c{n}"})


async def test_writes_to_one_path_take_turns_while_others_overlap(tmp_path: Path) -> None:
    log: list[str] = []
    agent = _agent(tmp_path, log)
    events: list[Event] = []
    calls = [
        _call(1, "SlowWrite", "same.txt"),
        _call(2, "SlowWrite", "./same.txt"),  # the same file, spelled differently
        _call(3, "SlowWrite", "other.txt"),
        _call(4, "SlowRead", "same.txt"),
    ]
    results = await run_calls(agent, calls, events.append, None, [], unfinished="x")
    assert [r.block.content for r in results] == ["c1", "c2", "c3", "c4"]
    # c1 and c2 never overlap; c3 and c4 run alongside c1.
    assert log.index("end c1") < log.index("start c2")
    assert log.index("start c3") < log.index("end c1")
    assert log.index("start c4") < log.index("end c1")
    assert agent.locks._locks == {}  # pyright: ignore[reportPrivateUsage]


async def test_cancelled_calls_are_each_answered(tmp_path: Path) -> None:
    log: list[str] = []
    agent = _agent(tmp_path, log)
    both_started = asyncio.Event()

    def emit(event: Event) -> None:
        if isinstance(event, ToolStarted) and event.call_id == "c2":
            both_started.set()

    task = asyncio.create_task(
        run_calls(
            agent,
            [_call(1, "SlowRead", "a"), _call(2, "SlowWrite", "b")],
            emit,
            None,
            [],
            unfinished="interrupted",
        )
    )
    await both_started.wait()
    task.cancel()
    with pytest.raises(CallsStopped) as stopped:
        await task
    assert isinstance(stopped.value.cause, asyncio.CancelledError)
    assert [(r.tool_use_id, r.content, r.is_error) for r in stopped.value.results] == [
        ("c1", "interrupted", True),
        ("c2", "interrupted", True),
    ]
