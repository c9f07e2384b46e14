"""A misspelled tool name in --allowedTools / --disallowedTools or `permissions check --tool`
is warned about with the nearest known tool: the rule would match nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.main import main as tether_main
from tether.permissions.tool_names import KNOWN_TOOLS
from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult
from tether.tools.builtin import builtin_tools

Run = Callable[..., CliResult]


@pytest.mark.parametrize("flag", ["--allowedTools", "--disallowedTools"])
def test_a_misspelled_tool_in_a_flag_is_warned_about(
    fake_model: FakeModelServer, tether: Run, flag: str
) -> None:
    fake_model.script(reply(text("hello")))
    result = tether("-p", "hi", flag, "Bsh(ls)", "Read", "mcp__time__now")
    assert (result.exit_code, result.stdout) == (0, "hello\n")
    assert result.stderr == f'tether: warning: {flag}: unknown tool "Bsh" (did you mean "Bash"?)\n'


def test_known_tools_are_not_warned_about(fake_model: FakeModelServer, tether: Run) -> None:
    fake_model.script(reply(text("hello")))
    rules = ["Bash(git *)", "Edit", "WebFetch(domain:example.com)", "Agent", "mcp__s"]
    result = tether("-p", "hi", "--allowedTools", *rules, "--disallowedTools", "NotebookEdit")
    assert (result.exit_code, result.stderr) == (0, "")


def test_permissions_check_names_the_nearest_tool(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--cwd", str(workspace), "--tool", "Bsh", "--input", '{"command": "ls"}']
    code = tether_main(["permissions", "check", *argv])
    captured = capsys.readouterr()
    assert code == 0
    assert json.loads(captured.out)["decision"] == "ask"
    assert captured.err == 'tether: warning: --tool: unknown tool "Bsh" (did you mean "Bash"?)\n'


def test_every_builtin_tool_is_known() -> None:
    assert {tool.name for tool in builtin_tools()} <= KNOWN_TOOLS
