"""A subagent's task lines carry what Claude Code's carry (the bundled Claude Code CLI, run
side by side on the fake server): every line of one run of a task names it by its `run_id`;
`task_started` says how deep the subagent is (`spawn_depth`); `task_notification` names its
output file (the subagent's transcript). Before, there was no run id nor depth, and the output
file was empty."""

from __future__ import annotations

import re
from pathlib import Path

from claude_agent_sdk import ResultMessage

from tests.cli.background_agents import launch, replies, task_lines
from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use

RUN_ID = re.compile(r"[0-9a-z]{9}-[0-9a-f]{8}")
"""Claude Code's form: the time in base 36, a dash, eight hex digits."""


async def test_a_subagents_lines_name_its_run_depth_and_transcript(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    call = tool_use(
        "Agent", description="look", prompt="look around", subagent_type="general-purpose"
    )
    fake_model.script(
        reply(call),
        reply(tool_use("Bash", command="echo hi")),  # the subagent's
        reply(text("seen")),
        reply(text("done")),
    )
    messages = await sdk.query("go", permission_mode="bypassPermissions")
    assert [m.result for m in messages if isinstance(m, ResultMessage)] == ["done"]
    lines = task_lines(messages)
    assert [t["subtype"] for t in lines] == [
        "task_started",
        "task_progress",
        "task_updated",
        "task_notification",
    ]
    started, _progress, _updated, told = lines
    assert RUN_ID.fullmatch(started["run_id"]), started
    assert {t["run_id"] for t in lines} == {started["run_id"]}
    assert (started["spawn_depth"], started["is_backgrounded"]) == (1, False)
    transcript = Path(told["output_file"])
    assert transcript.name.endswith(".jsonl"), transcript
    assert "look around" in transcript.read_text()
    # Its messages say what it is for, as Claude Code's.
    its_lines = [line for line in sdk.lines() if line.get("parent_tool_use_id")]
    assert [line["type"] for line in its_lines] == ["assistant", "user", "assistant"]
    assert {line["task_description"] for line in its_lines} == {"look"}
    sdk.assert_lines_parse()


async def test_a_background_subagents_output_file_is_the_one_its_call_said(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.responder = replies(main=[launch(), text("started")], sub=[text("found")])
    async with sdk.client(permission_mode="bypassPermissions") as client:
        await client.query("find it in the background")
        seen = [m async for m in client.receive_response()]
        if not any(t["subtype"] == "task_notification" for t in task_lines(seen)):
            async for message in client.receive_messages():
                seen.append(message)
                if any(t["subtype"] == "task_notification" for t in task_lines(seen)):
                    break
    results = [getattr(m, "tool_use_result", None) for m in seen]
    [launched] = [r for r in results if isinstance(r, dict) and "outputFile" in r]
    [told] = [t for t in task_lines(seen) if t["subtype"] == "task_notification"]
    assert told["output_file"] == launched["outputFile"] != ""
    [running] = [t for t in task_lines(seen) if t["subtype"] == "background_tasks_changed"][:1]
    assert running["tasks"][0]["run_id"] == told["run_id"]
    sdk.assert_lines_parse()
