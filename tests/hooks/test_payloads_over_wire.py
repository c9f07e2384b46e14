"""What hooks are given, as Claude Code gives it (checked against its bundled CLI on the same
fake API): a live session, real hook commands that save their input."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hooks.helpers import command_hook, on
from tests.hooks.wire import dump_command, dumped, python_hook, write_settings
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]
EVENTS = ("UserPromptSubmit", "PostToolBatch", "SubagentStart", "SubagentStop", "Stop")


@pytest.mark.usefixtures("trusted_workspace")
def test_batch_subagent_and_stop_payloads(
    fake_model: FakeModelServer, tether: Run, workspace: Path, tmp_path: Path
) -> None:
    dumps = tmp_path / "dumps"
    write_settings(workspace, {e: on("", command_hook(dump_command(dumps))) for e in EVENTS})
    (workspace / "a.txt").write_text("alpha\n")
    fake_model.script(
        reply(tool_use("Read", file_path="a.txt"), tool_use("Bash", command="echo hi")),
        reply(tool_use("Task", description="d", prompt="p", subagent_type="general-purpose")),
        reply(text("sub answer")),
        reply(text("all done")),
    )
    result = tether("-p", "go")
    assert result.exit_code == 0, result.stderr

    [prompt] = dumped(dumps, "UserPromptSubmit")
    prompt_id = prompt["prompt_id"]
    assert all(d.get("prompt_id") == prompt_id for d in dumped(dumps))

    first, second = dumped(dumps, "PostToolBatch")
    assert first["tool_calls"] == [
        {
            "tool_name": "Read",
            "tool_input": {"file_path": str(workspace / "a.txt")},
            "tool_use_id": first["tool_calls"][0]["tool_use_id"],
            "tool_response": fake_model.requests[1].tool_results()[0],
        },
        {
            "tool_name": "Bash",
            "tool_input": {"command": "echo hi"},
            "tool_use_id": first["tool_calls"][1]["tool_use_id"],
            "tool_response": "hi",  # as the model reads it: trimmed as Claude Code trims
        },
    ]
    assert [c["tool_name"] for c in second["tool_calls"]] == ["Agent"]  # Claude Code's name

    [started] = dumped(dumps, "SubagentStart")
    [stopped] = dumped(dumps, "SubagentStop")
    assert started["agent_type"] == stopped["agent_type"] == "general-purpose"
    assert started["agent_id"] == stopped["agent_id"]
    assert stopped["last_assistant_message"] == "sub answer"
    transcript = Path(stopped["agent_transcript_path"])
    assert transcript.name == f"agent-{started['agent_id']}.jsonl"
    assert "sub answer" in transcript.read_text()

    [stop] = dumped(dumps, "Stop")
    assert (stop["stop_hook_active"], stop["last_assistant_message"]) == (False, "all done")


@pytest.mark.usefixtures("trusted_workspace")
def test_a_post_tool_batch_block_ends_the_turn_and_its_context_reaches_the_model(
    fake_model: FakeModelServer, tether: Run, workspace: Path, tmp_path: Path
) -> None:
    judge = python_hook(
        tmp_path / "judge.py",
        "import json, sys\n"
        "calls = json.load(sys.stdin)['tool_calls']\n"
        "if any('rm' in c['tool_input'].get('command', '') for c in calls):\n"
        "    print('batch removed files', file=sys.stderr); sys.exit(2)\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PostToolBatch',"
        " 'additionalContext': f'{len(calls)} calls checked'}}))\n",
    )
    write_settings(workspace, {"PostToolBatch": on(None, command_hook(judge))})
    fake_model.script(
        reply(tool_use("Bash", command="echo one"), tool_use("Bash", command="echo two")),
        reply(tool_use("Bash", command="rm -f nothing.txt")),
        reply(text("never asked")),
    )
    result = tether("-p", "go", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    assert len(fake_model.requests) == 2  # the block ended the turn before a third call
    assert "PostToolBatch hook additional context: 2 calls checked" in (
        fake_model.requests[1].last_user_text()
    )
    assert "batch removed files" in result.stderr + result.stdout


@pytest.mark.usefixtures("trusted_workspace")
def test_variables_a_session_start_hook_writes_to_claude_env_file_reach_bash(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    write_settings(
        workspace,
        {
            "SessionStart": on(
                "startup",
                command_hook(
                    'echo \'export GREETING="from the hook"\' >> "$CLAUDE_ENV_FILE"; '
                    'echo \'export PATH="/opt/extra:$PATH"\' >> "$CLAUDE_ENV_FILE"'
                ),
            ),
            "PreToolUse": on("Bash", command_hook('test -z "$CLAUDE_ENV_FILE" || exit 2')),
        },
    )
    fake_model.script(
        reply(tool_use("Bash", command='echo "$GREETING"; echo "$PATH" | cut -d: -f1')),
        reply(tool_use("Bash", command='echo "again: $GREETING"')),
        reply(text("done")),
    )
    result = tether("-p", "go")
    assert result.exit_code == 0, result.stderr
    assert fake_model.requests[1].tool_results() == ["from the hook\n/opt/extra"]
    assert fake_model.requests[2].tool_results() == ["again: from the hook"]


@pytest.mark.usefixtures("trusted_workspace")
def test_hooks_follow_the_sessions_directory_after_cd(
    fake_model: FakeModelServer, tether: Run, workspace: Path, tmp_path: Path
) -> None:
    """After `cd sub` in Bash, a hook's input `cwd` is `sub`, and the hook runs there, as in
    Claude Code."""
    dumps = tmp_path / "dumps"
    where = python_hook(tmp_path / "where.py", "import os\nprint(os.getcwd(), end='')\n")
    where_log = tmp_path / "where.log"
    write_settings(
        workspace,
        {
            "PreToolUse": on(
                "Bash", command_hook(dump_command(dumps)), command_hook(f"{where} >> {where_log}")
            ),
            "Stop": on("", command_hook(dump_command(dumps))),
        },
    )
    (workspace / "sub").mkdir()
    fake_model.script(
        reply(tool_use("Bash", command="cd sub")),
        reply(tool_use("Bash", command="true")),
        reply(text("done")),
    )
    result = tether("-p", "go")
    assert result.exit_code == 0, result.stderr
    told = [(d["hook_event_name"], d["cwd"]) for d in dumped(dumps)]
    sub = str((workspace / "sub").resolve())
    assert told == [
        ("PreToolUse", str(workspace.resolve())),
        ("PreToolUse", sub),
        ("Stop", sub),
    ]
    # `>>` runs in the hook's own directory: both runs wrote to the one absolute log.
    assert where_log.read_text() == f"{workspace.resolve()}{sub}"
