"""Skills as REPL commands: `/name args` runs a skill, `/help` lists them, built-ins win."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from tether.cli.repl import run_repl
from tether.cli.setup import RunOptions
from tether.config.settings import sessions_home
from tether.store import list_sessions
from tether.testing import FakeModelServer, reply, text, tool_use

from .repl_terminal import AfterTurn, Terminal

CTRL_D = "\x04"


def add_skill(workspace: Path, name: str, description: str, body: str) -> Path:
    directory = workspace / ".tether" / "skills" / name
    directory.mkdir(parents=True)
    path = directory / "SKILL.md"
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}\n")
    return path


@pytest.fixture(autouse=True)
def empty_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No skills of the user running the tests."""
    home = tmp_path / "user-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))


@pytest.fixture
def terminal() -> Terminal:
    return Terminal()


async def test_a_skill_runs_as_a_command_with_its_arguments(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    add_skill(workspace, "greet", "Greet someone by name, politely.", "Say hello to $ARGUMENTS.")
    model_env.script(reply(text("Hello, Ada!")))
    code = await terminal.run(workspace, "/greet Ada Lovelace\r" + CTRL_D)
    assert code == 0
    [request] = model_env.requests
    sent = request.last_user_text()
    assert sent.startswith(
        'The user ran the skill "greet" by typing: /greet Ada Lovelace\n\n'
        'The skill "greet" is loaded; follow its instructions below.\n'
    )
    assert "Say hello to Ada Lovelace." in sent
    assert "✻ Skill greet\n" in terminal.output
    assert "Hello, Ada!" in terminal.output
    # The session is titled by what was typed, as in Claude Code, not by the skill's body.
    [listed] = list_sessions(sessions_home(os.environ), workspace.resolve())
    assert listed.title == "/greet Ada Lovelace"


async def test_a_skill_without_arguments(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    add_skill(workspace, "tidy", "Tidy the workspace up, carefully.", "Remove stray files.")
    model_env.script(reply(text("Tidied.")))
    code = await terminal.run(workspace, "/tidy\r" + CTRL_D)
    assert code == 0
    sent = model_env.requests[0].last_user_text()
    assert sent.startswith('The user ran the skill "tidy" by typing: /tidy\n\n')
    assert "Remove stray files." in sent
    assert "ARGUMENTS" not in sent


async def test_help_lists_the_skills_and_unknown_commands_keep_their_hint(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    add_skill(workspace, "greet", "Greet someone by name, politely.", "Say hello.")
    commands = Path.home() / ".claude" / "commands"  # the user's own: no trust needed
    commands.mkdir(parents=True)
    (commands / "wave.md").write_text(
        '---\ndescription: Wave at someone\nargument-hint: "[name]"\n---\nWave at $1.\n'
    )
    code = await terminal.run(workspace, "/help\r/nope\r" + CTRL_D)
    assert code == 0
    assert model_env.requests == []
    out = terminal.output
    assert "Skills (/name, then optional arguments)\n" in out
    assert re.search(r"\n  /greet +Greet someone by name, politely\.\n", out)
    assert re.search(r"\n  /code-review +Review ", out)  # tether's own skills are commands too
    assert out.index("Skills (/name") < out.index("Keys\n")
    # A custom command with what it does, as the `/` menu shows it (its name alone, before).
    assert re.search(r"\n  /wave +\[name\]  Wave at someone\n", out)
    assert "Unknown command /nope. Type /help for the commands." in out


async def test_built_in_commands_win_over_skills(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    add_skill(workspace, "cost", "A skill that shares its name with a command.", "Never sent.")
    code = await terminal.run(workspace, "/help\r/cost\r" + CTRL_D)
    assert code == 0
    assert model_env.requests == []
    out = terminal.output
    assert "Total cost:            $0.0000\n" in out
    assert "A skill that shares its name" not in out


async def test_a_skill_that_cannot_be_read_any_more_is_reported(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    path = add_skill(workspace, "gone", "A skill whose file disappears later.", "Body.")
    with create_pipe_input() as pipe:
        pipe.send_text("/help\r")
        repl = asyncio.create_task(
            run_repl(
                RunOptions(cwd=workspace),
                input=pipe,
                output=DummyOutput(),
                console=terminal.console,
            )
        )
        await terminal.wait_for("  /gone ")  # listed: the catalogue was made with the file
        path.unlink()
        pipe.send_text("/gone now\r" + CTRL_D)
        assert await repl == 0
    assert model_env.requests == []
    assert "✗ Cannot read the skill 'gone'" in terminal.output


async def test_no_skill_commands_when_a_rule_hides_the_skill_tool(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    add_skill(workspace, "greet", "Greet someone by name, politely.", "Say hello.")
    options = RunOptions(cwd=workspace, disallowed_tools=("Skill",))
    code = await terminal.run(workspace, "/greet Ada\r" + CTRL_D, options=options)
    assert code == 0
    assert model_env.requests == []
    assert "Unknown command /greet." in terminal.output


async def test_a_skill_waiting_for_its_paths_is_hidden_until_a_file_it_names_is_read(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    """As Claude Code's conditional skills: neither listed nor run as `/name` before a file
    its `paths` match is read or edited; then both."""
    path = add_skill(workspace, "react-style", "How this project writes React.", "REACT-BODY")
    path.write_text(path.read_text().replace("---\nREACT", "paths: web/**\n---\nREACT"))
    (workspace / "web").mkdir()
    (workspace / "web" / "page.tsx").write_text("export {}\n")
    model_env.script(
        reply(tool_use("Read", file_path="web/page.tsx")),
        reply(text("Read it.")),
        reply(text("Styled.")),
    )
    code = await terminal.type_steps(
        workspace,
        "/help\r/react-style\rread the page\r",
        AfterTurn("/help\r/react-style now\r"),
        AfterTurn(CTRL_D),
    )
    assert code == 0
    out = terminal.output
    before, _, after = out.partition("Read it.")
    assert "/react-style" not in before.partition("/react-style is a skill")[0]
    assert (
        "/react-style is a skill for files matching web/**: it can be run once such a file "
        "is read or edited."
    ) in before
    assert re.search(r"\n  /react-style +How this project writes React\.\n", after)
    first, _, styled = model_env.requests
    assert "react-style" not in first.last_user_text()
    sent = styled.last_user_text()
    assert sent.startswith('The user ran the skill "react-style" by typing: /react-style now')
    assert "REACT-BODY" in sent
