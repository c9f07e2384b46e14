"""Custom slash commands (`.claude/commands/**/*.md`, project and user) and `/skill` prompts,
expanded as Claude Code expands them: in `-p "/name args"` and in the REPL."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

from .repl_terminal import Terminal

Run = Callable[..., CliResult]
CTRL_D = "\x04"

REVIEW_COMMAND = """\
---
description: Review one file against a focus
argument-hint: <file> <focus>
allowed-tools: Bash(touch reviewed.txt)
model: inherit
---
Review $0 with a focus on $1. Everything typed: $ARGUMENTS.
"""


@pytest.fixture(autouse=True)
def user_home(monkeypatch: pytest.MonkeyPatch, home: Path) -> Path:
    """The user's `~/.claude` is the test's own."""
    monkeypatch.setenv("HOME", str(home))
    return home


def _write(path: Path, content: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")


def test_a_project_command_in_a_namespace_runs_headless_with_its_arguments(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path
) -> None:
    _write(trusted_workspace / ".claude/commands/quality/review.md", REVIEW_COMMAND)
    fake_model.script(
        reply(tool_use("Bash", command="touch reviewed.txt")),
        reply(text("Reviewed.")),
        reply(text("Again.")),
    )

    first = tether("-p", '/quality:review app.py "error handling"', "--permission-mode", "default")
    second = tether("-p", "/review lib.py speed")  # no bare alias, as in Claude Code

    assert (first.exit_code, second.exit_code) == (0, 0), first.stderr + second.stderr
    assert fake_model.requests[0].last_user_text() == (
        'Review app.py with a focus on error handling. Everything typed: app.py "error handling".\n'
    )
    # allowed-tools allowed the command's Bash call for its turn, with no one to ask.
    assert fake_model.requests[1].tool_result_errors() == [False]
    assert (trusted_workspace / "reviewed.txt").exists()
    [sent] = fake_model.requests[2].messages()
    said = [b["text"] for b in sent["content"]]
    assert said[0] == "/review lib.py speed"
    assert said[1].startswith(
        "<system-reminder>\nThe user's message starts with the slash command /review, but no "
        "command with that name is available in this session, so it did not run."
    )
    assert "/quality:review" in said[1]


def test_an_unknown_command_goes_to_the_model_with_a_note_and_a_path_without(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path
) -> None:
    fake_model.script(reply(text("No such command.")), reply(text("A path.")))
    assert tether("-p", "/nosuchcmd go").exit_code == 0
    assert tether("-p", "/usr/bin/env is missing").exit_code == 0
    said = [b["text"] for b in fake_model.requests[0].messages()[0]["content"]]
    assert said[0] == "/nosuchcmd go"
    assert "slash command /nosuchcmd, but no command" in said[1]
    assert "Do not say the command ran." in said[1]
    assert fake_model.requests[1].last_user_text() == "/usr/bin/env is missing"


def test_a_user_command_without_front_matter_gets_its_arguments_appended(
    fake_model: FakeModelServer, tether: Run, user_home: Path
) -> None:
    _write(user_home / ".claude/commands/explain.md", "Explain the code simply.\n")
    fake_model.script(reply(text("Explained.")))

    result = tether("-p", "/explain the parser")

    assert result.exit_code == 0, result.stderr
    assert fake_model.requests[0].last_user_text() == (
        "Explain the code simply.\n\nARGUMENTS: the parser\n"
    )


def test_a_skill_runs_headless_as_slash_name_and_other_paths_are_prompts(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _write(
        workspace / ".claude/skills/wipe-cache/SKILL.md",
        "---\ndescription: Wipes the build cache.\ndisable-model-invocation: true\n---\n"
        "Wipe the cache of $ARGUMENTS.\n",
    )
    fake_model.script(reply(text("Wiped.")), reply(text("A path.")))

    skill_run = tether("-p", "/wipe-cache docs")
    plain = tether("-p", "/usr/bin/env is missing")

    assert (skill_run.exit_code, plain.exit_code) == (0, 0), skill_run.stderr + plain.stderr
    sent = fake_model.requests[0].last_user_text()
    assert sent.startswith('The user ran the skill "wipe-cache" by typing: /wipe-cache docs\n\n')
    assert "Wipe the cache of docs." in sent
    assert fake_model.requests[1].last_user_text() == "/usr/bin/env is missing"


async def test_a_command_runs_in_the_repl(
    model_env: FakeModelServer, workspace: Path, user_home: Path
) -> None:
    _write(user_home / ".claude/commands/greet.md", "---\ndescription: Greet\n---\nHello $0!\n")
    model_env.script(reply(text("Hi there.")))
    terminal = Terminal()

    code = await terminal.run(workspace, "/greet Ada\r/help\r" + CTRL_D)

    assert code == 0
    assert model_env.requests[0].last_user_text() == "Hello Ada!\n"
    assert "✻ /greet\n" in terminal.output
    assert "Hi there." in terminal.output
    assert "/greet" in terminal.output.split("Custom commands and MCP server prompts")[1]


POSITIONS = (
    "POS z=[$0] o=[$1] t=[$2] th=[$3] ten=[$10] a0=[$ARGUMENTS[0]] a1=[$ARGUMENTS[1]] "
    "a5=[$ARGUMENTS[5]] all=[$ARGUMENTS] esc=[\\$1] w=[$1a] d=[$$1] END\n"
)


@pytest.mark.parametrize(
    ("typed", "sent"),
    [
        (
            '/pos alpha "beta gamma" delta',
            "POS z=[alpha] o=[beta gamma] t=[delta] th=[$3] ten=[$10] a0=[alpha] "
            'a1=[beta gamma] a5=[$ARGUMENTS[5]] all=[alpha "beta gamma" delta] esc=[$1] '
            "w=[$1a] d=[$beta gamma] END\n",
        ),
        (
            "/pos",
            "POS z=[$0] o=[$1] t=[$2] th=[$3] ten=[$10] a0=[$ARGUMENTS[0]] a1=[$ARGUMENTS[1]] "
            "a5=[$ARGUMENTS[5]] all=[] esc=[$1] w=[$1a] d=[$$1] END\n",
        ),
    ],
)
def test_positional_arguments_count_from_zero_as_claude_code_fills_them(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path, typed: str, sent: str
) -> None:
    """What the real Claude Code sends for the same file and arguments: `$0` and
    `$ARGUMENTS[0]` are the first word, a place with no word stays as written (`$1` was the
    first word before, `$0` stayed, and `$ARGUMENTS[0]` was the whole string and `[0]`)."""
    _write(trusted_workspace / ".claude/commands/pos.md", POSITIONS)
    fake_model.script(reply(text("ok")))
    result = tether("-p", typed)
    assert (result.exit_code, result.stdout) == (0, "ok\n"), result.stderr
    assert fake_model.requests[0].last_user_text() == sent
