"""A call by the name Claude Code gives a tool now (`Agent` for tether's `Task`, `TaskOutput`
and `TaskStop` for `BashOutput` and `KillShell`) runs that tool, as Claude Code runs a call by
its tools' old names: a model used to Claude Code's names is not told there is no such tool,
and the rules and hooks judge the call as the tool's, whichever name it came by."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def agent_call(prompt: str) -> dict[str, object]:
    return tool_use("Agent", description="look", prompt=prompt, subagent_type="general-purpose")


def test_a_call_to_agent_runs_a_subagent(fake_model: FakeModelServer, tether: Run) -> None:
    fake_model.script(
        reply(agent_call("say seven")),
        reply(text("seven")),  # the subagent's answer
        reply(text("It said seven.")),
    )
    result = tether("-p", "ask a subagent")
    assert result.exit_code == 0, result.stderr
    subagent, after = fake_model.requests[1:]
    assert "say seven" in str(subagent.messages()[0]["content"])
    assert after.tool_result_errors() == [False], after.tool_results()
    assert after.tool_results()[0].startswith("seven")


@pytest.mark.usefixtures("trusted_workspace")
def test_a_call_to_agent_is_judged_as_task_by_rules_and_hooks(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    seen = workspace / "seen.jsonl"
    write = f"import sys; open({str(seen)!r}, 'a').write(sys.stdin.read() + '\\n')"
    hook = f'{sys.executable} -c "{write}"'
    settings = {
        "permissions": {"deny": ["Task(general-purpose)"]},
        "hooks": {
            "PreToolUse": [{"matcher": "Task", "hooks": [{"type": "command", "command": hook}]}]
        },
    }
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(json.dumps(settings))
    fake_model.script(reply(agent_call("say seven")), reply(text("denied")))
    result = tether("-p", "ask a subagent", "--permission-mode", "default")
    assert result.exit_code == 0, result.stderr
    assert len(fake_model.requests) == 2  # no subagent ran
    after = fake_model.requests[1]
    assert after.tool_result_errors() == [True]
    assert "No such tool" not in after.tool_results()[0]
    assert "Task(general-purpose)" in after.tool_results()[0]  # the rule that denied it
    payload = json.loads(seen.read_text().splitlines()[0])
    assert payload["tool_name"] == "Agent"  # as Claude Code names it to its hooks
