"""Subagents under the session's safety: hooks, questions to the user, interrupts."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
import textwrap
from pathlib import Path
from typing import Any

from tether.core.loop import INTERRUPTED
from tether.protocol import (
    Notice,
    PermissionAnswer,
    PermissionAsked,
    ToolResultBlock,
    TurnFinished,
    UserInput,
)
from tether.testing import FakeModelServer, reply, text, tool_use

from .conftest import MAIN, MakeHarness, Router, requests_of
from .test_task import task


def logging_hook(tmp_path: Path, name: str, stdout: str = "") -> tuple[str, Path]:
    """A command hook that appends its input to a log and prints `stdout`."""
    log = tmp_path / f"{name}.jsonl"
    script = tmp_path / f"{name}.py"
    script.write_text(
        textwrap.dedent(
            f"""\
            import sys
            with open({str(log)!r}, "a") as f:
                f.write(sys.stdin.read().strip() + "\\n")
            sys.stdout.write({stdout!r})
            """
        )
    )
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}", log


def read_log(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


async def test_tool_hooks_fire_for_the_subagents_calls_and_subagent_stop_after(
    fake_model: FakeModelServer, harness: MakeHarness, tmp_path: Path
) -> None:
    pre, pre_log = logging_hook(tmp_path, "pre")
    stop, stop_log = logging_hook(tmp_path, "stop")
    router = Router()
    router.add(MAIN, reply(task("hooked-job", subagent_type="Explore")), reply(text("done")))
    router.add(
        "hooked-job", reply(tool_use("Bash", command="echo from-child")), reply(text("seen"))
    )
    router.install(fake_model)
    run = harness(
        settings={
            "hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": pre}]}],
                "SubagentStop": [
                    {"matcher": "Explore", "hooks": [{"type": "command", "command": stop}]}
                ],
            }
        }
    )

    await run.turn("go")

    [pre_input] = read_log(pre_log)
    assert (pre_input["tool_name"], pre_input["tool_input"]) == (
        "Bash",
        {"command": "echo from-child"},
    )
    [stop_input] = read_log(stop_log)
    assert {k: stop_input[k] for k in ("hook_event_name", "agent_type", "stop_hook_active")} == {
        "hook_event_name": "SubagentStop",
        "agent_type": "Explore",
        "stop_hook_active": False,
    }
    assert stop_input["agent_id"] == run.journals[0].agent_id


async def test_a_blocking_subagent_stop_hook_sends_it_back_to_work(
    fake_model: FakeModelServer, harness: MakeHarness, tmp_path: Path
) -> None:
    once = tmp_path / "blocked-once"
    script = tmp_path / "stop.py"
    script.write_text(
        textwrap.dedent(
            f"""\
            import json, pathlib, sys
            marker = pathlib.Path({str(once)!r})
            if not marker.exists():
                marker.touch()
                print(json.dumps({{"decision": "block", "reason": "also run the tests",
                                  "systemMessage": "checking the subagent"}}))
            """
        )
    )
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    router = Router()
    router.add(MAIN, reply(task("lazy-job")), reply(text("done")))
    router.add("lazy-job", reply(text("first answer")), reply(text("tests pass too")))
    router.install(fake_model)
    run = harness(
        settings={"hooks": {"SubagentStop": [{"hooks": [{"type": "command", "command": command}]}]}}
    )

    events = await run.turn("go")

    second = requests_of(fake_model, "lazy-job", [MAIN, "lazy-job"])[1]
    assert "SubagentStop hook: also run the tests" in second.last_user_text()
    [result] = requests_of(fake_model, MAIN, [MAIN, "lazy-job"])[1].tool_results()
    assert result.startswith("tests pass too\n\n")
    notices = [e for e in events if isinstance(e, Notice)]
    assert [n.told for n in notices] == [
        "general-purpose subagent: SubagentStop:general-purpose says: checking the subagent"
    ]


async def test_a_subagent_asks_the_user_through_the_session(
    fake_model: FakeModelServer, harness: MakeHarness, workspace: Path
) -> None:
    router = Router()
    router.add(MAIN, reply(task("make-file")), reply(text("done")))
    router.add("make-file", reply(tool_use("Bash", command="touch made.txt")), reply(text("made")))
    router.add(MAIN, reply(task("make-again")), reply(text("done again")))
    router.add(
        "make-again", reply(tool_use("Bash", command="touch made.txt")), reply(text("again"))
    )
    router.install(fake_model)
    run = harness(mode="default")
    run.session.can_ask = True

    asked: list[PermissionAsked] = []
    async for event in run.session.submit(UserInput(text="make a file")):
        if isinstance(event, PermissionAsked):
            asked.append(event)
            run.session.answer(PermissionAnswer(request_id=event.request_id, choice="allow_always"))
    [question] = asked
    assert question.tool == "Bash"
    assert question.input == {"command": "touch made.txt"}
    assert question.reason.startswith("general-purpose subagent: ")
    assert (workspace / "made.txt").exists()
    # 'Always' holds for the session: the next subagent is not asked again.
    events = await run.turn("again")
    assert not any(isinstance(e, PermissionAsked) for e in events)
    assert question.suggestion is not None
    assert question.suggestion in run.session.agent.gate.sources.extra_allow  # type: ignore[union-attr]


async def test_an_interrupt_stops_the_subagent_and_answers_its_calls(
    fake_model: FakeModelServer, harness: MakeHarness, workspace: Path
) -> None:
    router = Router()
    router.add(MAIN, reply(task("slow-job")), reply(text("stopped as asked")))
    router.add(
        "slow-job",
        reply(tool_use("Bash", command="echo $$ > child.pid; sleep 60; touch never-run")),
    )
    router.install(fake_model)
    run = harness()
    pid_file = workspace / "child.pid"

    async def interrupt_once_started() -> None:
        for _ in range(2000):  # bounded: the command writes its pid at once
            if pid_file.exists() and pid_file.read_text().strip():
                run.session.interrupt()
                return
            await asyncio.sleep(0.01)
        raise AssertionError("the subagent's command never started")

    watcher = asyncio.create_task(interrupt_once_started())
    events = await run.turn("start something slow")
    await watcher

    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    assert finished.error == "interrupted by the user"
    assert not _alive(int(pid_file.read_text()))
    assert not (workspace / "never-run").exists()
    # The subagent's transcript answers its pending call, before it was closed.
    [journal] = run.journals
    assert journal.closed
    kind, blocks = journal.entries[-1]
    assert kind == "user"
    [answer] = blocks
    assert isinstance(answer, ToolResultBlock)
    assert (answer.content, answer.is_error) == (INTERRUPTED, True)
    assert len(run.usage) == 1
    assert run.usage[0][0].output_tokens > 0
    # The parent's Task call is answered too, and the session goes on.
    events = await run.turn("why did you stop?")
    follow_up = requests_of(fake_model, MAIN, [MAIN, "slow-job"])[1]
    assert follow_up.tool_results() == [INTERRUPTED]
    assert follow_up.tool_result_errors() == [True]


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")
