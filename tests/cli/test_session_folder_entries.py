"""A session folder holding an entry that cannot be examined (a symbolic link to itself, a
loop of links): every command that scans the folder leaves it out, says so, and goes on."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from tether.store import list_sessions, project_dir
from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult, run_cli_process

Run = Callable[..., CliResult]

LOOP = "11111111-0000-0000-0000-000000000002"


def test_a_link_loop_in_the_session_folder_is_skipped_and_said(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.script(reply(text("first")), reply(text("again")), reply(text("once more")))
    first = tether("-p", "start", "--output-format", "json")
    assert first.exit_code == 0, first.stderr
    session_id = first.json()["session_id"]
    home = Path(os.environ["TETHER_HOME"])
    folder = project_dir(home, workspace)
    loop = folder / f"{LOOP}.jsonl"
    os.symlink(loop, loop)
    other = folder / "22222222-0000-0000-0000-000000000003.jsonl"
    os.symlink(folder / "a.jsonl", other)  # a loop of two: a.jsonl -> b.jsonl -> a.jsonl
    os.symlink(folder / "b.jsonl", folder / "a.jsonl")
    os.symlink(folder / "a.jsonl", folder / "b.jsonl")

    skipped: list[str] = []
    assert [s.session_id for s in list_sessions(home, workspace, skipped)] == [session_id]
    assert any(LOOP in line and "symbolic links" in line for line in skipped), skipped

    listed = run_cli_process(["sessions", "list", "--cwd", str(workspace)])
    assert listed.exit_code == 0, listed.stderr
    assert session_id in listed.stdout
    assert "Traceback" not in listed.stderr
    assert f"skipped {loop}" in listed.stderr

    again = tether("-c", "-p", "go on", "--output-format", "json")
    assert again.exit_code == 0, again.stderr
    assert again.json()["session_id"] == session_id
    assert f"skipped {loop}" in again.stderr

    chosen = tether("-r", session_id, "-p", "and on", "--output-format", "json")
    assert chosen.exit_code == 0, chosen.stderr
    assert chosen.json()["session_id"] == session_id

    removed = run_cli_process(["sessions", "rm", LOOP, "--cwd", str(workspace)])
    assert removed.exit_code == 2
    assert "Traceback" not in removed.stderr
    assert f"no session '{LOOP}'" in removed.stderr
    assert f"skipped {loop}" in removed.stderr
