"""The loop over the wire: the real SDK talks to the fake server; assertions read its log."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, http_error, raw_tool_use, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]

TOOLS = [
    "Bash",
    "BashOutput",
    "KillShell",
    "Read",
    "Write",
    "Edit",
    "NotebookEdit",
    "Glob",
    "Grep",
    "WebFetch",
    "WebSearch",
    "Revert",
    "TodoWrite",
    "MemorySave",
    "MemorySearch",
    "Task",
    "Skill",
]


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")


def test_text_answer_printed_and_request_shaped(fake_model: FakeModelServer, tether: Run) -> None:
    fake_model.script(reply(text("All good.")))
    result = tether("-p", "how are things?")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "All good.\n", "")
    [request] = fake_model.requests
    assert request.wire == "anthropic"
    assert request.last_user_text() == "how are things?"
    # The model is offered the subagent tool as Claude Code offers it; init lists it as Task.
    assert request.tool_names() == [("Agent" if n == "Task" else n) for n in TOOLS]
    assert "You are tether" in request.system()


def test_tool_result_goes_back_and_loop_ends(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.script(reply(tool_use("Bash", command="echo hi")), reply(text("said hi")))
    result = tether("-p", "say hi", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    assert fake_model.requests[1].tool_results() == ["hi"]
    body = result.json()
    assert (body["subtype"], body["is_error"], body["result"], body["num_turns"]) == (
        "success",
        False,
        "said hi",
        2,
    )


def test_unknown_tool_and_bad_arguments_become_error_results(
    fake_model: FakeModelServer, tether: Run
) -> None:
    fake_model.script(
        reply(
            tool_use("Teleport", destination="mars"),
            tool_use("Read", path="x.txt"),
            raw_tool_use("Bash", '{"command": "ec'),
        ),
        reply(text("understood")),
    )
    result = tether("-p", "go")
    assert result.exit_code == 0, result.stderr
    follow_up = fake_model.requests[1]
    assert follow_up.tool_result_errors() == [True, True, True]
    unknown, schema, malformed = follow_up.tool_results()
    assert "No such tool: 'Teleport'" in unknown
    assert "missing required field 'file_path'" in schema
    assert "unexpected field 'path'" in schema
    assert "not a valid JSON object" in malformed


def test_stream_cut_after_tool_block_runs_tool_exactly_once(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    call = tool_use("Bash", command="echo ran >> runs.txt")
    # message_start, ping, block start, 3+ deltas, block stop: cut before message_delta/stop.
    fake_model.script(reply(call, cut_after=7), reply(call), reply(text("done")))
    result = tether("-p", "append a line", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    assert (workspace / "runs.txt").read_text() == "ran\n"
    assert len(fake_model.requests) == 3


def test_clean_end_without_message_stop_is_retried(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    call = tool_use("Bash", command="echo ran >> runs.txt")
    fake_model.script(reply(call, cut_after=7, clean_cut=True), reply(call), reply(text("done")))
    result = tether("-p", "append a line")
    assert result.exit_code == 0, result.stderr
    assert (workspace / "runs.txt").read_text() == "ran\n"


def test_overloaded_mid_stream_is_retried(fake_model: FakeModelServer, tether: Run) -> None:
    fake_model.script(reply(text("partial"), stream_error="overloaded_error"), reply(text("whole")))
    result = tether("-p", "hi")
    assert (result.exit_code, result.stdout) == (0, "whole\n")
    assert result.stderr == ""  # retried without a word: --verbose shows retries


def test_http_429_and_529_are_retried(fake_model: FakeModelServer, tether: Run) -> None:
    fake_model.script(http_error(429), http_error(529), reply(text("finally")))
    result = tether("-p", "hi")
    assert (result.exit_code, result.stdout) == (0, "finally\n")
    assert len(fake_model.requests) == 3


def test_persistent_failure_is_reported_in_one_line(
    fake_model: FakeModelServer, tether: Run
) -> None:
    fake_model.script(*[http_error(500) for _ in range(20)])
    result = tether("-p", "hi", "--output-format", "json")
    assert result.exit_code == 1
    body = result.json()
    # As Claude Code tells an API refusal: the turn ran, the API refused it.
    assert (body["subtype"], body["is_error"]) == ("success", True)
    assert (body["api_error_status"], body["terminal_reason"]) == (500, "api_error")
    assert "Traceback" not in result.stderr
    # The result in Claude Code's words (the API's message alone); the endpoint on stderr.
    assert body["result"].startswith("API Error: 500 "), body["result"]
    assert fake_model.url in result.stderr


def test_max_tokens_inside_a_tool_call_is_answered_not_run(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.script(
        reply(raw_tool_use("Write", '{"file_path": "a.txt", "cont'), stop_reason="max_tokens"),
        reply(text("I will write less.")),
    )
    result = tether("-p", "write a big file")
    assert result.exit_code == 0, result.stderr
    assert fake_model.requests[1].tool_result_errors() == [True]
    assert not (workspace / "a.txt").exists()


def test_pause_turn_ends_the_turn_as_claude_code_does(
    fake_model: FakeModelServer, tether: Run
) -> None:
    fake_model.script(reply(text("Searching..."), stop_reason="pause_turn"), reply(text("Found.")))
    result = tether("-p", "search", "--output-format", "json")
    body = result.json()
    assert (body["subtype"], body["result"], body["stop_reason"]) == (
        "success",
        "Searching...",
        "pause_turn",
    )
    assert len(fake_model.requests) == 1


def test_a_refusal_runs_no_call_and_the_model_goes_on_once_told(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.script(
        reply(text("I won't."), tool_use("Bash", command="touch x"), stop_reason="refusal"),
        reply(text("Something else, then.")),
    )
    result = tether("-p", "do it", "--output-format", "stream-json")
    assert result.exit_code == 0, result.stderr
    lines = result.json_lines()
    # As Claude Code writes them: one assistant line per content block; the call answered as
    # not run, then the note that sends the model on.
    assert [(line["type"], line.get("subtype")) for line in lines] == [
        ("system", "init"),
        ("assistant", None),
        ("assistant", None),
        ("user", None),
        ("system", "informational"),
        ("user", None),
        ("assistant", None),
        ("result", "success"),
    ]
    assert lines[3]["message"]["content"][0]["is_error"] is True
    assert lines[-1]["result"] == "Something else, then."
    sent = fake_model.requests[1].messages()[-1]["content"]
    assert [b.get("is_error") for b in sent] == [True, None]
    assert "stopped by a safety classifier" in sent[1]["text"]
    assert not (workspace / "x").exists()


def test_max_turns_runs_the_last_calls_and_stops(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.script(
        reply(tool_use("Bash", command="echo 1")),
        reply(tool_use("Bash", command="touch last")),
        reply(text("never asked")),
    )
    result = tether("-p", "loop", "--max-turns", "2", "--output-format", "stream-json")
    assert result.exit_code == 1
    # As Claude Code: the calls of the last reply run; the model is not called again.
    assert (workspace / "last").exists()
    assert len(fake_model.requests) == 2
    assert result.json_lines()[-1]["subtype"] == "error_max_turns"
    assert result.json_lines()[-1]["num_turns"] == 3


def test_max_turns_in_text_mode_says_the_limit(fake_model: FakeModelServer, tether: Run) -> None:
    """Text mode prints Claude Code's words for the limit on stdout, not the last reply's text."""
    fake_model.script(reply(text("looking"), tool_use("Bash", command="true")))
    result = tether("-p", "loop", "--max-turns", "1")
    assert result.exit_code == 1
    assert result.stdout == "Error: Reached max turns (1)\n"
    assert "looking" not in result.stdout + result.stderr


def test_stream_json_shapes(fake_model: FakeModelServer, tether: Run) -> None:
    fake_model.script(reply(text("a"), tool_use("Bash", command="true")), reply(text("b")))
    lines = tether("-p", "x", "--output-format", "stream-json").json_lines()
    init, assistant, call, user, assistant2, result = lines
    assert init["subtype"] == "init"
    assert init["tools"] == TOOLS
    # One assistant line per content block, the same message id on each (Claude Code's shape).
    assert assistant["message"]["content"] == [{"type": "text", "text": "a"}]
    assert call["message"]["content"][0]["name"] == "Bash"
    assert call["message"]["id"] == assistant["message"]["id"]
    assert user["message"]["content"][0]["type"] == "tool_result"
    assert assistant2["message"]["content"] == [{"type": "text", "text": "b"}]
    assert set(result) >= {
        "type",
        "subtype",
        "is_error",
        "result",
        "session_id",
        "num_turns",
        "duration_ms",
        "duration_api_ms",
        "total_cost_usd",
        "usage",
        "permission_denials",
    }
    assert result["session_id"] == init["session_id"]


def test_append_system_prompt_and_stdin(fake_model: FakeModelServer, tether: Run) -> None:
    fake_model.script(reply(text("ok")))
    tether("-p", "summarise", "--append-system-prompt", "Answer in French.", stdin="file body")
    [request] = fake_model.requests
    assert request.system().rstrip().endswith("Answer in French.")
    assert request.last_user_text() == "summarise\n\nfile body"


def test_openai_compatible_endpoint_round_trip(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.script(reply(tool_use("Bash", command="echo hi")), reply(text("done")))
    result = tether("-p", "hi", "--model", "openai/gpt-4.1")
    assert (result.exit_code, result.stdout) == (0, "done\n"), result.stderr
    assert [r.wire for r in fake_model.requests] == ["openai", "openai"]
    assert fake_model.requests[1].tool_results() == ["hi"]


def test_budget_stops_the_session_cleanly(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    expensive = {"input_tokens": 1_000_000, "output_tokens": 10}  # $2 at claude-sonnet-5-5
    fake_model.script(reply(tool_use("Bash", command="touch spent"), usage=expensive))
    result = tether("-p", "go", "--max-budget-usd", "1.5", "--output-format", "stream-json")
    assert result.exit_code == 1
    lines = result.json_lines()
    assert lines[-1]["subtype"] == "error_max_budget_usd"
    assert lines[-1]["total_cost_usd"] >= 1.5
    # As Claude Code: the call is not run, and no result of it is shown.
    assert not [line for line in lines if line["type"] == "user"]
    assert lines[-2]["message"]["content"][0]["type"] == "tool_use"
    assert not (workspace / "spent").exists()
