"""A workspace deleted, moved or renamed while the session runs is not made again by Write
(which made the old path anew and wrote there, silently: after a rename the user's edit
landed in a stray new folder): the tool's error says the workspace is gone, and the turn goes
on. A real session; the workspace goes between two model calls."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult
from tether.testing.recorded import RecordedRequest
from tether.testing.script import Turn

Run = Callable[..., CliResult]


@pytest.mark.parametrize("how", ["deleted", "renamed"])
@pytest.mark.parametrize("file_path", ["new.txt", "sub/dir/new.txt"])
def test_write_into_a_workspace_that_went_is_refused_and_not_made_again(
    fake_model: FakeModelServer, tether: Run, workspace: Path, how: str, file_path: str
) -> None:
    (workspace / "keep.txt").write_text("kept\n")
    moved = workspace.with_name("ws-moved")

    def workspace_goes(_: RecordedRequest) -> Turn:
        if how == "deleted":
            shutil.rmtree(workspace)
        else:
            workspace.rename(moved)
        return reply(tool_use("Write", file_path=file_path, content="lost?\n"))

    fake_model.script(workspace_goes, reply(text("noted")))
    result = tether("-p", "write it")
    assert (result.exit_code, result.stdout) == (0, "noted\n"), result.stderr
    [said] = fake_model.requests[1].tool_results()
    assert said.startswith(
        f"Error: The workspace {workspace.resolve()} no longer exists (it was "
    ), said
    assert "was not written, and the workspace was not made again" in said
    assert not workspace.exists()
    if how == "renamed":
        assert sorted(p.name for p in moved.iterdir()) == ["keep.txt"]
        shutil.rmtree(moved)
