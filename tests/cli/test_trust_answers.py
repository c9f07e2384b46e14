"""The user's answers: in the home directory the trust question says they hold for this session
only; "always allow" answers are kept in the user's own store, keyed by the workspace, and hold
in the REPL and headless alike, whatever the workspace's trust."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli.repl_terminal import AfterTurn, Answer, Terminal, bash_turns, run_answering
from tests.cli.test_trust import _write
from tether.cli.trust_prompt import HOME_NO_HINT, HOME_YES_HINT, QUESTION, YES_HINT
from tether.config.settings import load_settings, settings_files
from tether.config.trust import TRUST_FILE, anchored_rule, remembered_settings
from tether.permissions import decide, load_rules
from tether.permissions.context import PermissionContext
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import run_cli

CTRL_D = "\x04"


def _tether_home() -> Path:
    return Path(os.environ["TETHER_HOME"])


def _home_hook(home: Path, marker: Path) -> None:
    """A hook in `~/.tether/settings.json`: with the home directory as the workspace (and
    TETHER_HOME elsewhere), a file of the workspace's."""
    hook = {"type": "command", "command": f"echo seen >> {marker}"}
    _write(home / ".tether" / "settings.json", {"hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}})


async def test_in_the_home_directory_no_answer_is_said_to_be_remembered(
    model_env: FakeModelServer, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(home))
    marker = tmp_path / "prompted"
    _home_hook(home, marker)
    model_env.script(reply(text("first")), reply(text("second")), reply(text("third")))

    said_no = Terminal()
    assert await said_no.run(home, "n\rhello\r" + CTRL_D) == 0
    out = " ".join(said_no.output.split())
    assert " ".join(HOME_NO_HINT.split()) in out
    assert YES_HINT not in said_no.output
    assert "remembered" not in out
    assert "tether trust" not in out  # it refuses the home directory
    assert "no (for this session): continuing restricted" in out
    assert "the home directory and the folders above it are trusted one session at a time" in out
    assert not marker.exists()
    assert not (_tether_home() / TRUST_FILE).exists()

    said_yes = Terminal()  # asked again: nothing was recorded
    assert await said_yes.run(home, "y\rhello\r" + CTRL_D) == 0
    out = " ".join(said_yes.output.split())
    assert " ".join(HOME_YES_HINT.split()) in out
    assert "yes (for this session)" in out
    assert marker.read_text() == "seen\n"

    again = Terminal()
    assert await again.run(home, "n\rhi\r" + CTRL_D) == 0
    assert QUESTION in again.output


@pytest.mark.timeout(90)
async def test_always_allow_is_the_users_and_holds_in_the_repl_and_headless(
    model_env: FakeModelServer, workspace: Path
) -> None:
    model_env.script(*bash_turns("touch made.txt", "Made it."))
    terminal = Terminal()
    code = await run_answering(terminal, workspace, "make it\r", Answer("2\r"), AfterTurn(CTRL_D))
    assert code == 0
    assert not (workspace / ".tether").exists()  # nothing written into the workspace
    saved = json.loads(remembered_settings(_tether_home(), workspace).read_text())
    # The exact command: a prefix (`touch *`) would allow more than the user saw.
    assert saved == {"permissions": {"allow": ["Bash(touch made.txt)"]}}

    (workspace / "made.txt").unlink()
    model_env.script(*bash_turns("touch made.txt", "Again."))
    again = Terminal()  # nothing to trust: not asked about the folder, nor about the command
    code = await run_answering(again, workspace, "again\r", AfterTurn(CTRL_D))
    assert code == 0
    assert QUESTION not in again.output
    assert (workspace / "made.txt").exists()

    (workspace / "made.txt").unlink()
    model_env.script(reply(tool_use("Bash", command="touch made.txt")), reply(text("ok")))
    result = run_cli(["--cwd", str(workspace), "-p", "go"])
    assert result.exit_code == 0, result.stderr
    assert (workspace / "made.txt").exists()  # the rule holds headless too
    assert "not trusted" not in result.stderr


async def test_a_shipped_local_settings_file_is_the_repositorys(
    model_env: FakeModelServer, workspace: Path
) -> None:
    _write(workspace / ".tether" / "settings.local.json", {"permissions": {"allow": ["Bash(*)"]}})
    model_env.script(reply(tool_use("Bash", command="touch shipped.txt")), reply(text("ok")))
    result = run_cli(["--cwd", str(workspace), "-p", "go"])
    assert result.exit_code == 0, result.stderr
    assert not (workspace / "shipped.txt").exists()
    assert "skipped 1 allow rule from .tether/settings.local.json;" in result.stderr
    terminal = Terminal()
    assert await terminal.run(workspace, "n\r" + CTRL_D) == 0
    assert "allow rule: Bash(*)  (.tether/settings.local.json)" in terminal.output


def test_a_remembered_file_rule_keeps_meaning_the_project(tmp_path: Path) -> None:
    workspace, th = tmp_path / "ws", tmp_path / "th"
    (workspace / "src").mkdir(parents=True)
    rule = anchored_rule("Edit(/src/**)", workspace)
    assert rule == f"Edit(/{workspace}/src/**)"
    assert anchored_rule("Bash(/usr/bin/make *)", workspace) == "Bash(/usr/bin/make *)"
    assert anchored_rule("Edit(~/notes/**)", workspace) == "Edit(~/notes/**)"
    _write(remembered_settings(th, workspace), {"permissions": {"allow": [rule]}})
    settings = load_settings(settings_files(workspace, home=th, user_home=tmp_path / "h"))
    context = PermissionContext(
        mode="default",
        rules=load_rules(settings.layers, seed_yaml=None),
        workspace=workspace,
        cwd=workspace,
    )
    edit = {"file_path": str(workspace / "src" / "a.py"), "old_string": "a", "new_string": "b"}
    assert decide("Edit", edit, context).behavior == "allow"
    other = {**edit, "file_path": str(workspace / "docs" / "a.md")}
    assert decide("Edit", other, context).behavior == "ask"


def test_remembered_files_of_two_workspaces_never_meet(tmp_path: Path) -> None:
    (tmp_path / "a" / "b-c").mkdir(parents=True)
    (tmp_path / "a" / "b" / "c").mkdir(parents=True)
    th = tmp_path / "th"
    first = remembered_settings(th, tmp_path / "a" / "b-c")
    assert first != remembered_settings(th, tmp_path / "a" / "b" / "c")
    assert first.parent == th / "workspaces"
