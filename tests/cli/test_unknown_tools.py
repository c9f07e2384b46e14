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


@pytest.mark.parametrize(
    ("flag", "values"),
    [
        ("--allowedTools", ["Edit"]),
        ("--disallowedTools", ["Bash(rm *)", "WebFetch"]),
        ("--mcp-config", ['{"mcpServers": {}}']),
    ],
)
def test_a_prompt_after_a_list_option_is_named_as_the_problem(
    fake_model: FakeModelServer, tether: Run, flag: str, values: list[str]
) -> None:
    """As in Claude Code, a list option takes every word up to the next option; the prompt
    it took is named, rather than "needs a prompt" (or a rule that matches nothing)."""
    result = tether("-p", flag, *values, "fix the tests")
    assert result.exit_code == 2
    assert result.stderr == (
        f"tether: error: {flag} takes every word after it as a "
        f"{'config' if flag == '--mcp-config' else 'rule'}, and 'fix the tests' is not one: "
        f"put the prompt before {flag}, or end the list with --\n"
    )
    assert fake_model.requests == []


def test_values_that_fit_their_list_are_not_taken_for_a_prompt(
    fake_model: FakeModelServer, tether: Run
) -> None:
    """Only the list written last is looked at, and only its last word: here the prompt
    comes through `--`, and a real rule ends the list."""
    fake_model.script(reply(text("hello")), reply(text("again")))
    done = tether("-p", "--allowedTools", "Edit", "Bash(git log *)", "--", "fix the tests")
    assert (done.exit_code, done.stdout) == (0, "hello\n")
    assert fake_model.requests[0].last_user_text().endswith("fix the tests")
    no_prompt = tether("-p", "--add-dir", "/nonexistent", "--allowedTools", "Edit")
    assert no_prompt.exit_code == 2
    assert no_prompt.stderr == "tether: error: -p needs a prompt (argument or stdin)\n"


_WRITE_NOTE = (
    "tether: warning: {source}: the deny rule Write(secret*) denies nothing: files are "
    "checked against Edit(path) rules only, as in Claude Code, and they cover Edit, "
    "MultiEdit, NotebookEdit, Revert, Write; write Edit(secret*) instead\n"
)


def test_a_path_rule_no_check_matches_is_told_by_permissions_check(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As in Claude Code, file checks match Edit(path) and Read(path) rules only: a deny rule
    `Write(secret*)` denies nothing, and is said to, never ignored in silence."""
    settings = workspace / "s.json"
    settings.write_text(json.dumps({"permissions": {"deny": ["Write(secret*)", "Grep(x/**)"]}}))
    call = json.dumps({"file_path": "secret.txt", "content": "s"})
    argv = ["--cwd", str(workspace), "--settings", str(settings), "--tool", "Write"]
    code = tether_main(["permissions", "check", *argv, "--input", call])
    captured = capsys.readouterr()
    assert code == 0
    assert json.loads(captured.out)["decision"] == "ask"  # as in Claude Code: not denied
    assert captured.err == (
        _WRITE_NOTE.format(source=f"settings {settings}: permissions.deny[0]")
        + f"tether: warning: settings {settings}: permissions.deny[1]: the deny rule Grep(x/**) "
        "denies nothing: files are checked against Read(path) rules only, as in Claude Code, "
        "and they cover Glob, Grep, LS, NotebookRead, Read; write Read(x/**) instead\n"
    )


def test_a_session_tells_a_path_rule_no_check_matches(
    fake_model: FakeModelServer, tether: Run
) -> None:
    fake_model.script(reply(text("hello")))
    result = tether("-p", "hi", "--disallowedTools", "Write(secret*)")
    assert (result.exit_code, result.stdout) == (0, "hello\n")
    assert result.stderr == _WRITE_NOTE.format(source="--disallowedTools")


def test_a_prompt_taken_by_a_list_option_with_one_piped_in_goes_on_with_stdin(
    fake_model: FakeModelServer, tether: Run
) -> None:
    """Claude Code (checked with its CLI) runs the piped prompt and warns that the word was
    read as a value: so does tether, the word staying a rule."""
    fake_model.script(reply(text("done")))
    result = tether("-p", "--allowedTools", "Edit", "fix the tests", stdin="the piped task\n")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "done\n"
    assert result.stderr.startswith(
        "tether: warning: --allowedTools takes every word after it as a rule, and "
        "'fix the tests' is not one: put the prompt before --allowedTools, or end the list "
        "with --; going on with the prompt from stdin\n"
    )
    [request] = fake_model.requests
    assert request.last_user_text() == "the piped task\n"
