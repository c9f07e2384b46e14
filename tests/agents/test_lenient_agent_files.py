"""Agent files as Claude Code loads them (the bundled CLI lists each of these): `tools: *` gives
every tool of the caller's (before, a tool named `*` and so none at all); a name with spaces
and an empty body are an agent like any other (before, the file was refused)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def subagent_tools(fake_model: FakeModelServer) -> set[str]:
    return {tool["name"] for tool in fake_model.requests[1].body["tools"]}


@pytest.mark.parametrize("tools", ['"*"', "'*'", '["*"]', "\n  - '*'"])
def test_an_agent_file_with_every_tool(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path, tools: str
) -> None:
    agents = trusted_workspace / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text(
        f"---\nname: helper\ndescription: Helps with anything\ntools: {tools}\n---\nYou help.\n"
    )
    fake_model.script(
        reply(tool_use("Task", description="help", prompt="help me", subagent_type="helper")),
        reply(text("helped")),
        reply(text("done")),
    )
    result = tether("-p", "get help")
    assert result.exit_code == 0, result.stderr
    assert {"Read", "Edit", "Bash", "Grep"} <= subagent_tools(fake_model)


async def test_an_sdk_programs_agent_with_every_tool(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    from claude_agent_sdk import AgentDefinition

    model_env.script(
        reply(tool_use("Task", description="help", prompt="help me", subagent_type="helper")),
        reply(text("helped")),
        reply(text("done")),
    )
    helper = AgentDefinition(description="Helps with anything", prompt="You help.", tools=["*"])
    await SdkRun(workspace, home).query(
        "get help", agents={"helper": helper}, permission_mode="bypassPermissions"
    )
    assert {"Read", "Edit", "Bash", "Grep"} <= subagent_tools(model_env)


def test_an_agent_named_with_spaces_and_no_body_runs(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path
) -> None:
    agents = trusted_workspace / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text("---\nname: Code Reviewer\ndescription: Reviews\n---\n")
    fake_model.script(
        reply(tool_use("Task", description="r", prompt="review it", subagent_type="Code Reviewer")),
        reply(text("reviewed")),
        reply(text("done")),
    )
    result = tether("-p", "review")
    assert result.exit_code == 0, result.stderr
    assert "- Code Reviewer: Reviews" in str(fake_model.requests[0].body["messages"])
    assert "review it" in str(fake_model.requests[1].messages()[0]["content"])
    assert fake_model.requests[2].tool_result_errors() == [False]
