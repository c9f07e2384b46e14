"""Permission rules, modes and hooks as the model meets them: through the CLI, over the wire."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def _settings(workspace: Path, data: dict[str, object]) -> None:
    (workspace / ".claude").mkdir(exist_ok=True)
    (workspace / ".claude" / "settings.json").write_text(json.dumps(data))


def test_deny_rule_stops_a_compound_command_and_is_reported(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    (workspace / "keep.txt").write_text("precious")
    _settings(workspace, {"permissions": {"deny": ["Bash(rm *)"], "allow": ["Bash(echo *)"]}})
    fake_model.script(
        reply(tool_use("Bash", command="echo cleaning && rm keep.txt")), reply(text("ok"))
    )
    result = tether("-p", "clean", "--permission-mode", "default", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    assert (workspace / "keep.txt").exists()
    [content] = fake_model.requests[1].tool_results()
    assert content.startswith("Permission denied")
    assert fake_model.requests[1].tool_result_errors() == [True]
    denials = result.json()["permission_denials"]
    assert [(d["tool_name"], d["tool_input"]) for d in denials] == [
        ("Bash", {"command": "echo cleaning && rm keep.txt"})
    ]


def test_headless_ask_is_a_denial(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.script(reply(tool_use("Bash", command="curl -s example.invalid")), reply(text("ok")))
    result = tether("-p", "fetch", "--permission-mode", "default", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    assert "Permission denied" in fake_model.requests[1].tool_results()[0]
    assert len(result.json()["permission_denials"]) == 1


def test_allowed_tools_flag_and_plan_mode(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.script(
        reply(tool_use("Bash", command="touch made-by-rule")),
        reply(text("done")),
        reply(tool_use("Write", file_path="plan.txt", content="x")),
        reply(text("done")),
    )
    tether("-p", "go", "--permission-mode", "default", "--allowedTools", "Bash(touch *)")
    assert (workspace / "made-by-rule").exists()
    result = tether("-p", "plan", "--permission-mode", "plan")
    assert result.exit_code == 0, result.stderr
    assert not (workspace / "plan.txt").exists()
    assert "plan" in fake_model.requests[3].tool_results()[0].lower()


def test_bare_deny_removes_the_tool_from_the_offer(
    fake_model: FakeModelServer, tether: Run
) -> None:
    fake_model.script(reply(text("ok")))
    tether("-p", "hi", "--permission-mode", "default", "--disallowedTools", "Bash")
    assert "Bash" not in fake_model.requests[0].tool_names()
    assert "Read" in fake_model.requests[0].tool_names()


@pytest.mark.usefixtures("trusted_workspace")
def test_pre_tool_use_hook_blocks_and_post_hook_adds_context(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    guard = workspace / "guard.py"
    guard.write_text(
        "import json, sys\n"
        "call = json.load(sys.stdin)\n"
        "if 'secret' in call['tool_input'].get('file_path', ''):\n"
        "    print('no secrets', file=sys.stderr); sys.exit(2)\n"
    )
    note = workspace / "note.py"
    note.write_text(
        "import json\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PostToolUse',"
        " 'additionalContext': 'checked by note'}}))\n"
    )
    _settings(
        workspace,
        {
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Read",
                        "hooks": [{"type": "command", "command": f"{sys.executable} {guard}"}],
                    }
                ],
                "PostToolUse": [
                    {
                        "matcher": "Read",
                        "hooks": [{"type": "command", "command": f"{sys.executable} {note}"}],
                    }
                ],
            }
        },
    )
    (workspace / "secret.txt").write_text("s3cr3t")
    (workspace / "open.txt").write_text("hello")
    fake_model.script(
        reply(tool_use("Read", file_path="secret.txt"), tool_use("Read", file_path="open.txt")),
        reply(text("ok")),
    )
    result = tether("-p", "read both")
    assert result.exit_code == 0, result.stderr
    blocked, opened = fake_model.requests[1].tool_results()
    assert "no secrets" in blocked
    assert "s3cr3t" not in blocked
    assert "hello" in opened
    # The hook's context ends the result's text after a blank line, as Claude Code gives it.
    assert opened.endswith(
        "hello\n\n<system-reminder>\nPostToolUse:Read hook additional context: checked by note"
        "\n</system-reminder>"
    )


@pytest.mark.usefixtures("trusted_workspace")
def test_user_prompt_hook_adds_context(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _settings(
        workspace,
        {
            "hooks": {
                "UserPromptSubmit": [
                    {
                        "hooks": [
                            {"type": "command", "command": "echo 'Remember: tabs, not spaces.'"}
                        ]
                    }
                ]
            }
        },
    )
    fake_model.script(reply(text("ok")))
    tether("-p", "format the file")
    content = fake_model.requests[0].messages()[0]["content"]
    # As Claude Code sends it: the hook's words ahead of the prompt, said whose they are.
    told = "<system-reminder>\nUserPromptSubmit hook success: Remember: tabs, not spaces.\n"
    assert [b["text"] for b in content[-2:]] == [f"{told}</system-reminder>", "format the file"]


@pytest.mark.usefixtures("trusted_workspace")
def test_bash_paths_are_judged_from_the_shell_directory(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    (workspace / "sub").mkdir()
    (workspace / ".env").write_text("TOKEN=1")
    _settings(workspace, {"permissions": {"deny": ["Read(./.env)"], "allow": ["Bash(cd *)"]}})
    fake_model.script(
        reply(tool_use("Bash", command="cd sub")),
        reply(tool_use("Bash", command="cat ../.env")),
        reply(text("ok")),
    )
    result = tether("-p", "peek", "--permission-mode", "default")
    assert result.exit_code == 0, result.stderr
    [content] = fake_model.requests[2].tool_results()
    assert content.startswith("Permission denied")
    assert "TOKEN" not in content


def test_spilled_output_can_be_read_back_without_asking(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.script(
        reply(tool_use("Bash", command="seq 1 20000")),
        lambda request: reply(
            tool_use("Read", file_path=_saved_path(request.tool_results()[0]), offset=19999)
        ),
        reply(text("ok")),
    )
    result = tether("-p", "count", "--permission-mode", "default", "--allowedTools", "Bash(seq *)")
    assert result.exit_code == 0, result.stderr
    assert "20000\t20000" in fake_model.requests[2].tool_results()[0]


def _saved_path(result: str) -> str:
    import re

    match = re.search(r"the full output is in (\S+?);", result)
    assert match is not None, result
    return match.group(1)


def test_grep_and_glob_leave_out_files_reading_is_denied_for(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    (workspace / ".env").write_text("API_TOKEN=hunter2\n")
    (workspace / "config.py").write_text("API_TOKEN = os.environ['API_TOKEN']\n")
    _settings(workspace, {"permissions": {"deny": ["Read(./.env)"]}})
    fake_model.script(
        reply(
            tool_use("Grep", pattern="API_TOKEN", output_mode="content"),
            tool_use("Grep", pattern="API_TOKEN"),
            tool_use("Grep", pattern="API_TOKEN", output_mode="count"),
            tool_use("Glob", pattern="*"),
        ),
        reply(text("ok")),
    )
    result = tether("-p", "find the token", "--permission-mode", "default")
    assert result.exit_code == 0, result.stderr
    content, files, counts, listing = fake_model.requests[1].tool_results()
    assert "hunter2" not in content
    assert content.splitlines()[0] == "config.py:1:API_TOKEN = os.environ['API_TOKEN']"
    assert files.splitlines()[0] == "config.py"
    assert counts.splitlines()[0] == "config.py:1"
    assert ".env" not in listing.split()
    assert "config.py" in listing.split()
