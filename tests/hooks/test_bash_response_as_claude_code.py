"""A Bash call's PostToolUse `tool_response` beside Claude Code's own: the same command, the same
fake API, the real Claude Code CLI (bundled in the claude-agent-sdk wheel) and tether. Claude
Code runs a command with its stderr joined to its stdout, so `stdout` holds both, in the order
printed, and `stderr` is empty; tether's must be the same object."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_claude_code_reference import BUNDLED, claude_code
from tests.hooks.helpers import command_hook, on
from tests.hooks.wire import dump_command, dumped, write_settings
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import run_cli

COMMAND = "echo out; echo err >&2; echo out2"


def _responses(dumps: Path) -> list[dict[str, Any]]:
    return [d["tool_response"] for d in dumped(dumps, "PostToolUse")]


@pytest.mark.skipif(not BUNDLED.exists(), reason="this claude-agent-sdk wheel bundles no CLI")
async def test_bash_tool_response_is_claude_codes(
    model_env: FakeModelServer, trusted_workspace: Path, tmp_path: Path
) -> None:
    theirs, ours = tmp_path / "claude-dumps", tmp_path / "tether-dumps"
    turns = (reply(tool_use("Bash", command=COMMAND)), reply(text("ok")))
    write_settings(
        trusted_workspace, {"PostToolUse": on("Bash", command_hook(dump_command(theirs)))}
    )
    model_env.script(*turns)
    await claude_code("go", trusted_workspace, tmp_path)
    told_claude = model_env.requests[1].tool_results()

    write_settings(trusted_workspace, {"PostToolUse": on("Bash", command_hook(dump_command(ours)))})
    model_env.reset()
    model_env.script(*turns)
    argv = ["--cwd", str(trusted_workspace), "--permission-mode", "bypassPermissions", "-p", "go"]
    result = run_cli(argv)
    assert result.exit_code == 0, result.stderr

    assert (
        _responses(ours)
        == _responses(theirs)
        == [
            {
                "stdout": "out\nerr\nout2",
                "stderr": "",
                "interrupted": False,
                "isImage": False,
                "noOutputExpected": False,
            }
        ]
    )
    assert model_env.requests[1].tool_results() == told_claude
