"""Text from the model, its tools and the endpoint never acts on the terminal: an error
message that clears the screen, a reply that retitles the window, a command's coloured output
are printed with their control characters shown as escapes, on stderr (errors, --verbose), in
the REPL, and in `tether sessions show`."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.cli.terminal_text import terminal_safe
from tether.store import list_sessions
from tether.testing import FakeModelServer, http_error, reply, text, tool_use
from tether.testing.cli_runner import CliResult, run_cli_process

from .repl_terminal import CTRL_D, Terminal

Run = Callable[..., CliResult]

CLEAR, RED, TITLE = "\x1b[2J", "\x1b[31m", "\x1b]0;pwned\x07"
HOSTILE = f"bad {CLEAR}{RED}RED{TITLE} title"
SHOWN = "bad \\x1b[2J\\x1b[31mRED\\x1b]0;pwned\\x07 title"
WIRES = ["claude-sonnet-4-5", "openai/gpt-4.1"]


def _acts_on_a_terminal(output: str) -> bool:
    return any(code in output for code in (CLEAR, RED, "\x1b]0;", "\x07"))


def test_control_characters_are_shown_as_their_escapes() -> None:
    assert terminal_safe(HOSTILE) == SHOWN
    assert terminal_safe("tabs\tand\nnewlines stay; crlf\r\nends a line") == (
        "tabs\tand\nnewlines stay; crlf\nends a line"
    )
    assert terminal_safe("over\rwrite \x9b1m \u202eevil \x7f\x00") == (
        "over\\x0dwrite \\x9b1m \\u202eevil \\x7f\\x00"
    )
    assert terminal_safe("plain text, ünïcode ✓") == "plain text, ünïcode ✓"


@pytest.mark.parametrize("model", WIRES)
@pytest.mark.parametrize("verbose", [[], ["--verbose"]])
def test_an_endpoint_error_message_cannot_drive_the_terminal(
    fake_model: FakeModelServer, tether: Run, model: str, verbose: list[str]
) -> None:
    fake_model.script(http_error(400, HOSTILE))
    result = tether("-p", "hello", "--model", model, *verbose)
    assert result.exit_code == 1
    assert not _acts_on_a_terminal(result.stderr), repr(result.stderr)
    assert result.stderr.count(SHOWN) == 1, result.stderr


def test_verbose_model_text_and_tool_output_cannot_drive_the_terminal(
    fake_model: FakeModelServer, tether: Run
) -> None:
    fake_model.script(
        reply(text(f"Let me look.{TITLE}"), tool_use("Bash", command="printf '\\033[31mred'")),
        reply(text(f"All {RED}done")),
    )
    result = tether("-p", "hello", "--verbose")
    assert result.exit_code == 0, result.stderr
    assert not _acts_on_a_terminal(result.stderr), repr(result.stderr)
    assert "Let me look.\\x1b]0;pwned\\x07" in result.stderr
    assert "\\x1b[31mred" in result.stderr  # the command's output, as it was
    # stdout is not a terminal here: the answer goes to the file or pipe as the model gave it.
    assert result.stdout == f"All {RED}done\n"


async def test_the_repl_shows_hostile_text_without_obeying_it(
    model_env: FakeModelServer, workspace: Path
) -> None:
    model_env.script(
        reply(text(f"Reply {TITLE}"), tool_use("Bash", command="printf '\\033[2Jcleared'")),
        reply(text(f"then {RED}red")),
    )
    terminal = Terminal()
    assert await terminal.run(workspace, "hello\r" + CTRL_D) == 0
    out = terminal.output
    assert not _acts_on_a_terminal(out), repr(out)
    assert "\\x1b]0;pwned\\x07" in out
    assert "\\x1b[2Jcleared" in out
    assert "\\x1b[31mred" in out


def test_sessions_show_prints_a_hostile_transcript_safely(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.script(reply(text(f"an answer {CLEAR}{TITLE}")))
    assert tether("-p", f"a prompt {RED}").exit_code == 0
    [info] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    listed = run_cli_process(["sessions", "list", "--cwd", str(workspace)])
    shown = run_cli_process(["sessions", "show", info.session_id, "--cwd", str(workspace)])
    for result in (listed, shown):
        assert result.exit_code == 0, result.stderr
        assert not _acts_on_a_terminal(result.stdout), repr(result.stdout)
    assert "a prompt \\x1b[31m" in listed.stdout
    assert "an answer \\x1b[2J\\x1b]0;pwned\\x07" in shown.stdout
