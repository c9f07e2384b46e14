"""An approved write happens: the gate decides, the tool obeys. `--add-dir` and the
`additionalDirectories` setting make more directories work like the workspace: read and
written without questions the workspace would not get, writable in the sandbox."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.protocol import PermissionAsked
from tether.sandbox import probe
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

from .conftest import MakeSession

Run = Callable[..., CliResult]


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    path = tmp_path / "shared-lib"
    path.mkdir()
    return path


async def test_a_write_outside_the_workspace_that_the_user_approves_lands(
    fake_model: FakeModelServer, asked_session: MakeSession, elsewhere: Path
) -> None:
    target = elsewhere / "CHANGELOG.md"
    fake_model.script(
        reply(tool_use("Write", file_path=str(target), content="## 2.0\n")), reply(text("ok"))
    )
    run = asked_session(mode="acceptEdits")
    events = await run.turn("write the changelog")
    [question] = [e for e in events if isinstance(e, PermissionAsked)]
    assert question.reason == f"writes {target}, outside the workspace"
    assert question.suggestion is None  # no rule could allow it: nothing to remember
    assert target.read_text() == "## 2.0\n"
    assert fake_model.requests[1].tool_result_errors() == [False]


async def test_a_denied_outside_write_does_not_land(
    fake_model: FakeModelServer, asked_session: MakeSession, elsewhere: Path
) -> None:
    target = elsewhere / "x.txt"
    fake_model.script(reply(tool_use("Write", file_path=str(target), content="x")), reply(text("")))
    run = asked_session(mode="default", answer="deny")
    await run.turn("write")
    assert not target.exists()


def test_bypass_mode_writes_outside_the_workspace(
    fake_model: FakeModelServer, tether: Run, elsewhere: Path
) -> None:
    target = elsewhere / "build.cfg"
    fake_model.script(
        reply(tool_use("Write", file_path=str(target), content="fast=1\n")), reply(text("ok"))
    )
    result = tether("-p", "configure", "--dangerously-skip-permissions")
    assert result.exit_code == 0, result.stderr
    assert target.read_text() == "fast=1\n"


def test_add_dir_writes_are_allowed_in_accept_edits_and_reads_are_not_asked(
    fake_model: FakeModelServer, tether: Run, workspace: Path, elsewhere: Path
) -> None:
    (elsewhere / "api.py").write_text("VERSION = 1\n")
    fake_model.script(
        reply(tool_use("Read", file_path=str(elsewhere / "api.py"))),
        reply(
            tool_use("Edit", file_path=str(elsewhere / "api.py"), old_string="1", new_string="2"),
            tool_use("Write", file_path=str(elsewhere / "new.py"), content="x = 1\n"),
        ),
        reply(text("done")),
    )
    result = tether(
        "-p", "bump", "--permission-mode", "acceptEdits", "--add-dir", str(elsewhere),
        "--output-format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert result.json()["permission_denials"] == []
    assert "VERSION = 1" in fake_model.requests[1].tool_results()[0]
    assert (elsewhere / "api.py").read_text() == "VERSION = 2\n"
    assert (elsewhere / "new.py").read_text() == "x = 1\n"


def test_without_add_dir_the_same_calls_are_asked(
    fake_model: FakeModelServer, tether: Run, elsewhere: Path
) -> None:
    (elsewhere / "api.py").write_text("VERSION = 1\n")
    fake_model.script(
        reply(tool_use("Read", file_path=str(elsewhere / "api.py"))), reply(text("done"))
    )
    result = tether("-p", "read", "--permission-mode", "acceptEdits", "--output-format", "json")
    assert len(result.json()["permission_denials"]) == 1


def test_add_dir_that_is_not_a_directory_is_an_error(tether: Run, tmp_path: Path) -> None:
    result = tether("-p", "x", "--add-dir", str(tmp_path / "missing"))
    assert result.exit_code != 0
    assert "--add-dir" in result.stderr
    assert "not a directory" in result.stderr


async def test_relative_additional_directories_start_at_the_settings_project(
    fake_model: FakeModelServer, asked_session: MakeSession, workspace: Path, tmp_path: Path
) -> None:
    sibling = tmp_path / "docs-site"
    sibling.mkdir()
    (sibling / "index.md").write_text("# docs\n")
    (workspace / ".claude").mkdir()
    settings = {"permissions": {"additionalDirectories": ["../docs-site"]}}
    (workspace / ".claude" / "settings.json").write_text(json.dumps(settings))
    fake_model.script(
        reply(tool_use("Read", file_path=str(sibling / "index.md"))),
        reply(tool_use("Write", file_path=str(sibling / "new.md"), content="new\n")),
        reply(text("done")),
    )
    run = asked_session(mode="acceptEdits", trusted=True)
    events = await run.turn("write the docs")
    assert [e for e in events if isinstance(e, PermissionAsked)] == []
    assert (sibling / "new.md").read_text() == "new\n"


@pytest.mark.skipif(not probe().works, reason="bubblewrap cannot run here")
def test_the_sandbox_makes_an_added_directory_writable(
    fake_model: FakeModelServer, tether: Run, workspace: Path, elsewhere: Path
) -> None:
    fake_model.script(
        reply(tool_use("Bash", command=f"echo built > {elsewhere}/out.txt")), reply(text("ok"))
    )
    result = tether(
        "-p", "build", "--permission-mode", "acceptEdits", "--add-dir", str(elsewhere),
        "--output-format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert result.json()["permission_denials"] == []
    assert (elsewhere / "out.txt").read_text() == "built\n"


def test_add_dir_takes_several_directories(
    fake_model: FakeModelServer, tether: Run, tmp_path: Path, elsewhere: Path
) -> None:
    other = tmp_path / "other-lib"
    other.mkdir()
    fake_model.script(
        reply(
            tool_use("Write", file_path=str(elsewhere / "a.py"), content="a\n"),
            tool_use("Write", file_path=str(other / "b.py"), content="b\n"),
        ),
        reply(text("done")),
    )
    result = tether(
        "-p", "--permission-mode", "acceptEdits", "--output-format", "json",
        "--add-dir", str(elsewhere), str(other), "--", "write both",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert result.json()["permission_denials"] == []
    assert [(elsewhere / "a.py").read_text(), (other / "b.py").read_text()] == ["a\n", "b\n"]
    assert fake_model.requests[0].body["messages"][0]["content"][-1]["text"] == "write both"


def test_a_prompt_after_the_directories_is_named_as_the_problem(
    tether: Run, tmp_path: Path, elsewhere: Path
) -> None:
    result = tether("-p", "--add-dir", str(elsewhere), str(tmp_path), "hello there")
    assert result.exit_code == 2
    assert result.stderr == (
        "tether: error: --add-dir takes every word after it as a directory, and 'hello there' "
        "is not one: put the prompt before --add-dir, or end the directories with --\n"
    )
