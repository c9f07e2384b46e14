"""Every built-in tool, success and failure, driven by a scripted model through the real SDK.

The tool-level suites (tests/tools) cover the details; these check what actually reaches the
model: the tool_result text and its is_error flag in the next request, and the files on disk.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def _session(fake_model: FakeModelServer, tether: Run, *calls: object) -> list[tuple[str, bool]]:
    """One model response making `calls`, then a closing text; returns what went back."""
    fake_model.script(reply(*calls), reply(text("done")))  # type: ignore[arg-type]
    result = tether("-p", "work")
    assert result.exit_code == 0, result.stderr
    follow_up = fake_model.requests[1]
    return list(zip(follow_up.tool_results(), follow_up.tool_result_errors(), strict=True))


def test_bash(fake_model: FakeModelServer, tether: Run, workspace: Path) -> None:
    (workspace / "sub").mkdir()
    fake_model.script(
        reply(tool_use("Bash", command="cd sub && echo in-sub")),
        reply(
            tool_use("Bash", command="pwd"),
            tool_use("Bash", command="echo oops >&2; exit 3"),
            tool_use("Bash", command="sleep 30", timeout=300),
        ),
        reply(text("done")),
    )
    result = tether("-p", "work")
    assert result.exit_code == 0, result.stderr
    assert fake_model.requests[1].tool_results() == ["in-sub"]
    second = fake_model.requests[2]
    results = list(zip(second.tool_results(), second.tool_result_errors(), strict=True))
    # The directory carries over to the next response's calls (they start after the cd).
    assert results[0] == (str(workspace / "sub"), False)
    assert results[1][1] is True
    assert "Exit code 3" in results[1][0]
    assert "oops" in results[1][0]
    assert results[2][1] is True
    assert "timed out" in results[2][0]


def test_read(fake_model: FakeModelServer, tether: Run, workspace: Path) -> None:
    (workspace / "a.txt").write_text("one\ntwo\n")
    (workspace / "blob.bin").write_bytes(b"\x00\x01\x02" * 100)
    results = _session(
        fake_model,
        tether,
        tool_use("Read", file_path="a.txt"),
        tool_use("Read", file_path="missing.txt"),
        tool_use("Read", file_path="."),
        tool_use("Read", file_path="blob.bin"),
    )
    assert results[0] == ("     1\tone\n     2\ttwo", False)
    assert [error for _, error in results[1:]] == [True, True, True]
    assert "does not exist" in results[1][0]
    assert "directory" in results[2][0]
    assert "binary" in results[3][0]


def test_write_and_edit(fake_model: FakeModelServer, tether: Run, workspace: Path) -> None:
    (workspace / "code.py").write_text("x = 1\nx = 1\n")
    results = _session(
        fake_model,
        tether,
        tool_use("Write", file_path="new.txt", content="fresh\n"),
        tool_use("Edit", file_path="code.py", old_string="x = 1", new_string="x = 2"),
        tool_use("Read", file_path="code.py"),
        tool_use("Edit", file_path="code.py", old_string="x = 1", new_string="x = 2"),
        tool_use(
            "Edit", file_path="code.py", old_string="x = 1", new_string="x = 2", replace_all=True
        ),
        tool_use("Edit", file_path="nope.py", old_string="a", new_string="b"),
        # bypassPermissions approves it, so it happens (the gate decides, the tool obeys).
        tool_use("Write", file_path=str(workspace.parent / "outside.txt"), content="yes"),
    )
    errors = [error for _, error in results]
    assert errors == [False, True, False, True, False, True, False]
    assert "has not been read" in results[1][0]
    assert "2 times" in results[3][0] or "2 matches" in results[3][0] or "twice" in results[3][0]
    assert (workspace / "new.txt").read_text() == "fresh\n"
    assert (workspace / "code.py").read_text() == "x = 2\nx = 2\n"
    assert (workspace.parent / "outside.txt").read_text() == "yes"


def test_revert(fake_model: FakeModelServer, tether: Run, workspace: Path) -> None:
    results = _session(
        fake_model,
        tether,
        tool_use("Write", file_path="made.txt", content="v1\n"),
        tool_use("Revert", file_path="made.txt"),
        tool_use("Revert", file_path="made.txt"),
    )
    assert [error for _, error in results] == [False, False, True]
    assert not (workspace / "made.txt").exists()


def test_glob_and_grep(fake_model: FakeModelServer, tether: Run, workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "a.py").write_text("def alpha():\n    pass\n")
    (workspace / "src" / "b.py").write_text("def beta():\n    pass\n")
    (workspace / "notes.md").write_text("alpha notes\n")
    results = _session(
        fake_model,
        tether,
        tool_use("Glob", pattern="**/*.py"),
        tool_use("Grep", pattern="def alpha", output_mode="content"),
        tool_use("Grep", pattern="alpha", glob="*.md"),
        tool_use("Grep", pattern="def (unclosed"),
        tool_use("Glob", pattern="*.rs"),
    )
    assert sorted(results[0][0].splitlines()) == ["src/a.py", "src/b.py"]
    assert results[1] == ("src/a.py:1:def alpha():", False)
    assert results[2] == ("notes.md", False)
    assert results[3][1] is True
    assert "regex" in results[3][0].lower()
    assert results[4][1] is False
    assert "No files" in results[4][0] or "no files" in results[4][0]


@pytest.mark.parametrize("model", ["claude-sonnet-5-5", "openai/gpt-4.1"])
def test_edit_diff_round_trip_on_both_wires(
    fake_model: FakeModelServer, tether: Run, workspace: Path, model: str
) -> None:
    (workspace / "f.txt").write_text("hello\n")
    fake_model.script(
        reply(tool_use("Read", file_path="f.txt")),
        reply(tool_use("Edit", file_path="f.txt", old_string="hello", new_string="bye")),
        reply(text("edited")),
    )
    result = tether("-p", "edit", "--model", model)
    assert (result.exit_code, result.stdout) == (0, "edited\n"), result.stderr
    assert (workspace / "f.txt").read_text() == "bye\n"
    assert fake_model.requests[2].tool_result_errors() == [False]
