"""A background command (`Bash` with `run_in_background`) that outlives the turn that started
it, as the bundled Claude Code CLI does on the same script (checked side by side on the fake
server): its end wakes the idle model for a turn of its own (the result's `origin` says a
task's notification started it), as a background subagent's does; `-p` waits for it and that
turn before the process exits. Before, an idle session heard nothing of it, and `-p` exited at
once, killing the command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claude_agent_sdk import ResultMessage

from tests.cli.background_agents import WAIT_FOR_GO, WOKEN
from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import run_cli_process

ORIGIN = {"kind": "task-notification", "producer": "session-task"}


def _start(workspace: Path) -> Any:
    return tool_use(
        "Bash",
        command=f"{WAIT_FOR_GO}; echo BGDONE > done.txt",
        description="wait for go",
        run_in_background=True,
    )


async def test_an_idle_session_is_woken_by_a_background_commands_end(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(
        reply(_start(workspace)), reply(text("started")), reply(text("WOKE")), reply(text("served"))
    )
    async with sdk.client(permission_mode="bypassPermissions") as client:
        await client.query("start it")
        first = [m async for m in client.receive_response()]
        (workspace / "go").touch()  # it ends with no turn running
        woken = [m async for m in client.receive_response()]
        await client.query("and now?")
        after = [m async for m in client.receive_response()]
    results = [m for m in [*first, *woken, *after] if isinstance(m, ResultMessage)]
    assert [r.result for r in results] == ["started", "WOKE", "served"]
    lines = [line for line in sdk.lines() if line["type"] == "result"]
    assert [(line["result"], line.get("origin")) for line in lines] == [
        ("started", None),
        ("WOKE", ORIGIN),
        ("served", None),
    ]
    wake = fake_model.requests[2].last_user_text()
    assert WOKEN in wake
    assert "Background command bash_1" in wake
    assert "exited with code 0" in wake
    assert (workspace / "done.txt").read_text() == "BGDONE\n"
    assert len(fake_model.requests) == 4  # told once: the next prompt is not told again
    assert "Background command bash_1" not in fake_model.requests[3].last_user_text()
    sdk.assert_lines_parse()


def test_print_mode_waits_for_the_command_and_its_turn(
    model_env: FakeModelServer, workspace: Path
) -> None:
    def respond(request: Any) -> Any:
        step = sum(1 for m in request.messages() if m.get("role") == "assistant")
        if step == 1:  # the turn's last step is asked for: the command ends after it
            (workspace / "go").touch()
        return [_start(workspace), text("started"), text("WOKE")][min(step, 2)]

    model_env.responder = respond
    flags = ["--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"]
    result = run_cli_process(["-p", "go", *flags], cwd=workspace)
    assert result.exit_code == 0, result.stderr
    lines = result.json_lines()
    results = [(line["result"], line.get("origin")) for line in lines if line["type"] == "result"]
    assert results == [("started", None), ("WOKE", ORIGIN)]
    assert WOKEN in model_env.requests[2].last_user_text()
    assert (workspace / "done.txt").read_text() == "BGDONE\n"


def _waiting(name: str) -> Any:
    return tool_use(
        "Bash",
        command=f"while [ ! -f {name} ]; do sleep 0.05; done",
        description=f"wait for {name}",
        run_in_background=True,
    )


def _two_ends(workspace: Path) -> Any:
    """Two background commands: the first ends once the turn's last step is asked for, the
    second once the turn the first's end woke is."""

    def respond(request: Any) -> Any:
        step = sum(1 for m in request.messages() if m.get("role") == "assistant")
        if step in (1, 2):
            (workspace / f"go{step}").touch()
        turns = [reply(_waiting("go1"), _waiting("go2")), text("started"), text("WOKE-1")]
        return turns[step] if step < len(turns) else text("WOKE-2")

    return respond


def test_print_mode_prints_each_turns_answer_and_wakes_for_each_end(
    model_env: FakeModelServer, workspace: Path
) -> None:
    # As Claude Code on the same script: each end while the model is idle wakes it once more,
    # and the text output is every turn's answer, a blank line between.
    model_env.responder = _two_ends(workspace)
    result = run_cli_process(["-p", "go", "--dangerously-skip-permissions"], cwd=workspace)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "started\n\nWOKE-1\n\nWOKE-2\n"
    assert len(model_env.requests) == 4
    assert "bash_1" in model_env.requests[2].last_user_text()
    assert "bash_2" in model_env.requests[3].last_user_text()


def test_print_mode_json_is_the_last_turns_result(
    model_env: FakeModelServer, workspace: Path
) -> None:
    model_env.responder = _two_ends(workspace)
    flags = ["--output-format", "json", "--dangerously-skip-permissions"]
    result = run_cli_process(["-p", "go", *flags], cwd=workspace)
    assert result.exit_code == 0, result.stderr
    [line] = result.json_lines()
    assert (line["result"], line["origin"]) == ("WOKE-2", ORIGIN)
