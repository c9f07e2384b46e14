"""What a custom command's text does before it is sent, as in Claude Code: ``!`command` `` runs
under the command's `allowed-tools` and its output is put in its place, `@file` is read into
the message, `model:` picks the model of its turn, and UserPromptExpansion hooks see (and may
add to, or block) every `/command` that expands; headless and in the REPL."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.repl_terminal import CTRL_D, AfterTurn, Terminal
from tests.hooks.helpers import command_hook, on
from tests.hooks.wire import dump_command, dumped, python_hook, write_settings
from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]

FIX_ISSUE = """\
---
description: Fix an issue
argument-hint: <number> <priority>
allowed-tools: Bash(echo *)
model: haiku
---
Fix issue $0 ($1). Status: !`echo ready-$0`. Look at @src/calc.py please.
"""

CONTEXT = """\
import json
print(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptExpansion",
    "additionalContext": "the tracker says: flaky"}}))
"""


def _workspace(workspace: Path, command: str = FIX_ISSUE) -> None:
    (workspace / ".claude" / "commands").mkdir(parents=True, exist_ok=True)
    (workspace / ".claude" / "commands" / "fix-issue.md").write_text(command)
    (workspace / "src").mkdir(exist_ok=True)
    (workspace / "src" / "calc.py").write_text("def add(a, b):\n    return a - b\n")


def test_a_command_runs_its_shell_commands_reads_its_files_and_uses_its_model(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path, tmp_path: Path
) -> None:
    _workspace(trusted_workspace)
    dumps = tmp_path / "dumps"
    hook = python_hook(tmp_path / "ctx.py", CONTEXT)
    write_settings(
        trusted_workspace,
        {
            "UserPromptExpansion": on(
                "fix-issue", command_hook(dump_command(dumps)), command_hook(hook)
            )
        },
    )
    fake_model.script(reply(text("Fixed.")))
    result = tether("-p", "/fix-issue 42 high", "--permission-mode", "default")
    assert result.exit_code == 0, result.stderr
    [request] = fake_model.requests
    assert request.body["model"] == "claude-haiku-5-5"
    sent = str(request.messages())
    assert "Fix issue 42 (high). Status: ready-42. Look at @src/calc.py please." in sent
    assert "return a - b" in sent  # the file, read with the Read tool into the message
    assert "the tracker says: flaky" in sent
    [expanded] = dumped(dumps, "UserPromptExpansion")
    assert {k: expanded[k] for k in ("expansion_type", "command_name", "command_args")} == {
        "expansion_type": "slash_command",
        "command_name": "fix-issue",
        "command_args": "42 high",
    }
    assert expanded["command_source"] == "projectSettings"
    assert expanded["prompt"].startswith("Fix issue 42 (high). Status: ready-42.")


def test_a_shell_command_its_allowed_tools_do_not_allow_is_refused_with_its_name(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path
) -> None:
    _workspace(trusted_workspace, FIX_ISSUE.replace("echo ready-$0", "touch made-$0"))
    result = tether("-p", "/fix-issue 42 high", "--permission-mode", "default")
    assert result.exit_code == 1
    assert "/fix-issue: !`touch made-42` is not allowed" in result.stdout + result.stderr
    assert not (trusted_workspace / "made-42").exists()
    assert fake_model.requests == []


def test_a_user_prompt_expansion_hook_blocks_a_command(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path, tmp_path: Path
) -> None:
    _workspace(trusted_workspace)
    block = python_hook(
        tmp_path / "block.py",
        'import json\nprint(json.dumps({"decision": "block", "reason": "frozen"}))\n',
    )
    write_settings(trusted_workspace, {"UserPromptExpansion": on("", command_hook(block))})
    result = tether("-p", "/fix-issue 42 high")
    assert result.exit_code == 1
    said = result.stdout + result.stderr
    assert "/fix-issue was blocked by a UserPromptExpansion hook: frozen" in said
    assert fake_model.requests == []


@pytest.mark.usefixtures("trusted_workspace")
async def test_in_the_repl_a_command_uses_its_model_for_its_turn_only(
    model_env: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    _workspace(workspace)
    dumps = tmp_path / "dumps"
    write_settings(workspace, {"UserPromptExpansion": on("", command_hook(dump_command(dumps)))})
    model_env.script(reply(text("Fixed.")), reply(text("Plain.")))
    terminal = Terminal()
    steps = ("/fix-issue 7 low\r", AfterTurn("thanks\r"), AfterTurn(CTRL_D))
    assert await terminal.type_steps(workspace, *steps) == 0
    models = [r.body["model"] for r in model_env.requests]
    assert models == ["claude-haiku-5-5", "claude-sonnet-5-5"]
    first = str(model_env.requests[0].messages())
    assert "Status: ready-7." in first
    assert "return a - b" in first
    assert [d["command_name"] for d in dumped(dumps)] == ["fix-issue"]
    assert model_env.requests[1].last_user_text() == "thanks"
