"""PermissionRequest command hooks answer the question the user would be asked, headless too:
a live session over the wire, real hook commands."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hooks.helpers import command_hook, on
from tests.hooks.wire import dump_command, dumped, python_hook, write_settings
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]

POLICY = """\
import json, sys
call = json.load(sys.stdin)
command = call["tool_input"]["command"]
if command.startswith("touch "):
    decision = {"behavior": "allow", "updatedInput": {"command": command + "-checked"}}
elif command.startswith("curl"):
    decision = {"behavior": "deny", "message": "no network from here"}
else:
    decision = {"behavior": "deny", "message": "stop now", "interrupt": True}
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                         "decision": decision}}))
"""


@pytest.mark.usefixtures("trusted_workspace")
def test_permission_request_hooks_allow_with_new_input_and_deny_headless(
    fake_model: FakeModelServer, tether: Run, workspace: Path, tmp_path: Path
) -> None:
    dumps = tmp_path / "dumps"
    policy = python_hook(tmp_path / "policy.py", POLICY)
    write_settings(
        workspace,
        {"PermissionRequest": on("Bash", command_hook(policy), command_hook(dump_command(dumps)))},
    )
    fake_model.script(
        reply(tool_use("Bash", command="touch made")),
        reply(tool_use("Bash", command="curl -s example.invalid")),
        reply(text("done")),
    )
    result = tether("-p", "go", "--permission-mode", "default", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    # Allowed, with the hook's input: the command that ran is the hook's.
    assert (workspace / "made-checked").exists()
    assert not (workspace / "made").exists()
    [denied] = fake_model.requests[2].tool_results()
    assert denied == "Denied by hook: no network from here"
    body = result.json()
    assert [d["tool_input"]["command"] for d in body["permission_denials"]] == [
        "curl -s example.invalid"
    ]
    first, second = dumped(dumps)
    assert first["tool_name"] == "Bash"
    assert first["tool_input"] == {"command": "touch made"}
    assert first["permission_mode"] == "default"
    assert first["permission_suggestions"]  # what "always allow" would add, as Claude Code
    assert second["tool_input"] == {"command": "curl -s example.invalid"}


@pytest.mark.usefixtures("trusted_workspace")
def test_a_permission_request_deny_with_interrupt_ends_the_turn(
    fake_model: FakeModelServer, tether: Run, workspace: Path, tmp_path: Path
) -> None:
    policy = python_hook(tmp_path / "policy.py", POLICY)
    write_settings(workspace, {"PermissionRequest": on("Bash", command_hook(policy))})
    fake_model.script(reply(tool_use("Bash", command="make install")), reply(text("never asked")))
    result = tether("-p", "go", "--permission-mode", "default", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    assert len(fake_model.requests) == 1
    assert result.json()["permission_denials"][0]["tool_input"] == {"command": "make install"}


@pytest.mark.usefixtures("trusted_workspace")
def test_no_permission_request_when_a_rule_already_answers(
    fake_model: FakeModelServer, tether: Run, workspace: Path, tmp_path: Path
) -> None:
    dumps = tmp_path / "dumps"
    write_settings(
        workspace,
        {"PermissionRequest": on("", command_hook(dump_command(dumps)))},
        permissions={"allow": ["Bash(echo *)"]},
    )
    fake_model.script(reply(tool_use("Bash", command="echo fine")), reply(text("done")))
    result = tether("-p", "go", "--permission-mode", "default")
    assert result.exit_code == 0, result.stderr
    assert dumped(dumps) == []
