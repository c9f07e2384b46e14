"""What Stop and SubagentStop hooks read of the work still running, with the real Claude Agent
SDK over the wire: Claude Code's `background_tasks` (each command and subagent in flight, its
id, type, status, description, and its command or agent type) and `session_crons` (tether
schedules none), as the bundled Claude Code CLI gives them on the same script. Before, both
were missing, and a Stop hook checking for background work saw nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claude_agent_sdk import HookMatcher, ResultMessage

from tests.cli.background_agents import FOREVER, WAIT_FOR_GO, replies
from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, text, tool_use

SUB_PROMPT = "SUBTASK: look for the answer"


async def test_stop_hooks_are_told_what_runs_in_the_background(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    long_line = "echo " + "x" * 1200
    fake_model.responder = replies(
        main=[
            tool_use(
                "Bash", command=WAIT_FOR_GO, description="wait for go", run_in_background=True
            ),
            tool_use("Bash", command=f"{long_line}; {FOREVER}", run_in_background=True),
            tool_use(
                "Task", description="look", prompt=SUB_PROMPT, subagent_type="general-purpose"
            ),
            text("done"),
        ],
        sub=[text("found it")],
    )
    seen: dict[str, dict[str, Any]] = {}

    async def record(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        seen[hook_input["hook_event_name"]] = hook_input
        return {}

    hooks = {event: [HookMatcher(hooks=[record])] for event in ("Stop", "SubagentStop")}
    async with sdk.client(permission_mode="bypassPermissions", hooks=hooks) as client:
        await client.query("go")
        messages = [m async for m in client.receive_response()]
        (workspace / "go").touch()
    assert [m.result for m in messages if isinstance(m, ResultMessage)] == ["done"]
    clipped = f"{long_line}; {FOREVER}"
    cut = clipped[:1000] + f"… [+{len(clipped) - 1000} chars]"
    running = [
        {
            "id": "bash_1",
            "type": "shell",
            "status": "running",
            "description": "wait for go",
            "command": WAIT_FOR_GO,
        },
        # No description: the command says what it is; each capped as Claude Code caps it.
        {"id": "bash_2", "type": "shell", "status": "running", "description": cut, "command": cut},
    ]
    for event in ("Stop", "SubagentStop"):  # a subagent's: the session's work
        assert seen[event]["background_tasks"] == running
        assert seen[event]["session_crons"] == []
    sdk.assert_lines_parse()


async def test_a_running_background_subagent_is_listed_with_its_type(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.responder = replies(
        main=[
            tool_use(
                "Task",
                description="find the answer",
                prompt=SUB_PROMPT,
                subagent_type="general-purpose",
                run_in_background=True,
            ),
            text("started"),
            text("woke"),
        ],
        sub=[tool_use("Bash", command=WAIT_FOR_GO, description="wait"), text("SUB-RESULT")],
    )
    stops: list[list[dict[str, Any]]] = []

    async def record(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        if hook_input["hook_event_name"] == "Stop":
            stops.append(hook_input["background_tasks"])
        return {}

    async with sdk.client(
        permission_mode="bypassPermissions", hooks={"Stop": [HookMatcher(hooks=[record])]}
    ) as client:
        await client.query("go")
        [m async for m in client.receive_response()]
        (workspace / "go").touch()
        [m async for m in client.receive_response()]  # the turn its end wakes
    [first, *_] = stops
    [agent] = first
    assert {k: v for k, v in agent.items() if k != "id"} == {
        "type": "subagent",
        "status": "running",
        "description": "find the answer",
        "agent_type": "general-purpose",
    }
    assert stops[-1] == []  # it ended before the turn it woke stopped
    sdk.assert_lines_parse()
