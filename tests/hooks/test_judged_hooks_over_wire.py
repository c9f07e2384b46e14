"""`prompt` and `agent` hooks over the wire: the fake model server plays both the session's
model and the judge; the judge's request, its verdict's effect, and what a timeout or a
malformed verdict does (an error shown, the event goes ahead unless the hook is
fail-closed)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.hooks.wire import write_settings
from tether.hooks.judged import JUDGE_INSTRUCTIONS
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def judged(kind: str, prompt: str, matcher: str = "Bash", **more: Any) -> dict[str, Any]:
    return {"matcher": matcher, "hooks": [{"type": kind, "prompt": prompt, **more}]}


@pytest.mark.usefixtures("trusted_workspace")
def test_a_prompt_hook_that_says_no_denies_the_call_with_its_reason(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    write_settings(workspace, {"PreToolUse": [judged("prompt", "May this run? $ARGUMENTS")]})
    fake_model.script(
        reply(tool_use("Bash", command="touch made.txt")),
        reply(text('{"ok": false, "reason": "no files today"}')),
        reply(text("Understood.")),
    )

    result = tether("-p", "make a file")

    assert result.exit_code == 0, result.stderr
    judge = fake_model.requests[1]
    assert judge.system() == JUDGE_INSTRUCTIONS
    assert judge.tool_names() == []
    question = judge.last_user_text()
    assert question.startswith("May this run? {")
    hook_input = json.loads(question.removeprefix("May this run? "))
    assert (hook_input["hook_event_name"], hook_input["tool_input"]) == (
        "PreToolUse",
        {"command": "touch made.txt"},
    )
    assert fake_model.requests[2].tool_result_errors() == [True]
    assert "no files today" in fake_model.requests[2].tool_results()[0]
    assert not (workspace / "made.txt").exists()


@pytest.mark.usefixtures("trusted_workspace")
def test_a_prompt_hook_that_says_yes_lets_the_call_run_and_the_input_is_appended(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    write_settings(workspace, {"PreToolUse": [judged("prompt", "Is this safe?")]})
    fake_model.script(
        reply(tool_use("Bash", command="touch made.txt")),
        reply(text('```json\n{"ok": true, "reason": "harmless"}\n```')),
        reply(text("Made.")),
    )

    result = tether("-p", "make a file")

    assert result.exit_code == 0, result.stderr
    question = fake_model.requests[1].last_user_text()
    assert question.startswith("Is this safe?\n\n{")  # no $ARGUMENTS: the input is appended
    assert fake_model.requests[2].tool_result_errors() == [False]
    assert (workspace / "made.txt").exists()


@pytest.mark.usefixtures("trusted_workspace")
def test_a_malformed_verdict_is_an_error_and_fails_open_unless_fail_closed(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    write_settings(
        workspace,
        {
            "PreToolUse": [
                judged("prompt", "Judge $ARGUMENTS", matcher="Bash"),
                judged("prompt", "Strictly judge $ARGUMENTS", matcher="Write", failClosed=True),
            ]
        },
    )
    fake_model.script(
        reply(tool_use("Bash", command="touch open.txt")),
        reply(text("I think it is fine")),
        reply(tool_use("Write", file_path=str(workspace / "closed.txt"), content="x")),
        reply(text('{"ok": "yes"}')),
        reply(text("Done.")),
    )

    result = tether("-p", "make two files")

    assert result.exit_code == 0, result.stderr
    assert (workspace / "open.txt").exists()
    assert not (workspace / "closed.txt").exists()
    assert (
        'PreToolUse prompt hook "Judge $ARGUMENTS" answered "I think it is fine", not a JSON '
        'object like {"ok": true, "reason": "..."}' in result.stderr
    )
    assert fake_model.requests[4].tool_result_errors() == [True]
    assert (
        'PreToolUse prompt hook "Strictly judge $ARGUMENTS" answered "{\\"ok\\": \\"yes\\"}": '
        '"ok" must be true or false (the hook is fail-closed)'
        in fake_model.requests[4].tool_results()[0]
    )


@pytest.mark.usefixtures("trusted_workspace")
def test_a_judge_that_does_not_answer_in_time_is_an_error_and_the_call_runs(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    write_settings(workspace, {"PreToolUse": [judged("prompt", "Judge $ARGUMENTS", timeout=1)]})
    fake_model.script(
        reply(tool_use("Bash", command="touch made.txt")),
        reply(text("never sent"), stall_after=0),
        reply(text("Made.")),
    )

    result = tether("-p", "make a file")

    assert result.exit_code == 0, result.stderr
    assert (
        'PreToolUse prompt hook "Judge $ARGUMENTS" timed out after 1 s waiting for its verdict'
        in result.stderr
    )
    assert (workspace / "made.txt").exists()


@pytest.mark.usefixtures("trusted_workspace")
def test_an_agent_hook_reads_the_workspace_and_its_no_keeps_the_agent_working(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    (workspace / "TODO").write_text("write the tests\n")
    write_settings(
        workspace,
        {"Stop": [{"hooks": [{"type": "agent", "prompt": "Is TODO done? $ARGUMENTS"}]}]},
    )
    fake_model.script(
        reply(text("All done.")),
        # The judging subagent reads, then answers.
        reply(tool_use("Read", file_path=str(workspace / "TODO"))),
        reply(text('{"ok": false, "reason": "TODO still says: write the tests"}')),
        reply(text("Now really done.")),
        reply(text('{"ok": true, "reason": "fine"}')),
    )

    result = tether("-p", "finish the work")

    assert result.exit_code == 0, result.stderr
    judge = fake_model.requests[1]
    assert judge.system().startswith(JUDGE_INSTRUCTIONS.rstrip())
    assert sorted(judge.tool_names()) == ["Glob", "Grep", "Read"]
    assert "write the tests" in fake_model.requests[2].tool_results()[0]
    # Its reason sent the main agent back to work.
    assert "TODO still says: write the tests" in fake_model.requests[3].last_user_text()
    assert len(fake_model.requests) == 5


@pytest.mark.usefixtures("trusted_workspace")
def test_a_judge_request_leaves_the_reply_what_the_window_leaves(
    fake_model: FakeModelServer, tether: Run, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an endpoint that counts the reply in its window (vLLM), a judge's request is fitted
    like the turn's: a long question is not refused for the judge's room."""
    window = 16384
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", str(window))
    fake_model.context_window, fake_model.output_in_window = window, True
    write_settings(workspace, {"PreToolUse": [judged("prompt", "x " * 25000 + "ok?")]})
    fake_model.script(
        reply(tool_use("Bash", command="echo hi")),
        reply(text('{"ok": true, "reason": "fine"}')),
        reply(text("Done.")),
    )

    result = tether("-p", "say hi", "--model", "openai/gpt-test")

    assert result.exit_code == 0, result.stderr
    assert fake_model.rejections == []
    assert fake_model.requests[1].system() == JUDGE_INSTRUCTIONS
