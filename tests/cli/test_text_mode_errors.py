"""`-p` text mode on an error result: as Claude Code, a limit or an API error is said on stdout
in its words, so `out=$(tether -p ...)` holds the reason; the exit code is 1."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_repl_commands import anthropic_only
from tether.cli.sdk_session_lines import js_number
from tether.testing import FakeModelServer, http_error, reply, text, tool_use
from tether.testing.cli_runner import CliResult


def test_a_spent_budget_is_said_on_stdout(
    fake_model: FakeModelServer, tether: Callable[..., CliResult]
) -> None:
    fake_model.script(
        reply(text("looking"), tool_use("Bash", command="true")), reply(text("never"))
    )
    result = tether("-p", "go", "--model", "claude-sonnet-4-5", "--max-budget-usd", "0.0001")
    assert result.exit_code == 1
    assert result.stdout == "Error: Exceeded USD budget (0.0001)\n"


def test_an_api_error_is_said_on_stdout(
    fake_model: FakeModelServer, tether: Callable[..., CliResult]
) -> None:
    fake_model.script(*[http_error(400, "bad thing", "invalid_request_error")] * 6)
    result = tether("-p", "go")
    assert result.exit_code == 1
    # The result line's `result`, as Claude Code prints it: the API's message alone.
    assert result.stdout == "API Error: 400 bad thing\n"


def test_figures_are_written_as_javascript_writes_them() -> None:
    assert [js_number(v) for v in (5.0, 0.5, 0.0001, 1e-6, 1e-7, 2.5e-8)] == [
        "5",
        "0.5",
        "0.0001",
        "0.000001",
        "1e-7",
        "2.5e-8",
    ]


def test_on_a_terminal_an_api_error_is_said_once(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    # Stdout and stderr on one terminal: it showed tether's stderr line and stdout's line.
    model_env.script(*[http_error(400, "bad thing", "invalid_request_error")] * 6)
    run = PtyRepl(workspace, anthropic_only(home), "-p", "go")
    try:
        run.wait_for("API Error: 400 bad thing")  # stdout's: anything before it is drawn
        assert run.screen.count("bad thing") == 1, run.screen
    finally:
        assert run.close() == 1
