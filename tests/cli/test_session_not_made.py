"""A new session whose file cannot be made stops before the model with one message that names
the cause and fits it: the sessions folder a file, a `--session-id` already taken, a home
that cannot be written; `--no-session-persistence` suggested where it works, and no second
line promising to save later what the first says was not saved."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.store.sessions import project_dir
from tether.testing import FakeModelServer, text
from tether.testing.cli_runner import CliResult

NO_FILE = "(or run it without a session file: `--no-session-persistence`)"


def _stopped(result: CliResult) -> str:
    assert result.exit_code == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert "not being saved for now" not in result.stderr  # the contradiction
    [line] = [line for line in result.stderr.splitlines() if "stopped before" in line]
    return line


def test_the_sessions_folder_a_file(
    fake_model: FakeModelServer, tether: Callable[..., CliResult], workspace: Path
) -> None:
    folder = project_dir(Path(os.environ["TETHER_HOME"]), workspace)
    folder.parent.mkdir(parents=True)
    folder.write_text("x")
    line = _stopped(tether("-p", "hi"))
    assert f"the sessions folder {folder} is a file, not a folder" in line
    assert "already exists" not in line
    assert "free space" not in line
    assert line.endswith(
        f"move away the file in the folder's place and send the prompt again {NO_FILE}."
    )
    assert fake_model.requests == []
    fake_model.script(text("unsaved"))
    result = tether("-p", "hi", "--no-session-persistence")
    assert (result.exit_code, result.stdout) == (0, "unsaved\n"), result.stderr


def test_a_session_id_in_use(fake_model: FakeModelServer, tether: Callable[..., CliResult]) -> None:
    session_id = str(uuid.uuid4())
    fake_model.script(text("first"))
    assert tether("-p", "--session-id", session_id, "one").exit_code == 0
    line = _stopped(tether("-p", "--session-id", session_id, "two"))
    assert f"session id {session_id} is already in use" in line
    assert "free space" not in line
    assert "writable" not in line
    assert line.endswith(
        "give another `--session-id` (or resume that session with `--resume`) and send the "
        "prompt again."
    )
    assert len(fake_model.requests) == 1


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes a folder without write permission")
def test_a_home_that_cannot_be_written(
    fake_model: FakeModelServer, tether: Callable[..., CliResult]
) -> None:
    home = Path(os.environ["TETHER_HOME"])
    home.chmod(0o500)
    try:
        line = _stopped(tether("-p", "hi"))
    finally:
        home.chmod(0o700)
    assert "Permission denied" in line
    assert line.endswith(f"make the sessions folder writable and send the prompt again {NO_FILE}.")
